// The risk types of RiskLimitDTO (spec "risk types include equity-equity and smart-reference variants
// for daily, weekly and monthly periods"): a period (a day, an ISO week from Monday, a month, in the
// service's TIME_ZONE, domain/analytics/periods.ts) and a measure, which says what the loss is
// measured on and from which reference taken at the start of the period.
import type { PeriodUnit } from '../analytics/periods.js';

export type RiskMeasure = 'EQUITY_TO_EQUITY' | 'BALANCE_TO_EQUITY' | 'BALANCE_TO_BALANCE' | 'SMART_REFERENCE';
export type RiskPeriod = 'DAILY' | 'WEEKLY' | 'MONTHLY';

export interface RiskType {
  readonly id: number;
  /** `${period}_${measure}`: DAILY_EQUITY_TO_EQUITY. */
  readonly name: string;
  readonly period: RiskPeriod;
  readonly measure: RiskMeasure;
  readonly description: string;
}

/** What the account looked like at a moment: the period start (a reference) or now. */
export interface Funds {
  readonly balance: number;
  readonly equity: number;
}

export const UNIT_OF_PERIOD: Readonly<Record<RiskPeriod, PeriodUnit>> = { DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month' };

const PERIOD_WORDS: Readonly<Record<RiskPeriod, string>> = {
  DAILY: 'the day (00:00 to 24:00 in TIME_ZONE)',
  WEEKLY: 'the ISO week (Monday 00:00 to the next Monday 00:00 in TIME_ZONE)',
  MONTHLY: 'the calendar month (the 1st 00:00 to the next 1st 00:00 in TIME_ZONE)',
};

export const MEASURE_WORDS: Readonly<Record<RiskMeasure, string>> = {
  EQUITY_TO_EQUITY: 'loss = equity at the period start - current equity (floating results count)',
  BALANCE_TO_EQUITY: 'loss = balance at the period start - current equity (the start ignores open positions; floating results now count)',
  BALANCE_TO_BALANCE: 'loss = balance at the period start - current balance (only closed results count)',
  SMART_REFERENCE:
    'loss = the higher of balance and equity at the period start - current equity (as prop firms measure the daily loss: a profit open at the start raises the reference)',
};

const PERIODS: readonly RiskPeriod[] = ['DAILY', 'WEEKLY', 'MONTHLY'];
const MEASURES: readonly RiskMeasure[] = ['EQUITY_TO_EQUITY', 'BALANCE_TO_EQUITY', 'BALANCE_TO_BALANCE', 'SMART_REFERENCE'];

/** Ids 1-3 equity to equity (daily, weekly, monthly), 4-6 balance to equity, 7-9 balance to balance, 10-12 smart reference. */
export const RISK_TYPES: readonly RiskType[] = MEASURES.flatMap((measure, m) =>
  PERIODS.map((period, p) => ({
    id: m * PERIODS.length + p + 1,
    name: `${period}_${measure}`,
    period,
    measure,
    description: `Period: ${PERIOD_WORDS[period]}. ${MEASURE_WORDS[measure]}.`,
  })),
);

export const riskTypeById = (id: number): RiskType | undefined => RISK_TYPES.find((t) => t.id === id);

/** The value the loss is measured from, out of the funds at the period start (or at a reset). */
export const referenceValue = (measure: RiskMeasure, start: Funds): number => {
  switch (measure) {
    case 'EQUITY_TO_EQUITY':
      return start.equity;
    case 'BALANCE_TO_EQUITY':
    case 'BALANCE_TO_BALANCE':
      return start.balance;
    case 'SMART_REFERENCE':
      return Math.max(start.balance, start.equity);
  }
};

/** The value the loss is measured on now. */
export const measuredValue = (measure: RiskMeasure, now: Funds): number => (measure === 'BALANCE_TO_BALANCE' ? now.balance : now.equity);
