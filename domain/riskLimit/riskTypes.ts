// The risk types of RiskLimitDTO, with the reference document's ids (RiskTypeDTO, OpenAPI 1.2.5):
// 1-3 Daily, Weekly, Monthly (balance-based: the balance at the period start is the reference, the
// equity is measured), 4 Actual (the balance now is the reference: the floating loss of the open
// positions), 5-7 equity to equity, 8-10 smart reference (the greater of balance and equity at the
// period start). Ours on top: 11-13 balance to balance (only closed results count). A type is a
// period (a day, an ISO week from Monday, a month, in the service's TIME_ZONE,
// domain/analytics/periods.ts; types 1-3 may begin at their resetTime instead) and a measure, which
// says what the loss is measured on and from which reference.
import type { PeriodUnit } from '../analytics/periods.js';

export type RiskMeasure = 'BALANCE_TO_EQUITY' | 'ACTUAL' | 'EQUITY_TO_EQUITY' | 'SMART_REFERENCE' | 'BALANCE_TO_BALANCE';
export type RiskPeriod = 'DAILY' | 'WEEKLY' | 'MONTHLY';

export interface RiskType {
  readonly id: number;
  /** The reference's name: "Daily", "Equity-equity weekly". */
  readonly name: string;
  /** `${period}_${measure}`, as messages and the protections read model name it: DAILY_EQUITY_TO_EQUITY. */
  readonly code: string;
  /** How long a hit lasts (Actual: until the day ends), and from when the loss is measured. */
  readonly period: RiskPeriod;
  readonly measure: RiskMeasure;
  /** The reference: "resetTime ... Only used for 1-3 risk type". */
  readonly usesResetTime: boolean;
  readonly description: string;
}

/** What the account looked like at a moment: the period start (a reference) or now. */
export interface Funds {
  readonly balance: number;
  readonly equity: number;
}

export const UNIT_OF_PERIOD: Readonly<Record<RiskPeriod, PeriodUnit>> = { DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month' };

const PERIOD_WORDS: Readonly<Record<RiskPeriod, string>> = {
  DAILY: 'the day (00:00 to 24:00 in TIME_ZONE, or from resetTime to resetTime)',
  WEEKLY: 'the ISO week (Monday 00:00 to the next Monday 00:00 in TIME_ZONE, or Monday at resetTime)',
  MONTHLY: 'the calendar month (the 1st 00:00 to the next 1st 00:00 in TIME_ZONE, or the 1st at resetTime)',
};

export const MEASURE_WORDS: Readonly<Record<RiskMeasure, string>> = {
  BALANCE_TO_EQUITY: 'loss = balance at the period start - current equity (the start ignores open positions; floating results now count)',
  ACTUAL: 'loss = current balance - current equity (the floating loss of the open positions, as a fraction of the balance now); a hit lasts until the day ends',
  EQUITY_TO_EQUITY: 'loss = equity at the period start - current equity (floating results count)',
  SMART_REFERENCE:
    'loss = the higher of balance and equity at the period start - current equity (as prop firms measure the daily loss: a profit open at the start raises the reference)',
  BALANCE_TO_BALANCE: 'loss = balance at the period start - current balance (only closed results count)',
};

const type = (id: number, name: string, period: RiskPeriod, measure: RiskMeasure): RiskType => ({
  id,
  name,
  code: `${period}_${measure}`,
  period,
  measure,
  usesResetTime: id <= 3,
  description:
    measure === 'ACTUAL'
      ? `Actual drawdown: ${MEASURE_WORDS[measure]}.`
      : `Period: ${PERIOD_WORDS[period]}${id <= 3 ? '' : ' (resetTime is not used)'}. ${MEASURE_WORDS[measure]}.`,
});

/** The reference's ids 1 to 10, and ours 11 to 13. */
export const RISK_TYPES: readonly RiskType[] = [
  type(1, 'Daily', 'DAILY', 'BALANCE_TO_EQUITY'),
  type(2, 'Weekly', 'WEEKLY', 'BALANCE_TO_EQUITY'),
  type(3, 'Monthly', 'MONTHLY', 'BALANCE_TO_EQUITY'),
  type(4, 'Actual', 'DAILY', 'ACTUAL'),
  type(5, 'Equity-equity daily', 'DAILY', 'EQUITY_TO_EQUITY'),
  type(6, 'Equity-equity weekly', 'WEEKLY', 'EQUITY_TO_EQUITY'),
  type(7, 'Equity-equity monthly', 'MONTHLY', 'EQUITY_TO_EQUITY'),
  type(8, 'Smart reference daily', 'DAILY', 'SMART_REFERENCE'),
  type(9, 'Smart reference weekly', 'WEEKLY', 'SMART_REFERENCE'),
  type(10, 'Smart reference monthly', 'MONTHLY', 'SMART_REFERENCE'),
  type(11, 'Balance-balance daily', 'DAILY', 'BALANCE_TO_BALANCE'),
  type(12, 'Balance-balance weekly', 'WEEKLY', 'BALANCE_TO_BALANCE'),
  type(13, 'Balance-balance monthly', 'MONTHLY', 'BALANCE_TO_BALANCE'),
];

export const riskTypeById = (id: number): RiskType | undefined => RISK_TYPES.find((t) => t.id === id);

/** The value the loss is measured from: the funds at the period start (or at a reset); Actual: the balance now. */
export const referenceValue = (measure: RiskMeasure, start: Funds, now: Funds = start): number => {
  switch (measure) {
    case 'EQUITY_TO_EQUITY':
      return start.equity;
    case 'BALANCE_TO_EQUITY':
    case 'BALANCE_TO_BALANCE':
      return start.balance;
    case 'SMART_REFERENCE':
      return Math.max(start.balance, start.equity);
    case 'ACTUAL':
      return now.balance;
  }
};

/** The value the loss is measured on now. */
export const measuredValue = (measure: RiskMeasure, now: Funds): number => (measure === 'BALANCE_TO_BALANCE' ? now.balance : now.equity);
