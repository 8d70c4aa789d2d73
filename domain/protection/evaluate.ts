// The protection rules, pure: given what the monitor saw on the account, which references to record,
// which limits are hit and which targets lock, which triggers end. Every definition here is repeated
// in the OpenAPI descriptions (api/riskLimits, domain/profitTarget/features.ts) and the README.
//
// Deposits and withdrawals are never results: what is measured moves by their amount from the moment
// the reference was read (risk limits, period targets without resetOnBalanceChange, the overall
// target with adjustReferenceOnBalanceChange).
import { measuredValue, referenceValue } from '../riskLimit/riskTypes.js';
import { type Anchor, overallLockAnchor, ruleAnchor, triggerIdOf } from './anchors.js';
import type { EvaluateData, Observation } from './commands.js';
import {
  after,
  anchorWords,
  covers,
  type Evaluation,
  money,
  netDepositsAfter,
  type Reached,
  referenceFor,
  reset,
  round2,
  round4,
  stopWords,
  sum,
  trigger,
} from './evaluation.js';
import type { ClearReason, ProtectionAction, ProtectionEvent, TriggerLevel } from './events.js';
import { type OverallTargetRule, type PeriodTargetRule, type ProtectionRule, type RiskLimitRule, ruleTypeName } from './rules.js';
import type { ProtectionState, Reference } from './state.js';

/** A trailing high is recorded when it rises by this fraction of the reference (the monitor keeps the exact one while it runs). */
export const PEAK_STEP = 0.0005;
const PREFIX = { day: 'daily', week: 'weekly', month: 'monthly' } as const;

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
  for (const event of endedTriggers(state, rules, accountId, now)) emit(event);
  if (!observation) return events;
  const ev: Evaluation = {
    accountId,
    zone,
    now,
    obs: observation,
    emit,
    get state() {
      return state;
    },
  };
  const waiting = new Set<string>();
  for (const rule of rules) {
    if (rule.kind === 'RISK_LIMIT') riskLimit(ev, rule, waiting);
    else if (rule.kind === 'PROFIT_TARGET') periodTarget(ev, rule);
    else overallTarget(ev, rule);
  }
  receded(ev, waiting);
  return events;
};

/** Triggers end with their period, or with their rule: one ProtectionCleared per rule and reason. */
const endedTriggers = (state: ProtectionState, rules: readonly ProtectionRule[], accountId: string, now: string): ProtectionEvent[] => {
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
  return [...ending.values()].map(({ ruleId, reason, ids }) => ({
    type: 'ProtectionCleared',
    data: { accountId, ruleId, triggerIds: ids.sort(), reason, at: now },
  }));
};

// ------------------------------------------------------------------ risk limits

/** What a risk limit compares: the loss from its reference, and the fall from the period's high. */
interface RiskFigures {
  readonly reference: number;
  readonly loss: number;
  /** The loss as a fraction of the reference (0.05 = 5 %). */
  readonly lossFraction: number;
  readonly peak: number;
  readonly drawdown: number;
  /** The fall from the high as a fraction of the high. */
  readonly drawdownFraction: number;
}

const round8 = (x: number): number => Math.round(x * 1e8) / 1e8;
/** A fraction in words: 0.05 → "0.05 (5 %)". */
const fractionWords = (x: number): string => `${x} (${round4(x * 100)} %)`;

/** The figures a risk limit compares now; a high risen far enough for a trailing limit is recorded. */
const measureRisk = (ev: Evaluation, rule: RiskLimitRule, anchor: Anchor, ref: Reference): RiskFigures => {
  const { obs } = ev;
  const s = rule.settings;
  const { measure } = rule.riskType;
  const adjusted = round2(measuredValue(measure, obs) - netDepositsAfter(obs, ref.observedAt));
  // Actual: the balance and equity now, so deposits and withdrawals are in both.
  const reference = referenceValue(measure, ref, obs);
  const current = measure === 'ACTUAL' ? obs.equity : adjusted;
  const peakKey = `${anchor.key}|${measure}`;
  const recorded = ev.state.peaks[peakKey];
  const start = measure === 'ACTUAL' ? ref.equity : reference;
  const peak = Math.max(start, recorded ?? -Infinity, obs.peaks[peakKey] ?? -Infinity, adjusted);
  if ((s.relativeRiskLimit > 0 || s.fallbackRelativeRiskLimit > 0) && peak > (recorded ?? start) + PEAK_STEP * Math.abs(start)) {
    ev.emit({ type: 'ProtectionPeakRecorded', data: { accountId: ev.accountId, anchor: anchor.key, measure, value: round2(peak), at: ev.now } });
  }
  const loss = round2(reference - current);
  const drawdown = round2(peak - adjusted);
  return {
    reference,
    loss,
    lossFraction: reference > 0 ? round8(loss / reference) : 0,
    peak,
    drawdown,
    drawdownFraction: peak > 0 ? round8(drawdown / peak) : 0,
  };
};

/** The first of a risk limit's three thresholds (absolute, fraction, trailing fraction of the high) the figures reach. */
const riskReached = (
  f: RiskFigures,
  cur: string,
  [absolute, fraction, relative]: readonly [number, number, number],
  names: readonly [string, string, string],
): Reached | null => {
  if (absolute > 0 && f.loss >= absolute)
    return { member: names[0], threshold: absolute, words: `loss ${money(f.loss)} ${cur} reached ${names[0]} ${money(absolute)} ${cur}` };
  if (fraction > 0 && f.lossFraction >= fraction)
    return {
      member: names[1],
      threshold: fraction,
      words: `loss ${money(f.loss)} ${cur} (${round4(f.lossFraction * 100)} % of the reference) reached ${names[1]} ${fractionWords(fraction)}`,
    };
  if (relative > 0 && f.drawdownFraction >= relative) {
    return {
      member: names[2],
      threshold: relative,
      measured: f.drawdown,
      words: `${money(f.drawdown)} ${cur} below the period's high ${money(f.peak)} (${round4(f.drawdownFraction * 100)} %) reached ${names[2]} ${fractionWords(relative)}`,
    };
  }
  return null;
};

/**
 * fulfillSeconds: a reached threshold acts only when it is still reached fulfillSeconds after it was
 * first seen reached (every look in between reached too). True: act now.
 */
const fulfilled = (ev: Evaluation, rule: RiskLimitRule, triggerId: string, level: TriggerLevel, hit: Reached, waiting: Set<string>): boolean => {
  const wait = rule.settings.fulfillSeconds;
  if (wait <= 0) return true;
  const pending = ev.state.pending[triggerId];
  if (!pending) {
    ev.emit({
      type: 'ProtectionThresholdReached',
      data: {
        accountId: ev.accountId,
        triggerId,
        ruleId: rule.id,
        level,
        fulfillSeconds: wait,
        at: ev.now,
        message: `Risk limit ${rule.riskType.code}${level === 'FALLBACK' ? ' fallback' : ''} reached: ${hit.words}; it acts if it still holds ${wait} s from now (fulfillSeconds)`,
      },
    });
    waiting.add(triggerId);
    return false;
  }
  if (Date.parse(ev.now) - Date.parse(pending.since) >= wait * 1000) return true;
  waiting.add(triggerId);
  return false;
};

const riskLimit = (ev: Evaluation, rule: RiskLimitRule, waiting: Set<string>): void => {
  const anchor = ruleAnchor(rule, ev.state.resets, ev.now, ev.zone);
  const ref = referenceFor(ev, anchor);
  if (!covers(ev.obs, ref.observedAt)) return;
  const s = rule.settings;
  const f = measureRisk(ev, rule, anchor, ref);
  const cur = ev.obs.currency;
  const copierId = rule.copierId ?? null;
  const what = `Risk limit ${rule.riskType.code}${copierId === null ? '' : ` of copier ${copierId}`}`;
  const from =
    rule.riskType.measure === 'ACTUAL'
      ? `measured from the balance now, ${money(f.reference)} ${cur}`
      : `measured from ${money(f.reference)} ${cur} at ${anchorWords(anchor, ref)}`;
  const limitId = triggerIdOf(rule.id, anchor.key, 'LIMIT', null);
  if (!ev.state.triggers[limitId]) {
    const hit = riskReached(f, cur, [s.absoluteRiskLimit, s.riskLimit, s.relativeRiskLimit], ['absoluteRiskLimit', 'riskLimit', 'relativeRiskLimit']);
    if (hit && fulfilled(ev, rule, limitId, 'LIMIT', hit, waiting)) {
      const action: ProtectionAction = s.closeAllOpenPositions ? 'CLOSE_ALL' : 'STOP_COPYING';
      const fallbacks = !s.closeAllOpenPositions && (s.fallbackAbsoluteRiskLimit > 0 || s.fallbackRiskLimit > 0 || s.fallbackRelativeRiskLimit > 0);
      trigger(ev, rule, {
        anchor: anchor.key,
        level: 'LIMIT',
        symbol: null,
        until: anchor.until,
        action,
        measured: hit.measured ?? f.loss,
        reached: hit,
        message: `${what} hit: ${hit.words}, ${from}. ${stopWords(ev.zone, anchor.until, action, null, copierId)}${fallbacks ? ' The fallback limits watch them.' : ''}`,
      });
    }
  }
  if (ev.state.triggers[limitId] && !s.closeAllOpenPositions) {
    const fallbackId = triggerIdOf(rule.id, anchor.key, 'FALLBACK', null);
    if (ev.state.triggers[fallbackId]) return;
    const hit = riskReached(
      f,
      cur,
      [s.fallbackAbsoluteRiskLimit, s.fallbackRiskLimit, s.fallbackRelativeRiskLimit],
      ['fallbackAbsoluteRiskLimit', 'fallbackRiskLimit', 'fallbackRelativeRiskLimit'],
    );
    if (hit && fulfilled(ev, rule, fallbackId, 'FALLBACK', hit, waiting))
      trigger(ev, rule, {
        anchor: anchor.key,
        level: 'FALLBACK',
        symbol: null,
        until: anchor.until,
        action: 'CLOSE_ALL',
        measured: hit.measured ?? f.loss,
        reached: hit,
        message: `${what} fallback reached: ${hit.words}, ${from}. ${copierId === null ? 'Every position is closed and every pending order cancelled.' : 'The positions and pending orders it copied are closed.'}`,
      });
  }
};

/** Thresholds that waited for their fulfillSeconds and are not reached in this look (or whose rule or period went): the wait ends. */
const receded = (ev: Evaluation, waiting: ReadonlySet<string>): void => {
  for (const [triggerId, pending] of Object.entries(ev.state.pending)) {
    if (waiting.has(triggerId)) continue;
    ev.emit({ type: 'ProtectionThresholdReceded', data: { accountId: ev.accountId, triggerId, ruleId: pending.ruleId, since: pending.since, at: ev.now } });
  }
};

// ------------------------------------------------------------------ period profit targets

const targetLocked = (ev: Evaluation, rule: PeriodTargetRule, anchor: Anchor): boolean =>
  ev.state.triggers[triggerIdOf(rule.id, anchor.key, 'TARGET', null)] !== undefined;

/** One of a period target's three targets, as an equity level in the account currency. */
interface TargetLevel {
  readonly member: string;
  readonly threshold: number;
  readonly level: number;
  readonly words: string;
}

/**
 * The targets set (above 0), lowest level first: the percent and relative targets are of the balance at
 * the anchor (the period start or the reset), the absolute target is the level itself.
 */
const targetLevels = (rule: PeriodTargetRule, ref: Reference, cur: string): TargetLevel[] => {
  const s = rule.settings;
  const prefix = PREFIX[rule.unit];
  const levels: TargetLevel[] = [];
  if (s.profitTarget > 0) {
    const level = round2(ref.balance * (1 + s.profitTarget / 100));
    levels.push({
      member: `${prefix}ProfitTarget`,
      threshold: s.profitTarget,
      level,
      words: `${prefix}ProfitTarget ${s.profitTarget} % of the balance ${money(ref.balance)} (${money(level)} ${cur})`,
    });
  }
  if (s.relativeProfitTarget > 0) {
    const level = round2(ref.balance + s.relativeProfitTarget);
    levels.push({
      member: `${prefix}RelativeProfitTarget`,
      threshold: s.relativeProfitTarget,
      level,
      words: `${prefix}RelativeProfitTarget ${money(s.relativeProfitTarget)} above the balance ${money(ref.balance)} (${money(level)} ${cur})`,
    });
  }
  if (s.absoluteProfitTarget > 0) {
    levels.push({
      member: `${prefix}AbsoluteProfitTarget`,
      threshold: s.absoluteProfitTarget,
      level: s.absoluteProfitTarget,
      words: `${prefix}AbsoluteProfitTarget ${money(s.absoluteProfitTarget)} ${cur}`,
    });
  }
  // Stable: at the same level the order above decides.
  return levels.sort((a, b) => a.level - b.level);
};

/** Marks, per rule and anchor, that the balance reached the target while locked (autoResetIfBalanceIsBelow). */
const REACHED_BALANCE = 'TARGET_BALANCE';
const reachedBalanceKey = (rule: PeriodTargetRule, anchor: Anchor): string => `${anchor.key}|${REACHED_BALANCE}:${rule.id}`;

/** resetOnBalanceChange and autoResetIfBalanceIsBelow: the target resets and measures from now. */
const resetPeriodTarget = (ev: Evaluation, rule: PeriodTargetRule, anchor: Anchor, ref: Reference): void => {
  const { obs } = ev;
  const s = rule.settings;
  const name = ruleTypeName(rule);
  if (s.resetOnBalanceChange && covers(obs, ref.observedAt)) {
    const changes = obs.balanceOperations.filter((o) => after(o.time, ref.observedAt));
    if (changes.length > 0) {
      const amount = round2(sum(changes.map((o) => o.amount)));
      reset(
        ev,
        rule,
        'BALANCE_CHANGED',
        `Profit target ${name} reset by a ${amount >= 0 ? 'deposit' : 'withdrawal'} of ${money(Math.abs(amount))} ${obs.currency} (resetOnBalanceChange)${targetLocked(ev, rule, anchor) ? ': new copies to this account resume' : ''}; it measures from now`,
      );
      return;
    }
  }
  if (!s.autoResetIfBalanceIsBelow || !targetLocked(ev, rule, anchor)) return;
  const [target] = targetLevels(rule, ref, obs.currency);
  if (!target) return;
  const key = reachedBalanceKey(rule, anchor);
  if (obs.balance >= target.level) {
    if (ev.state.peaks[key] === undefined) {
      ev.emit({
        type: 'ProtectionPeakRecorded',
        data: { accountId: ev.accountId, anchor: anchor.key, measure: `${REACHED_BALANCE}:${rule.id}`, value: obs.balance, at: ev.now },
      });
    }
    return;
  }
  if (ev.state.peaks[key] === undefined) return;
  reset(
    ev,
    rule,
    'BALANCE_BELOW',
    `Profit target ${name} reset: the balance ${money(obs.balance)} ${obs.currency} fell below the target ${money(target.level)} (autoResetIfBalanceIsBelow); new copies to this account resume and it measures from now`,
  );
};

/**
 * What a period target compares with its levels: equity with the deposits since the reference taken
 * out, or with trackByOpenDate the balance at the anchor plus the results of the trades opened since.
 */
const periodValue = (obs: Observation, rule: PeriodTargetRule, since: string, ref: Reference): number =>
  rule.settings.trackByOpenDate
    ? round2(
        ref.balance +
          sum(obs.closedTrades.filter((t) => Date.parse(t.openTime) >= Date.parse(since)).map((t) => t.result)) +
          sum(obs.book.filter((p) => p.kind === 'position' && Date.parse(p.openTime) >= Date.parse(since)).map((p) => p.result)),
      )
    : round2(obs.equity - netDepositsAfter(obs, ref.observedAt));

const periodTarget = (ev: Evaluation, rule: PeriodTargetRule): void => {
  const s = rule.settings;
  const current = ruleAnchor(rule, ev.state.resets, ev.now, ev.zone);
  resetPeriodTarget(ev, rule, current, referenceFor(ev, current));
  // A reset starts a new anchor.
  const anchor = ruleAnchor(rule, ev.state.resets, ev.now, ev.zone);
  const ref = referenceFor(ev, anchor);
  if (targetLocked(ev, rule, anchor)) return;
  const since = anchor.start!;
  if (!covers(ev.obs, s.trackByOpenDate ? since : ref.observedAt)) return;
  const value = periodValue(ev.obs, rule, since, ref);
  const cur = ev.obs.currency;
  const hit = targetLevels(rule, ref, cur).find((l) => value >= l.level);
  if (!hit) return;
  const profit = round2(value - ref.balance);
  const action: ProtectionAction = s.pauseInsteadOfClose ? 'STOP_COPYING' : 'CLOSE_ALL';
  const measuredWords = s.trackByOpenDate
    ? `the balance ${money(ref.balance)} at ${anchorWords(anchor, ref)} plus ${money(profit)} ${cur} of the trades opened since, ${money(value)} ${cur},`
    : `equity ${money(value)} ${cur}${value === ev.obs.equity ? '' : ' (without deposits and withdrawals)'}, ${money(profit)} ${cur} above the balance at ${anchorWords(anchor, ref)},`;
  trigger(ev, rule, {
    anchor: anchor.key,
    level: 'TARGET',
    symbol: null,
    until: anchor.until,
    action,
    measured: profit,
    reached: { member: hit.member, threshold: hit.threshold, words: hit.words },
    message: `Profit target ${ruleTypeName(rule)} locked: ${measuredWords} reached ${hit.words}. ${stopWords(ev.zone, anchor.until, action)}`,
  });
};

// ------------------------------------------------------------------ the overall target

interface OverallLevels {
  readonly profitTargetAmount?: number;
  readonly profitTargetPercentage?: number;
  readonly lossLimitAmount?: number;
  readonly lossLimitPercentage?: number;
}

/** The first of the overall target's levels (target amount, target percent, loss amount, loss percent) a gain reaches. */
const overallReached = (gain: number, c: OverallLevels, referenceBalance: number, cur: string): { level: TriggerLevel; reached: Reached } | null => {
  const percentOf = (p: number) => round2((p / 100) * referenceBalance);
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

const overallTarget = (ev: Evaluation, rule: OverallTargetRule): void => {
  const { obs } = ev;
  const anchor = ruleAnchor(rule, ev.state.resets, ev.now, ev.zone);
  const ref = referenceFor(ev, anchor);
  if (!covers(obs, ref.observedAt)) return;
  const s = rule.settings;
  const resetAt = ev.state.resets[rule.id];
  const lock = overallLockAnchor(anchor.key, resetAt);
  const action: ProtectionAction = s.pauseInsteadOfClose ? 'STOP_COPYING' : 'CLOSE_ALL';
  const cur = obs.currency;
  const reference = round2(s.referenceBalance + (s.adjustReferenceOnBalanceChange ? netDepositsAfter(obs, ref.observedAt) : 0));
  const value = s.referenceMode === 'BALANCE' ? obs.balance : obs.equity;
  const gain = round2(value - reference);
  const whole = overallReached(gain, s, s.referenceBalance, cur);
  if (whole) {
    const word = whole.level === 'TARGET' ? 'target reached' : 'loss limit reached';
    const diff = whole.level === 'TARGET' ? `${money(gain)} ${cur} above` : `${money(-gain)} ${cur} below`;
    trigger(ev, rule, {
      anchor: lock,
      level: whole.level,
      symbol: null,
      until: null,
      action,
      measured: Math.abs(gain),
      reached: whole.reached,
      message: `Overall ${word}: ${s.referenceMode === 'BALANCE' ? 'balance' : 'equity'} ${money(value)} is ${diff} the reference ${money(reference)} (${whole.reached.words}). ${stopWords(ev.zone, null, action)}`,
    });
  }
  const since = resetAt && Date.parse(resetAt) > Date.parse(ref.observedAt) ? resetAt : ref.observedAt;
  for (const entry of s.symbolsConfiguration) {
    const symbol = entry.symbol.toUpperCase();
    const result = round2(
      sum(obs.closedTrades.filter((t) => t.symbol.toUpperCase() === symbol && after(t.closeTime, since)).map((t) => t.result)) +
        sum(obs.book.filter((p) => p.kind === 'position' && p.symbol.toUpperCase() === symbol).map((p) => p.result)),
    );
    const reached = overallReached(result, entry, s.referenceBalance, cur);
    if (!reached) continue;
    const word = reached.level === 'TARGET' ? 'target' : 'loss limit';
    trigger(ev, rule, {
      anchor: lock,
      level: reached.level,
      symbol,
      until: null,
      action,
      measured: Math.abs(result),
      reached: reached.reached,
      message: `Overall ${word} for ${symbol} reached: its result since ${since} is ${money(result)} ${cur} (${reached.reached.words}). ${stopWords(ev.zone, null, action, symbol)}`,
    });
  }
};
