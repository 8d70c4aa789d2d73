// Profit targets (spec "Feature DTOs": FeatureDailyProfitTargetDTO, FeatureWeeklyProfitTargetDTO,
// FeatureMonthlyProfitTargetDTO, FeatureOverallTargetDTO; "States and transitions: Profit target
// lock"): account features whose state (open or locked) the protection monitor keeps
// (domain/protection). A locked target blocks new copies to the account; unless pauseInsteadOfClose,
// it closes every position when it locks.
import { type Static, type TObject, Type } from '@sinclair/typebox';
import type { PeriodUnit } from '../analytics/periods.js';
import type { FeatureDefinition } from '../feature/definition.js';
import { resetTimeOfDay } from '../riskLimit/settings.js';

const Amount = (description: string) => Type.Number({ minimum: 0, maximum: 1e12, description });
const Percent = (description: string) => Type.Number({ minimum: 0, maximum: 1000, description });

export type PeriodTargetType = 'FeatureDailyProfitTargetDTO' | 'FeatureWeeklyProfitTargetDTO' | 'FeatureMonthlyProfitTargetDTO';
export const OVERALL_TARGET_TYPE = 'FeatureOverallTargetDTO';
export type ProfitTargetType = PeriodTargetType | typeof OVERALL_TARGET_TYPE;

/** The reference's default resetTime of the daily target: only its time of day counts (00:00 UTC). */
export const DEFAULT_RESET_TIME = '2023-12-30 00:00:00+00:00';

/**
 * The settings of any period target, with the period's prefix taken off its members. Three targets,
 * each 0 = off, as the reference defines them; the first reached locks:
 *   profitTarget: `${prefix}ProfitTarget`, percent of the balance at the period start (2 = 2 %);
 *   relativeProfitTarget: `${prefix}RelativeProfitTarget`, an amount above the balance at the period
 *     start (300 on a balance of 1000: the target is 1300);
 *   absoluteProfitTarget: `${prefix}AbsoluteProfitTarget`, the equity level itself (1300: the target is 1300).
 */
export interface PeriodTargetSettings {
  readonly unit: PeriodUnit;
  readonly profitTarget: number;
  readonly relativeProfitTarget: number;
  readonly absoluteProfitTarget: number;
  /** A locked target resets when the balance, having reached the target, falls below it again (a withdrawal). */
  readonly autoResetIfBalanceIsBelow: boolean;
  readonly resetOnBalanceChange: boolean;
  readonly pauseInsteadOfClose: boolean;
  readonly trackByOpenDate: boolean;
  /** The daily target: the date-time whose time of day (UTC) begins its days; weekly and monthly: null (TIME_ZONE). */
  readonly resetTime: string | null;
}

interface PeriodTarget {
  readonly type: PeriodTargetType;
  readonly prefix: string;
  readonly unit: PeriodUnit;
  /** The reference's default of `${prefix}ProfitTarget`, percent. */
  readonly defaultPercent: number;
}

const PERIOD_TARGETS: readonly PeriodTarget[] = [
  { type: 'FeatureDailyProfitTargetDTO', prefix: 'daily', unit: 'day', defaultPercent: 2 },
  { type: 'FeatureWeeklyProfitTargetDTO', prefix: 'weekly', unit: 'week', defaultPercent: 5 },
  { type: 'FeatureMonthlyProfitTargetDTO', prefix: 'monthly', unit: 'month', defaultPercent: 10 },
];

const PERIOD_WORDS: Readonly<Record<PeriodUnit, string>> = {
  day: 'day, from resetTime to resetTime: the time of day of resetTime in UTC (its offset honoured: 00:00:00+02:00 is 22:00 UTC; no daylight saving), 00:00 UTC by default; TIME_ZONE does not apply to the daily target',
  week: "ISO week (Monday 00:00 to the next Monday 00:00 in the service TIME_ZONE, UTC unless configured), the same boundaries as account information's profitThisWeek",
  month: "month (the 1st 00:00 to the next 1st 00:00 in the service TIME_ZONE), the same boundaries as account information's profitThisMonth",
};

const commonWords = ({ unit, prefix, defaultPercent }: PeriodTarget): string =>
  `A ${unit}ly profit target as the reference defines it: three targets, each 0 = off, and the first reached locks the account: ` +
  `${prefix}ProfitTarget, percent of the balance at the start of the ${unit} (default ${defaultPercent}, as the reference: a target created with an empty setting locks at +${defaultPercent} %; send ${prefix}ProfitTarget 0 to use only an amount); ` +
  `${prefix}RelativeProfitTarget, an amount in the account currency above that balance (300 on a balance of 1000: the target is 1300); ` +
  `${prefix}AbsoluteProfitTarget, the equity level in the account currency (1300: the target is 1300). At least one must be above 0. ` +
  `The ${unit} is the ${PERIOD_WORDS[unit]}. ` +
  `Reached when equity, minus the deposits and plus the withdrawals made since the start of the ${unit} (they are never profit), is at or above the target; the balance at the start of the ${unit} is read by the protection monitor at its first look in the ${unit} (profitTargetsStatus.referenceBalance)` +
  (unit === 'day'
    ? '; ours, trackByOpenDate: that balance plus the results of the trades opened since the start of the day (closed ones, and the floating result of open ones) instead of equity'
    : '') +
  '. Locked: open -> locked when the target is reached; no new trade is copied to the account until the next ' +
  `${unit} or PUT /accounts/{accountId}/profitTargets/{profitTargetFeatureId}/reset (which measures again from that moment: the balance then is the new start; same-${unit} copying resumes). ` +
  'While locked, changes and closes of positions already copied still follow the master. pauseInsteadOfClose false (default): the lock closes every position and cancels every pending order of the account; true: they stay open. ' +
  'autoResetIfBalanceIsBelow (default false): a locked target resets (copying resumes, measured from then) when the balance falls below the target, e.g. after a withdrawal: once the balance has reached the target while locked, the first look that sees it below resets (so a pause with positions still floating does not reset at once). ' +
  'Ours, resetOnBalanceChange (default false): a deposit or withdrawal resets the target (unlocks it, and measures again from then).';

const periodMembers = ({ prefix, unit, defaultPercent }: PeriodTarget): TObject =>
  Type.Object({
    [`${prefix}ProfitTarget`]: Type.Number({
      minimum: 0,
      maximum: 100,
      description: `the ${unit}'s target in percent of the balance at its start (2 = 2 %); 0 = off; default ${defaultPercent} (the reference's)`,
    }),
    [`${prefix}RelativeProfitTarget`]: Amount(
      `the ${unit}'s target as an amount above the balance at its start, account currency (300 on a balance of 1000: the target is 1300); 0 = off (default)`,
    ),
    [`${prefix}AbsoluteProfitTarget`]: Amount(`the ${unit}'s target as an equity level, account currency (1300: the target is 1300); 0 = off (default)`),
    autoResetIfBalanceIsBelow: Type.Boolean({
      description: 'a locked target resets when the balance falls below the target (after a withdrawal, for example); default false',
    }),
    ...(unit === 'day'
      ? {
          resetTime: Type.String({
            format: 'date-time',
            description: `ISO 8601; only its time of day counts, in UTC (the offset given is honoured): the daily target's days begin then; default "${DEFAULT_RESET_TIME}" (00:00 UTC)`,
          }),
        }
      : {}),
    pauseInsteadOfClose: Type.Boolean({
      description: 'false (default): the lock closes every position and cancels every pending order; true: positions stay open, only new copies stop',
    }),
    resetOnBalanceChange: Type.Boolean({
      description: 'ours: a deposit or withdrawal resets the target and measures again from then; default false (they are left out of the profit)',
    }),
    ...(unit === 'day'
      ? {
          trackByOpenDate: Type.Boolean({
            description:
              "ours: count the results of the trades opened today (closed or open) on top of the day's starting balance instead of equity; default false",
          }),
        }
      : {}),
  });

const periodDefinition = (target: PeriodTarget): FeatureDefinition<Record<string, unknown>> => {
  const { type, prefix, unit, defaultPercent } = target;
  return {
    type,
    scopes: ['account'],
    multiple: false,
    members: periodMembers(target),
    defaults: {
      [`${prefix}ProfitTarget`]: defaultPercent,
      [`${prefix}RelativeProfitTarget`]: 0,
      [`${prefix}AbsoluteProfitTarget`]: 0,
      autoResetIfBalanceIsBelow: false,
      ...(unit === 'day' ? { resetTime: DEFAULT_RESET_TIME } : {}),
      pauseInsteadOfClose: false,
      resetOnBalanceChange: false,
      ...(unit === 'day' ? { trackByOpenDate: false } : {}),
    },
    description: commonWords(target),
    check: (s) => {
      if (unit === 'day' && resetTimeOfDay(String(s.resetTime)) === null)
        return `resetTime is an ISO 8601 date-time (only its time counts), got "${String(s.resetTime)}"`;
      const members = [`${prefix}ProfitTarget`, `${prefix}RelativeProfitTarget`, `${prefix}AbsoluteProfitTarget`];
      return members.some((m) => Number(s[m] ?? 0) > 0) ? null : `set ${members[0]}, ${members[1]} or ${members[2]} above 0`;
    },
  };
};

export const periodTargetFeatures = PERIOD_TARGETS.map(periodDefinition);

export const isPeriodTargetType = (type: string): type is PeriodTargetType => PERIOD_TARGETS.some((t) => t.type === type);
export const isProfitTargetType = (type: string): type is ProfitTargetType => type === OVERALL_TARGET_TYPE || isPeriodTargetType(type);

/** A stored period target setting, read the same way whatever its period (members left out: the defaults). */
export const periodTargetSettings = (type: PeriodTargetType, setting: Readonly<Record<string, unknown>>): PeriodTargetSettings => {
  const { prefix, unit, defaultPercent } = PERIOD_TARGETS.find((t) => t.type === type)!;
  const number = (member: string, fallback: number) => (typeof setting[member] === 'number' ? (setting[member] as number) : fallback);
  return {
    unit,
    profitTarget: number(`${prefix}ProfitTarget`, defaultPercent),
    relativeProfitTarget: number(`${prefix}RelativeProfitTarget`, 0),
    absoluteProfitTarget: number(`${prefix}AbsoluteProfitTarget`, 0),
    autoResetIfBalanceIsBelow: setting.autoResetIfBalanceIsBelow === true,
    resetOnBalanceChange: setting.resetOnBalanceChange === true,
    pauseInsteadOfClose: setting.pauseInsteadOfClose === true,
    trackByOpenDate: unit === 'day' && setting.trackByOpenDate === true,
    resetTime: unit === 'day' ? (typeof setting.resetTime === 'string' ? setting.resetTime : DEFAULT_RESET_TIME) : null,
  };
};

// ------------------------------------------------------------------ the overall target

const SymbolTarget = Type.Object(
  {
    symbol: Type.String({ minLength: 1, maxLength: 64, description: "the account's own symbol name (case-insensitive)" }),
    profitTargetAmount: Type.Optional(Amount('result of the symbol that locks it; 0 = off')),
    profitTargetPercentage: Type.Optional(Percent('the same as a percentage of referenceBalance; 0 = off')),
    lossLimitAmount: Type.Optional(Amount('loss of the symbol that locks it; 0 = off')),
    lossLimitPercentage: Type.Optional(Percent('the same as a percentage of referenceBalance; 0 = off')),
  },
  { additionalProperties: false },
);

const overallMembers = Type.Object({
  referenceBalance: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1e12,
    description: "the fixed reference in the account currency (a challenge's starting balance); required",
  }),
  profitTargetAmount: Amount('gain over the reference that locks the account; 0 = off (default)'),
  profitTargetPercentage: Percent('the same as a percentage of referenceBalance (10 = 10 %); 0 = off (default)'),
  lossLimitAmount: Amount('loss below the reference that locks the account; 0 = off (default)'),
  lossLimitPercentage: Percent('the same as a percentage of referenceBalance; 0 = off (default)'),
  referenceMode: Type.Union([Type.Literal('EQUITY'), Type.Literal('BALANCE')], {
    description: 'EQUITY (default): equity is compared with the reference (floating results count); BALANCE: the balance (closed results only)',
  }),
  pauseInsteadOfClose: Type.Boolean({
    description:
      'false (default): reaching the target or the loss limit closes every position and cancels every pending order; true: positions stay open, only new copies stop',
  }),
  adjustReferenceOnBalanceChange: Type.Boolean({
    description:
      'true (default): deposits and withdrawals made after the target was set move the reference by their amount, so they are neither gain nor loss; false: they count',
  }),
  symbolsConfiguration: Type.Array(SymbolTarget, {
    maxItems: 200,
    description:
      "per-symbol targets: the result of one symbol (its trades closed since the target was set or last reset, plus its open positions' floating result) against its own amounts or percentages of referenceBalance; reaching one closes (or, with pauseInsteadOfClose, keeps) that symbol's positions and stops new copies on that symbol only. Default none.",
  }),
});

export type OverallTargetSettings = Static<typeof overallMembers>;
export type SymbolTargetSettings = Static<typeof SymbolTarget>;

const hasLevel = (s: { profitTargetAmount?: number; profitTargetPercentage?: number; lossLimitAmount?: number; lossLimitPercentage?: number }): boolean =>
  [s.profitTargetAmount, s.profitTargetPercentage, s.lossLimitAmount, s.lossLimitPercentage].some((v) => (v ?? 0) > 0);

export const overallTargetFeature: FeatureDefinition<OverallTargetSettings> = {
  type: OVERALL_TARGET_TYPE,
  scopes: ['account'],
  multiple: false,
  members: overallMembers,
  defaults: {
    profitTargetAmount: 0,
    profitTargetPercentage: 0,
    lossLimitAmount: 0,
    lossLimitPercentage: 0,
    referenceMode: 'EQUITY',
    pauseInsteadOfClose: false,
    adjustReferenceOnBalanceChange: true,
    symbolsConfiguration: [],
  },
  description:
    "Not in the reference document (1.2.5): the interface spec 1.2.6 adds it; its members are ours. An overall profit target and loss limit against a fixed referenceBalance, never reset by periods (profitTargetAmount is a gain over the reference, unlike the period targets' absolute member, an equity level): reached when equity (referenceMode EQUITY, default) or balance (BALANCE) minus the reference is at least profitTargetAmount or profitTargetPercentage of referenceBalance, or the reference minus it is at least lossLimitAmount or lossLimitPercentage; 0 switches each off. " +
    'Reaching either locks the account: no new trade is copied to it; unless pauseInsteadOfClose, every position is closed and every pending order cancelled; changes and closes of positions already copied still follow the master. ' +
    'The lock lasts until PUT /accounts/{accountId}/profitTargets/{profitTargetFeatureId}/reset; if the account is still beyond the target or limit then, it locks again at the next check (raise the target with PUT first). symbolsConfiguration adds per-symbol targets that lock one symbol only.',
  check: (s) => {
    if (!hasLevel(s) && s.symbolsConfiguration.length === 0)
      return 'set at least one of profitTargetAmount, profitTargetPercentage, lossLimitAmount, lossLimitPercentage, or a symbolsConfiguration entry';
    const seen = new Set<string>();
    for (const entry of s.symbolsConfiguration) {
      const key = entry.symbol.toUpperCase();
      if (seen.has(key)) return `symbolsConfiguration lists ${entry.symbol} twice`;
      seen.add(key);
      if (!hasLevel(entry)) return `symbolsConfiguration ${entry.symbol}: set at least one amount or percentage above 0`;
    }
    return null;
  },
};
