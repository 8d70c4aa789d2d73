// The protection aggregate: one account's risk limits and profit targets at work (stream
// `protection-<accountId>`). The protection monitor (engine/protection/monitor.ts) sends what it sees
// every second (EvaluateProtection: the rules, the account's funds, book and recent history); the API
// sends resets; the decider answers with the references, triggers, clears and resets to record, by
// the rules of evaluate.ts. State keeps only what is still current: a trigger once recorded is never
// recorded again, so a restart or a replay does not hit a limit twice.
import type { Decider } from '../shared/command.js';
import { invalid } from '../shared/errors.js';
import type { ProtectionCommand } from './commands.js';
import { evaluate } from './evaluate.js';
import type { ProtectionEvent } from './events.js';
import type { RuleKind } from './rules.js';
import { type ActiveTrigger, initialState, lockedCloseKey, type ProtectionState, type Reference } from './state.js';

export { type ActiveTrigger, initialState, type LockedClose, lockedCloseKey, type ProtectionState, type Reference } from './state.js';

const without = <T>(record: Readonly<Record<string, T>>, drop: (key: string, value: T) => boolean): Record<string, T> =>
  Object.fromEntries(Object.entries(record).filter(([key, value]) => !drop(key, value)));

const anchorOfPeak = (key: string): string => key.slice(0, key.lastIndexOf('|'));

export const evolve = (state: ProtectionState, event: ProtectionEvent): ProtectionState => {
  switch (event.type) {
    case 'ProtectionReferenceRecorded': {
      const d = event.data;
      // A newer anchor of the same period unit, or of the same rule, replaces the older ones.
      // (A new period also retires the resets of the period before.)
      const family = d.family ?? d.unit;
      const replaced = (r: Reference) =>
        d.kind === 'PERIOD'
          ? r.kind !== 'OVERALL' && r.family === family && Date.parse(r.start) < Date.parse(d.start)
          : r.kind === d.kind && r.ruleId === d.ruleId && r.anchor !== d.anchor;
      const references = without(state.references, (_k, r) => replaced(r));
      references[d.anchor] = {
        anchor: d.anchor,
        kind: d.kind,
        ruleId: d.ruleId,
        unit: d.unit,
        family,
        start: d.start,
        balance: d.balance,
        equity: d.equity,
        observedAt: d.observedAt,
      };
      const peaks = without(state.peaks, (key) => !references[anchorOfPeak(key)]);
      return { ...state, references, peaks };
    }
    case 'ProtectionPeakRecorded': {
      const key = `${event.data.anchor}|${event.data.measure}`;
      return { ...state, peaks: { ...state.peaks, [key]: Math.max(state.peaks[key] ?? -Infinity, event.data.value) } };
    }
    case 'ProtectionThresholdReached':
      return { ...state, pending: { ...state.pending, [event.data.triggerId]: { ruleId: event.data.ruleId, since: event.data.at } } };
    case 'ProtectionThresholdReceded':
      return { ...state, pending: without(state.pending ?? {}, (id) => id === event.data.triggerId) };
    case 'ProtectionTriggered': {
      const d = event.data;
      const trigger: ActiveTrigger = {
        triggerId: d.triggerId,
        ruleId: d.ruleId,
        ruleKind: d.ruleKind,
        ruleType: d.ruleType,
        level: d.level,
        anchor: d.anchor,
        symbol: d.symbol,
        until: d.until,
        action: d.action,
        closed: false,
        at: d.at,
      };
      return { ...state, pending: without(state.pending ?? {}, (id) => id === d.triggerId), triggers: { ...state.triggers, [d.triggerId]: trigger } };
    }
    // A lock that ends keeps the closes decided for it and not finished yet: each is sent once more
    // (with its request id, so a close a crash left unrecorded is answered with its first result) and
    // recorded as done or failed (a refusal then is final: the account is no longer locked).
    case 'ProtectionCleared': {
      const ids = new Set(event.data.triggerIds);
      return { ...state, triggers: without(state.triggers, (id) => ids.has(id)) };
    }
    case 'ProtectionReset':
      return {
        ...state,
        resets: { ...state.resets, [event.data.ruleId]: event.data.at },
        pending: without(state.pending ?? {}, (_id, p) => p.ruleId === event.data.ruleId),
        triggers: without(state.triggers, (_id, t) => t.ruleId === event.data.ruleId),
      };
    case 'ProtectionClosingDecided': {
      const trigger = state.triggers[event.data.triggerId];
      return trigger ? { ...state, triggers: { ...state.triggers, [trigger.triggerId]: { ...trigger, closing: true } } } : state;
    }
    case 'ProtectionPositionsClosed': {
      const trigger = state.triggers[event.data.triggerId];
      return trigger ? { ...state, triggers: { ...state.triggers, [trigger.triggerId]: { ...trigger, closed: true } } } : state;
    }
    case 'ProtectionLockedCloseDecided': {
      const { accountId: _account, at: _at, ...decision } = event.data;
      return { ...state, lockedCloses: { ...state.lockedCloses, [lockedCloseKey(decision.triggerId, decision.positionId)]: { ...decision, failed: null } } };
    }
    case 'ProtectionLockedPositionClosed': {
      const key = lockedCloseKey(event.data.triggerId, event.data.positionId);
      return state.lockedCloses?.[key] ? { ...state, lockedCloses: without(state.lockedCloses, (k) => k === key) } : state;
    }
    case 'ProtectionCloseFailed': {
      const key = lockedCloseKey(event.data.triggerId, event.data.positionId);
      const close = state.lockedCloses?.[key];
      if (!close) return state;
      // A refusal after the lock ended is the close's last word.
      if (event.data.final === true) return { ...state, lockedCloses: without(state.lockedCloses ?? {}, (k) => k === key) };
      return { ...state, lockedCloses: { ...state.lockedCloses, [key]: { ...close, failed: event.data.code } } };
    }
    default: {
      const unhandled: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unhandled)}`);
    }
  }
};

const RULE_WORDS: Readonly<Record<RuleKind, string>> = { RISK_LIMIT: 'Risk limit', PROFIT_TARGET: 'Profit target', OVERALL_TARGET: 'Overall target' };

export const decide = (command: ProtectionCommand, state: ProtectionState): ProtectionEvent[] => {
  const at = command.metadata.now;
  switch (command.type) {
    case 'EvaluateProtection':
      return evaluate(command.data, state, at, evolve);
    case 'ResetProtection': {
      const { accountId, ruleId, ruleKind, ruleType } = command.data;
      const wasActive = Object.values(state.triggers).some((t) => t.ruleId === ruleId);
      const measure = ruleKind === 'OVERALL_TARGET' ? 'its per-symbol results count from now' : 'it measures from now until its period ends';
      return [
        {
          type: 'ProtectionReset',
          data: {
            accountId,
            ruleId,
            ruleKind,
            reason: 'API',
            at,
            message: `${RULE_WORDS[ruleKind]} ${ruleType} reset${wasActive ? ': new copies to this account resume' : ''}; ${measure}`,
          },
        },
      ];
    }
    case 'DecideClosing': {
      const { accountId, triggerId } = command.data;
      const trigger = state.triggers[triggerId];
      // Gone (reset, cleared), closed, or decided already: nothing to decide.
      if (!trigger || trigger.action !== 'CLOSE_ALL' || trigger.closed || trigger.closing === true) return [];
      return [{ type: 'ProtectionClosingDecided', data: { accountId, triggerId, ruleId: trigger.ruleId, at } }];
    }
    case 'RecordCloseOutcome': {
      const { accountId, triggerId, closedPositions, cancelledOrders, failures } = command.data;
      const trigger = state.triggers[triggerId];
      if (!trigger) throw invalid('[PROTECTION_TRIGGER_UNKNOWN]', `no active protection trigger ${triggerId}`);
      if (trigger.closed) return [];
      if (failures.length > 0) {
        return failures.map((f) => ({
          type: 'ProtectionCloseFailed',
          data: { accountId, triggerId, ruleId: trigger.ruleId, positionId: f.positionId, code: f.code, message: f.message, at },
        }));
      }
      return [{ type: 'ProtectionPositionsClosed', data: { accountId, triggerId, ruleId: trigger.ruleId, closedPositions, cancelledOrders, at } }];
    }
    case 'DecideLockedClose': {
      const { requestId, ...d } = command.data;
      const trigger = state.triggers[d.triggerId];
      // Only once the trigger's own closing is done, and only for the targets (a lock in close mode).
      if (!trigger || !trigger.closed || trigger.action !== 'CLOSE_ALL' || trigger.ruleKind === 'RISK_LIMIT') return [];
      if (state.lockedCloses?.[lockedCloseKey(d.triggerId, d.positionId)]) return [];
      return [
        {
          type: 'ProtectionLockedCloseDecided',
          data: { ...d, ruleId: trigger.ruleId, ruleType: trigger.ruleType, until: trigger.until, requestId, at },
        },
      ];
    }
    case 'RecordLockedClose': {
      const { accountId, triggerId, positionId, outcome } = command.data;
      // A decision finished already (a repeat after a restart) records nothing more.
      const close = state.lockedCloses?.[lockedCloseKey(triggerId, positionId)];
      if (!close) return [];
      if (outcome.type === 'failed') {
        // Its lock ended (its period, a reset, its rule removed): this refusal is recorded, and final.
        if (!state.triggers[triggerId]) {
          return [
            {
              type: 'ProtectionCloseFailed',
              data: { accountId, triggerId, ruleId: close.ruleId, positionId, code: outcome.code, message: outcome.message, final: true, at },
            },
          ];
        }
        // Tried again every tick while the lock lasts; each refusal is logged once, a new one (another code) again.
        if (close.failed === outcome.code) return [];
        return [
          { type: 'ProtectionCloseFailed', data: { accountId, triggerId, ruleId: close.ruleId, positionId, code: outcome.code, message: outcome.message, at } },
        ];
      }
      const { requestId: _requestId, failed: _failed, ...decision } = close;
      return [{ type: 'ProtectionLockedPositionClosed', data: { accountId, ...decision, ...(outcome.type === 'gone' ? { gone: true } : {}), at } }];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const protectionDecider: Decider<ProtectionCommand, ProtectionEvent, ProtectionState> = { decide, evolve, initialState };
