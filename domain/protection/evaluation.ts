// One evaluation of an account's protection rules under way (evaluate.ts): what the monitor saw, the
// state as the events emitted so far leave it, and what every rule does with them: record a reference,
// trigger, reset, and say so in words.
import { type Anchor, triggerIdOf } from './anchors.js';
import type { Observation } from './commands.js';
import type { ProtectionAction, ProtectionEvent, ResetReason, TriggerLevel } from './events.js';
import { type ProtectionRule, ruleTypeName } from './rules.js';
import type { ProtectionState, Reference } from './state.js';

/** A period reference read later than this after the period began is marked late. */
export const LATE_AFTER_MS = 60_000;

export const round2 = (x: number): number => Math.round(x * 100) / 100;
export const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;
export const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
export const money = (x: number): string => x.toFixed(2);
export const after = (time: string, cutoff: string): boolean => Date.parse(time) > Date.parse(cutoff);
const UNIT_WORDS = { day: 'day', week: 'week', month: 'month' } as const;

/** Deposits minus withdrawals after `cutoff`. */
export const netDepositsAfter = (observation: Observation, cutoff: string): number =>
  round2(sum(observation.balanceOperations.filter((o) => after(o.time, cutoff)).map((o) => o.amount)));

export interface Reached {
  readonly member: string;
  readonly threshold: number;
  /** The loss or profit compared, in the account currency (a trailing limit: the fall from the high). */
  readonly measured?: number;
  /** The figure compared, in words: "loss 400.00 USD (4 % of the reference 10000.00)". */
  readonly words: string;
}

export const anchorWords = (anchor: Anchor, ref: Reference): string =>
  anchor.kind === 'RESET'
    ? `the reset at ${ref.start}`
    : anchor.kind === 'PERIOD'
      ? `the start of ${UNIT_WORDS[anchor.unit!]} ${anchor.label}`
      : `the reference`;

/** One evaluation under way: what the monitor saw, and the state as the events emitted so far leave it. */
export interface Evaluation {
  readonly accountId: string;
  readonly zone: string;
  readonly now: string;
  readonly obs: Observation;
  /** Read it afresh after every emit: each event is folded into it. */
  readonly state: ProtectionState;
  readonly emit: (event: ProtectionEvent) => void;
}

export const covers = (obs: Observation, time: string): boolean => Date.parse(obs.historyFrom) <= Date.parse(time);

/** The anchor's reference; the first look at an anchor records it. */
export const referenceFor = (ev: Evaluation, anchor: Anchor): Reference => {
  const known = ev.state.references[anchor.key];
  if (known) return known;
  const { obs, now } = ev;
  const start = anchor.start ?? now;
  ev.emit({
    type: 'ProtectionReferenceRecorded',
    data: {
      accountId: ev.accountId,
      anchor: anchor.key,
      kind: anchor.kind,
      ruleId: anchor.ruleId,
      unit: anchor.unit,
      family: anchor.family,
      start,
      label: anchor.label,
      balance: obs.balance,
      equity: obs.equity,
      currency: obs.currency,
      observedAt: now,
      late: anchor.kind === 'PERIOD' && Date.parse(now) - Date.parse(start) > LATE_AFTER_MS,
    },
  });
  return ev.state.references[anchor.key]!;
};

export interface Triggering {
  readonly anchor: string;
  readonly level: TriggerLevel;
  readonly symbol: string | null;
  readonly until: string | null;
  readonly action: ProtectionAction;
  readonly measured: number;
  readonly reached: Reached;
  readonly message: string;
}

/** Triggers the rule at this anchor, level and symbol, unless it is already. */
export const trigger = (ev: Evaluation, rule: ProtectionRule, t: Triggering): void => {
  const triggerId = triggerIdOf(rule.id, t.anchor, t.level, t.symbol);
  if (ev.state.triggers[triggerId]) return;
  ev.emit({
    type: 'ProtectionTriggered',
    data: {
      accountId: ev.accountId,
      triggerId,
      ruleKind: rule.kind,
      ruleId: rule.id,
      ruleType: ruleTypeName(rule),
      level: t.level,
      anchor: t.anchor,
      symbol: t.symbol,
      until: t.until,
      action: t.action,
      measured: t.measured,
      threshold: t.reached.threshold,
      thresholdMember: t.reached.member,
      currency: ev.obs.currency,
      at: ev.now,
      message: t.message,
    },
  });
};

export const reset = (ev: Evaluation, rule: ProtectionRule, reason: ResetReason, message: string): void =>
  ev.emit({ type: 'ProtectionReset', data: { accountId: ev.accountId, ruleId: rule.id, ruleKind: rule.kind, reason, at: ev.now, message } });

export const stopWords = (
  zone: string,
  until: string | null,
  action: ProtectionAction,
  symbol: string | null = null,
  copierId: string | null = null,
): string => {
  const end = until ? `${until} (the next period in ${zone}) or a reset` : 'a reset';
  if (copierId !== null)
    return `New copies of copier ${copierId} to this account stop until ${end}; ${action === 'CLOSE_ALL' ? 'the positions and pending orders it copied are closed' : 'positions stay open'}.`;
  const closing = symbol
    ? `its ${symbol} positions are closed and its ${symbol} pending orders cancelled`
    : 'every position is closed and every pending order cancelled';
  return `New copies${symbol ? ` on ${symbol}` : ''} to this account stop until ${end}; ${action === 'CLOSE_ALL' ? closing : 'positions stay open'}.`;
};
