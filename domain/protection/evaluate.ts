// The protection rules, pure: given what the monitor saw on the account, which references to record,
// which limits are hit and which targets lock, which triggers end. Every definition here is repeated
// in the OpenAPI descriptions (api/riskLimits, domain/profitTarget/features.ts) and the README.
//
// Deposits and withdrawals are never results: what is measured moves by their amount from the moment
// the reference was read (risk limits, period targets without resetOnBalanceChange, the overall
// target with adjustReferenceOnBalanceChange).
import { referenceValue, measuredValue } from '../riskLimit/riskTypes.js';
import { type Anchor, overallLockAnchor, ruleAnchor, triggerIdOf } from './anchors.js';
import type { EvaluateData, Observation } from './commands.js';
import type { ProtectionState, Reference } from './state.js';
import type { ClearReason, ProtectionAction, ProtectionEvent, ResetReason, TriggerLevel } from './events.js';
import type { OverallTargetRule, PeriodTargetRule, ProtectionRule, RiskLimitRule } from './rules.js';
import { ruleTypeName } from './rules.js';

/** A trailing high is recorded when it rises by this fraction of the reference (the monitor keeps the exact one while it runs). */
export const PEAK_STEP = 0.0005;
/** A period reference read later than this after the period began is marked late. */
export const LATE_AFTER_MS = 60_000;

const round2 = (x: number): number => Math.round(x * 100) / 100;
const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;
const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const money = (x: number): string => x.toFixed(2);
const after = (time: string, cutoff: string): boolean => Date.parse(time) > Date.parse(cutoff);
const PREFIX = { day: 'daily', week: 'weekly', month: 'monthly' } as const;
const UNIT_WORDS = { day: 'day', week: 'week', month: 'month' } as const;

/** Deposits minus withdrawals after `cutoff`. */
export const netDepositsAfter = (observation: Observation, cutoff: string): number =>
  round2(sum(observation.balanceOperations.filter((o) => after(o.time, cutoff)).map((o) => o.amount)));

/** Where the observation's history must start for every rule to be judged (the monitor reads from there). */
export const historyStartFor = (state: ProtectionState, rules: readonly ProtectionRule[], now: string, zone: string): string => {
  let earliest = Date.parse(now);
  for (const rule of rules) {
    const anchor = ruleAnchor(rule, state.resets, now, zone);
    const ref = state.references[anchor.key];
    if (ref) earliest = Math.min(earliest, Date.parse(ref.observedAt));
    if (rule.kind === 'PROFIT_TARGET' && rule.settings.trackByOpenDate && anchor.start) earliest = Math.min(earliest, Date.parse(anchor.start));
  }
  return new Date(earliest).toISOString();
};

/**
 * The measured values the trailing (relative) limits compare with their high, by `${anchor}|${measure}`,
 * as they stand now: the monitor keeps their maximum while it runs and passes it back as
 * Observation.peaks.
 */
export const trailingValues = (
  state: ProtectionState,
  rules: readonly ProtectionRule[],
  observation: Observation,
  now: string,
  zone: string,
): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const rule of rules) {
    if (rule.kind !== 'RISK_LIMIT') continue;
    const anchor = ruleAnchor(rule, state.resets, now, zone);
    const ref = state.references[anchor.key];
    if (!ref) continue;
    out[`${anchor.key}|${rule.riskType.measure}`] = round2(measuredValue(rule.riskType.measure, observation) - netDepositsAfter(observation, ref.observedAt));
  }
  return out;
};

interface Reached {
  readonly member: string;
  readonly threshold: number;
  /** The loss or profit compared, in the account currency (a trailing limit: the fall from the high). */
  readonly measured?: number;
  /** The figure compared, in words: "loss 400.00 USD (4 % of the reference 10000.00)". */
  readonly words: string;
}

const anchorWords = (anchor: Anchor, ref: Reference): string =>
  anchor.kind === 'RESET'
    ? `the reset at ${ref.start}`
    : anchor.kind === 'PERIOD'
      ? `the start of ${UNIT_WORDS[anchor.unit!]} ${anchor.label}`
      : `the reference`;

export const evaluate = (
  data: EvaluateData,
  initial: ProtectionState,
  now: string,
  evolve: (state: ProtectionState, event: ProtectionEvent) => ProtectionState,
): ProtectionEvent[] => {
  const { accountId, zone, rules, observation } = data;
  const events: ProtectionEvent[] = [];
  let state = initial;
  const emit = (event: ProtectionEvent) => {
    events.push(event);
    state = evolve(state, event);
  };

  // Triggers end with their period, or with their rule.
  const listed = new Set(rules.map((r) => r.id));
  const ending = new Map<string, { ruleId: string; reason: ClearReason; ids: string[] }>();
  for (const t of Object.values(state.triggers)) {
    const reason: ClearReason | null = !listed.has(t.ruleId)
      ? 'RULE_REMOVED'
      : t.until !== null && Date.parse(t.until) <= Date.parse(now)
        ? 'NEXT_PERIOD'
        : null;
    if (!reason) continue;
    const key = `${t.ruleId}/${reason}`;
    const entry = ending.get(key) ?? { ruleId: t.ruleId, reason, ids: [] };
    entry.ids.push(t.triggerId);
    ending.set(key, entry);
  }
  for (const { ruleId, reason, ids } of ending.values()) {
    emit({ type: 'ProtectionCleared', data: { accountId, ruleId, triggerIds: ids.sort(), reason, at: now } });
  }
  if (!observation) return events;
  const obs = observation;
  const covers = (time: string) => Date.parse(obs.historyFrom) <= Date.parse(time);

  const referenceFor = (anchor: Anchor): Reference => {
    const known = state.references[anchor.key];
    if (known) return known;
    const start = anchor.start ?? now;
    emit({
      type: 'ProtectionReferenceRecorded',
      data: {
        accountId,
        anchor: anchor.key,
        kind: anchor.kind,
        ruleId: anchor.ruleId,
        unit: anchor.unit,
        start,
        label: anchor.label,
        balance: obs.balance,
        equity: obs.equity,
        currency: obs.currency,
        observedAt: now,
        late: anchor.kind === 'PERIOD' && Date.parse(now) - Date.parse(start) > LATE_AFTER_MS,
      },
    });
    return state.references[anchor.key]!;
  };

  const trigger = (
    rule: ProtectionRule,
    anchor: string,
    level: TriggerLevel,
    symbol: string | null,
    until: string | null,
    action: ProtectionAction,
    measured: number,
    reached: Reached,
    message: string,
  ) => {
    const triggerId = triggerIdOf(rule.id, anchor, level, symbol);
    if (state.triggers[triggerId]) return;
    emit({
      type: 'ProtectionTriggered',
      data: {
        accountId,
        triggerId,
        ruleKind: rule.kind,
        ruleId: rule.id,
        ruleType: ruleTypeName(rule),
        level,
        anchor,
        symbol,
        until,
        action,
        measured,
        threshold: reached.threshold,
        thresholdMember: reached.member,
        currency: obs.currency,
        at: now,
        message,
      },
    });
  };

  const reset = (rule: ProtectionRule, reason: ResetReason, message: string) =>
    emit({ type: 'ProtectionReset', data: { accountId, ruleId: rule.id, ruleKind: rule.kind, reason, at: now, message } });

  const stopWords = (until: string | null, action: ProtectionAction, symbol: string | null = null): string => {
    const end = until ? `${until} (the next period in ${zone}) or a reset` : 'a reset';
    const closing = symbol
      ? `its ${symbol} positions are closed and its ${symbol} pending orders cancelled`
      : 'every position is closed and every pending order cancelled';
    return `New copies${symbol ? ` on ${symbol}` : ''} to this account stop until ${end}; ${action === 'CLOSE_ALL' ? closing : 'positions stay open'}.`;
  };

  // ------------------------------------------------------------------ risk limits
  const riskLimit = (rule: RiskLimitRule) => {
    const anchor = ruleAnchor(rule, state.resets, now, zone);
    const ref = referenceFor(anchor);
    if (!covers(ref.observedAt)) return;
    const s = rule.settings;
    const { measure } = rule.riskType;
    const reference = referenceValue(measure, ref);
    const current = round2(measuredValue(measure, obs) - netDepositsAfter(obs, ref.observedAt));
    const peakKey = `${anchor.key}|${measure}`;
    const recorded = state.peaks[peakKey];
    const peak = Math.max(reference, recorded ?? -Infinity, obs.peaks[peakKey] ?? -Infinity, current);
    if ((s.relativeRiskLimit > 0 || s.fallbackRelativeRiskLimit > 0) && peak > (recorded ?? reference) + PEAK_STEP * Math.abs(reference)) {
      emit({ type: 'ProtectionPeakRecorded', data: { accountId, anchor: anchor.key, measure, value: round2(peak), at: now } });
    }
    const loss = round2(reference - current);
    const lossPercent = reference > 0 ? round4((loss / reference) * 100) : 0;
    const drawdown = round2(peak - current);
    const drawdownPercent = peak > 0 ? round4((drawdown / peak) * 100) : 0;
    const cur = obs.currency;
    const reachedOf = (absolute: number, percent: number, relative: number, names: readonly [string, string, string]): Reached | null => {
      if (absolute > 0 && loss >= absolute)
        return { member: names[0], threshold: absolute, words: `loss ${money(loss)} ${cur} reached ${names[0]} ${money(absolute)} ${cur}` };
      if (percent > 0 && lossPercent >= percent)
        return {
          member: names[1],
          threshold: percent,
          words: `loss ${money(loss)} ${cur} (${lossPercent} % of the reference) reached ${names[1]} ${percent} %`,
        };
      if (relative > 0 && drawdownPercent >= relative) {
        return {
          member: names[2],
          threshold: relative,
          measured: drawdown,
          words: `${money(drawdown)} ${cur} below the period's high ${money(peak)} (${drawdownPercent} %) reached ${names[2]} ${relative} %`,
        };
      }
      return null;
    };
    const what = `Risk limit ${rule.riskType.name}`;
    const from = `measured from ${money(reference)} ${cur} at ${anchorWords(anchor, ref)}`;
    const limitId = triggerIdOf(rule.id, anchor.key, 'LIMIT', null);
    if (!state.triggers[limitId]) {
      const hit = reachedOf(s.absoluteRiskLimit, s.riskLimit, s.relativeRiskLimit, ['absoluteRiskLimit', 'riskLimit', 'relativeRiskLimit']);
      if (hit) {
        const action: ProtectionAction = s.closeAllOpenPositions ? 'CLOSE_ALL' : 'STOP_COPYING';
        const fallbacks = s.fallbackAbsoluteRiskLimit > 0 || s.fallbackRiskLimit > 0 || s.fallbackRelativeRiskLimit > 0;
        trigger(
          rule,
          anchor.key,
          'LIMIT',
          null,
          anchor.until,
          action,
          hit.measured ?? loss,
          hit,
          `${what} hit: ${hit.words}, ${from}. ${stopWords(anchor.until, action)}${fallbacks ? ' The fallback limits watch them.' : ''}`,
        );
      }
    }
    if (state.triggers[limitId] && !s.closeAllOpenPositions) {
      const hit = reachedOf(s.fallbackAbsoluteRiskLimit, s.fallbackRiskLimit, s.fallbackRelativeRiskLimit, [
        'fallbackAbsoluteRiskLimit',
        'fallbackRiskLimit',
        'fallbackRelativeRiskLimit',
      ]);
      if (hit)
        trigger(
          rule,
          anchor.key,
          'FALLBACK',
          null,
          anchor.until,
          'CLOSE_ALL',
          hit.measured ?? loss,
          hit,
          `${what} fallback reached: ${hit.words}, ${from}. Every position is closed and every pending order cancelled.`,
        );
    }
  };

  // ------------------------------------------------------------------ period profit targets
  const periodTarget = (rule: PeriodTargetRule) => {
    const s = rule.settings;
    const name = ruleTypeName(rule);
    let anchor = ruleAnchor(rule, state.resets, now, zone);
    let ref = referenceFor(anchor);
    const lockedNow = () => state.triggers[triggerIdOf(rule.id, anchor.key, 'TARGET', null)] !== undefined;
    if (s.resetOnBalanceChange && covers(ref.observedAt)) {
      const changes = obs.balanceOperations.filter((o) => after(o.time, ref.observedAt));
      if (changes.length > 0) {
        const amount = round2(sum(changes.map((o) => o.amount)));
        reset(
          rule,
          'BALANCE_CHANGED',
          `Profit target ${name} reset by a ${amount >= 0 ? 'deposit' : 'withdrawal'} of ${money(Math.abs(amount))} ${obs.currency} (resetOnBalanceChange)${lockedNow() ? ': new copies to this account resume' : ''}; it measures from now`,
        );
      }
    }
    if (s.autoResetIfBalanceIsBelow > 0 && lockedNow() && obs.balance < s.autoResetIfBalanceIsBelow) {
      reset(
        rule,
        'BALANCE_BELOW',
        `Profit target ${name} reset: the balance ${money(obs.balance)} fell below autoResetIfBalanceIsBelow ${money(s.autoResetIfBalanceIsBelow)}; new copies to this account resume and it measures from now`,
      );
    }
    anchor = ruleAnchor(rule, state.resets, now, zone);
    ref = referenceFor(anchor);
    if (lockedNow()) return;
    const since = anchor.start!;
    if (!covers(s.trackByOpenDate ? since : ref.observedAt)) return;
    const profit = s.trackByOpenDate
      ? round2(
          sum(obs.closedTrades.filter((t) => Date.parse(t.openTime) >= Date.parse(since)).map((t) => t.result)) +
            sum(obs.book.filter((p) => p.kind === 'position' && Date.parse(p.openTime) >= Date.parse(since)).map((p) => p.result)),
        )
      : round2(obs.equity - netDepositsAfter(obs, ref.observedAt) - ref.equity);
    const prefix = PREFIX[rule.unit];
    const relativeAmount = round2((s.relativeProfitTarget / 100) * ref.balance);
    const cur = obs.currency;
    const hit: Reached | null =
      s.absoluteProfitTarget > 0 && profit >= s.absoluteProfitTarget
        ? {
            member: `${prefix}AbsoluteProfitTarget`,
            threshold: s.absoluteProfitTarget,
            words: `reached ${prefix}AbsoluteProfitTarget ${money(s.absoluteProfitTarget)} ${cur}`,
          }
        : s.relativeProfitTarget > 0 && profit >= relativeAmount
          ? {
              member: `${prefix}RelativeProfitTarget`,
              threshold: s.relativeProfitTarget,
              words: `reached ${prefix}RelativeProfitTarget ${s.relativeProfitTarget} % of the balance ${money(ref.balance)} (${money(relativeAmount)} ${cur})`,
            }
          : null;
    if (!hit) return;
    const action: ProtectionAction = s.pauseInsteadOfClose ? 'STOP_COPYING' : 'CLOSE_ALL';
    const measuredWords = s.trackByOpenDate
      ? `profit ${money(profit)} ${cur} of the trades opened since ${anchorWords(anchor, ref)}`
      : `profit ${money(profit)} ${cur} since ${anchorWords(anchor, ref)}`;
    trigger(
      rule,
      anchor.key,
      'TARGET',
      null,
      anchor.until,
      action,
      profit,
      hit,
      `Profit target ${name} locked: ${measuredWords} ${hit.words}. ${stopWords(anchor.until, action)}`,
    );
  };

  // ------------------------------------------------------------------ the overall target
  const overallTarget = (rule: OverallTargetRule) => {
    const anchor = ruleAnchor(rule, state.resets, now, zone);
    const ref = referenceFor(anchor);
    if (!covers(ref.observedAt)) return;
    const s = rule.settings;
    const resetAt = state.resets[rule.id];
    const lock = overallLockAnchor(anchor.key, resetAt);
    const action: ProtectionAction = s.pauseInsteadOfClose ? 'STOP_COPYING' : 'CLOSE_ALL';
    const cur = obs.currency;
    const percentOf = (p: number) => round2((p / 100) * s.referenceBalance);
    const levels = (
      gain: number,
      c: { profitTargetAmount?: number; profitTargetPercentage?: number; lossLimitAmount?: number; lossLimitPercentage?: number },
    ): { level: TriggerLevel; reached: Reached } | null => {
      const target = c.profitTargetAmount ?? 0;
      const targetPct = c.profitTargetPercentage ?? 0;
      const loss = c.lossLimitAmount ?? 0;
      const lossPct = c.lossLimitPercentage ?? 0;
      if (target > 0 && gain >= target)
        return { level: 'TARGET', reached: { member: 'profitTargetAmount', threshold: target, words: `profitTargetAmount ${money(target)} ${cur}` } };
      if (targetPct > 0 && gain >= percentOf(targetPct)) {
        return {
          level: 'TARGET',
          reached: {
            member: 'profitTargetPercentage',
            threshold: targetPct,
            words: `profitTargetPercentage ${targetPct} % (${money(percentOf(targetPct))} ${cur})`,
          },
        };
      }
      if (loss > 0 && -gain >= loss)
        return { level: 'LOSS_LIMIT', reached: { member: 'lossLimitAmount', threshold: loss, words: `lossLimitAmount ${money(loss)} ${cur}` } };
      if (lossPct > 0 && -gain >= percentOf(lossPct)) {
        return {
          level: 'LOSS_LIMIT',
          reached: { member: 'lossLimitPercentage', threshold: lossPct, words: `lossLimitPercentage ${lossPct} % (${money(percentOf(lossPct))} ${cur})` },
        };
      }
      return null;
    };
    const reference = round2(s.referenceBalance + (s.adjustReferenceOnBalanceChange ? netDepositsAfter(obs, ref.observedAt) : 0));
    const value = s.referenceMode === 'BALANCE' ? obs.balance : obs.equity;
    const gain = round2(value - reference);
    const whole = levels(gain, s);
    if (whole) {
      const word = whole.level === 'TARGET' ? 'target reached' : 'loss limit reached';
      const diff = whole.level === 'TARGET' ? `${money(gain)} ${cur} above` : `${money(-gain)} ${cur} below`;
      trigger(
        rule,
        lock,
        whole.level,
        null,
        null,
        action,
        Math.abs(gain),
        whole.reached,
        `Overall ${word}: ${s.referenceMode === 'BALANCE' ? 'balance' : 'equity'} ${money(value)} is ${diff} the reference ${money(reference)} (${whole.reached.words}). ${stopWords(null, action)}`,
      );
    }
    const since = resetAt && Date.parse(resetAt) > Date.parse(ref.observedAt) ? resetAt : ref.observedAt;
    for (const entry of s.symbolsConfiguration) {
      const symbol = entry.symbol.toUpperCase();
      const result = round2(
        sum(obs.closedTrades.filter((t) => t.symbol.toUpperCase() === symbol && after(t.closeTime, since)).map((t) => t.result)) +
          sum(obs.book.filter((p) => p.kind === 'position' && p.symbol.toUpperCase() === symbol).map((p) => p.result)),
      );
      const reached = levels(result, entry);
      if (!reached) continue;
      const word = reached.level === 'TARGET' ? 'target' : 'loss limit';
      trigger(
        rule,
        lock,
        reached.level,
        symbol,
        null,
        action,
        Math.abs(result),
        reached.reached,
        `Overall ${word} for ${symbol} reached: its result since ${since} is ${money(result)} ${cur} (${reached.reached.words}). ${stopWords(null, action, symbol)}`,
      );
    }
  };

  for (const rule of rules) {
    if (rule.kind === 'RISK_LIMIT') riskLimit(rule);
    else if (rule.kind === 'PROFIT_TARGET') periodTarget(rule);
    else overallTarget(rule);
  }
  return events;
};
