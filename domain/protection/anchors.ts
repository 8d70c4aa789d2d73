// What a rule measures from (its anchor), in the service's TIME_ZONE:
//   a risk limit or period target: the start of its current day, ISO week or month, shared by every
//     rule of that period (`day:2026-01-06T23:00:00.000Z`), or its last reset when that lies in the
//     current period (`reset:<ruleId>:<time>`); it lasts until the period ends. A risk limit of types
//     1-3 with a resetTime, and the daily profit target (always: its resetTime defaults to 00:00 UTC),
//     have periods of their own, beginning at that time of day in UTC
//     (`day@79200s:2026-01-06T22:00:00.000Z`), shared by the rules with the same resetTime;
//   the overall target: the first look at it with its referenceBalance (`overall:<ruleId>:<amount>`),
//     never ended by a period.
// The values at an anchor (balance, equity) are its reference (events.ts ReferenceData).
import { nextPeriodStart, type PeriodUnit, periodLabel, periodStart } from '../analytics/periods.js';
import type { ProtectionRule } from './rules.js';

export interface Anchor {
  readonly key: string;
  readonly kind: 'PERIOD' | 'RESET' | 'OVERALL';
  readonly ruleId: string | null;
  readonly unit: PeriodUnit | null;
  /** PERIOD and RESET: the periods it belongs to (familyOf); OVERALL: null. */
  readonly family: string | null;
  /** When the anchor began: the period start or the reset; OVERALL: null until its reference is recorded. */
  readonly start: string | null;
  /** The end of the period; null: until reset. */
  readonly until: string | null;
  readonly label: string | null;
}

export const periodAnchor = (unit: PeriodUnit, now: string, zone: string, boundaryMs: number | null = null): Anchor => {
  if (boundaryMs === null) {
    const start = periodStart(unit, now, zone);
    return {
      key: `${unit}:${start}`,
      kind: 'PERIOD',
      ruleId: null,
      unit,
      family: unit,
      start,
      until: nextPeriodStart(unit, now, zone),
      label: periodLabel(unit, now, zone),
    };
  }
  // Periods of UTC days shifted by the time of day: the day beginning at 22:00 UTC on the 6th is labelled 2026-01-06.
  const shifted = new Date(Date.parse(now) - boundaryMs).toISOString();
  const back = (iso: string) => new Date(Date.parse(iso) + boundaryMs).toISOString();
  const start = back(periodStart(unit, shifted, 'UTC'));
  return {
    key: `${familyOf(unit, boundaryMs)}:${start}`,
    kind: 'PERIOD',
    ruleId: null,
    unit,
    family: familyOf(unit, boundaryMs),
    start,
    until: back(nextPeriodStart(unit, shifted, 'UTC')),
    label: periodLabel(unit, shifted, 'UTC'),
  };
};

/** Which periods an anchor belongs to: `day` (TIME_ZONE) or `day@79200s` (from 22:00 UTC); a newer period of a family replaces the older. */
export const familyOf = (unit: PeriodUnit | string, boundaryMs: number | null): string => (boundaryMs === null ? unit : `${unit}@${boundaryMs / 1000}s`);

/** The anchor the rule measures from now; `resets` holds each rule's last reset time. */
export const ruleAnchor = (rule: ProtectionRule, resets: Readonly<Record<string, string>>, now: string, zone: string): Anchor => {
  if (rule.kind === 'OVERALL_TARGET') {
    return {
      key: `overall:${rule.id}:${rule.settings.referenceBalance}`,
      kind: 'OVERALL',
      ruleId: rule.id,
      unit: null,
      family: null,
      start: null,
      until: null,
      label: null,
    };
  }
  const period = periodAnchor(rule.unit, now, zone, rule.boundaryMs);
  const reset = resets[rule.id];
  if (reset && Date.parse(reset) >= Date.parse(period.start!)) {
    return { ...period, key: `reset:${rule.id}:${reset}`, kind: 'RESET', ruleId: rule.id, start: reset };
  }
  return period;
};

/** The anchor an overall target's locks belong to: a reset starts a new one, its reference stays. */
export const overallLockAnchor = (referenceKey: string, reset: string | undefined): string => `${referenceKey}:${reset ?? 'initial'}`;

export const triggerIdOf = (ruleId: string, anchor: string, level: string, symbol: string | null): string => `${ruleId}|${anchor}|${level}|${symbol ?? '*'}`;
