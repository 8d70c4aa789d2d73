// Profit targets (spec "Feature DTOs": FeatureDailyProfitTargetDTO, FeatureWeeklyProfitTargetDTO,
// FeatureMonthlyProfitTargetDTO, FeatureOverallTargetDTO; "States and transitions: Profit target
// lock"): account features whose state (open or locked) the protection monitor keeps
// (domain/protection). A locked target blocks new copies to the account; unless pauseInsteadOfClose,
// it closes every position when it locks.
import { type Static, type TObject, Type } from '@sinclair/typebox';
import type { PeriodUnit } from '../analytics/periods.js';
import type { FeatureDefinition } from '../feature/definition.js';

const Amount = (description: string) => Type.Number({ minimum: 0, maximum: 1e12, description });
const Percent = (description: string) => Type.Number({ minimum: 0, maximum: 1000, description });

export type PeriodTargetType = 'FeatureDailyProfitTargetDTO' | 'FeatureWeeklyProfitTargetDTO' | 'FeatureMonthlyProfitTargetDTO';
export const OVERALL_TARGET_TYPE = 'FeatureOverallTargetDTO';
export type ProfitTargetType = PeriodTargetType | typeof OVERALL_TARGET_TYPE;

/** The settings of any period target, with the period's prefix taken off its members. */
export interface PeriodTargetSettings {
  readonly unit: PeriodUnit;
  readonly absoluteProfitTarget: number;
  readonly relativeProfitTarget: number;
  readonly autoResetIfBalanceIsBelow: number;
  readonly resetOnBalanceChange: boolean;
  readonly pauseInsteadOfClose: boolean;
  readonly trackByOpenDate: boolean;
}

const PERIOD_WORDS: Readonly<Record<PeriodUnit, string>> = {
  day: 'day (00:00 to 24:00 in TIME_ZONE)',
  week: 'ISO week (Monday 00:00 to the next Monday 00:00 in TIME_ZONE)',
  month: 'month (the 1st 00:00 to the next 1st 00:00 in TIME_ZONE)',
};

const commonWords = (unit: PeriodUnit, prefix: string): string =>
  `Locks the account when the ${unit}'s profit reaches ${prefix}AbsoluteProfitTarget (account currency) or ${prefix}RelativeProfitTarget (percent of the balance at the start of the ${unit}); 0 switches either off, and at least one must be set. ` +
  `The ${unit} is the ${PERIOD_WORDS[unit]}, the same boundaries as account information's profit members. ` +
  `Profit of the ${unit} = equity now - equity at the start of the ${unit} (the protection monitor records the start values as the first thing it sees in the ${unit}), deposits and withdrawals excluded` +
  (unit === 'day'
    ? '; with trackByOpenDate, the results of the trades opened today instead: closed ones and the floating result of open ones, whenever they close'
    : '') +
  '. Locked: open -> locked when the target is reached; no new trade is copied to the account until the next ' +
  `${unit} or PUT /accounts/{accountId}/profitTargets/{profitTargetFeatureId}/reset (which measures again from that moment; same-${unit} copying resumes). ` +
  'While locked, changes and closes of positions already copied still follow the master. pauseInsteadOfClose false (default): the lock closes every position and cancels every pending order of the account; true: they stay open. ' +
  'autoResetIfBalanceIsBelow: a locked target resets by itself when the balance falls below this amount (0 = never). resetOnBalanceChange: a deposit or withdrawal resets the target (unlocks it, and measures again from then); without it, deposits and withdrawals are left out of the profit.';

const periodMembers = (prefix: string, unit: PeriodUnit): TObject =>
  Type.Object({
    [`${prefix}AbsoluteProfitTarget`]: Amount(`profit of the ${unit} in the account currency that locks the target; 0 = off (default)`),
    [`${prefix}RelativeProfitTarget`]: Percent(`profit of the ${unit} as a percentage of the balance at its start (2 = 2 %); 0 = off (default)`),
    autoResetIfBalanceIsBelow: Amount('a locked target resets (copying resumes) when the balance falls below this amount; 0 = never (default)'),
    resetOnBalanceChange: Type.Boolean({
      description: 'a deposit or withdrawal resets the target and measures again from then; default false (they are left out of the profit)',
    }),
    pauseInsteadOfClose: Type.Boolean({
      description: 'false (default): the lock closes every position and cancels every pending order; true: positions stay open, only new copies stop',
    }),
    ...(unit === 'day'
      ? {
          trackByOpenDate: Type.Boolean({
            description: 'count the results of the trades opened today (closed or open) instead of the change of equity; default false',
          }),
        }
      : {}),
  });

const periodDefinition = (type: PeriodTargetType, prefix: string, unit: PeriodUnit): FeatureDefinition<Record<string, unknown>> => ({
  type,
  scopes: ['account'],
  multiple: false,
  members: periodMembers(prefix, unit),
  defaults: {
    [`${prefix}AbsoluteProfitTarget`]: 0,
    [`${prefix}RelativeProfitTarget`]: 0,
    autoResetIfBalanceIsBelow: 0,
    resetOnBalanceChange: false,
    pauseInsteadOfClose: false,
    ...(unit === 'day' ? { trackByOpenDate: false } : {}),
  },
  description: commonWords(unit, prefix),
  check: (s) =>
    Number(s[`${prefix}AbsoluteProfitTarget`] ?? 0) > 0 || Number(s[`${prefix}RelativeProfitTarget`] ?? 0) > 0
      ? null
      : `set ${prefix}AbsoluteProfitTarget or ${prefix}RelativeProfitTarget above 0`,
});

const PERIOD_TARGETS: readonly { type: PeriodTargetType; prefix: string; unit: PeriodUnit }[] = [
  { type: 'FeatureDailyProfitTargetDTO', prefix: 'daily', unit: 'day' },
  { type: 'FeatureWeeklyProfitTargetDTO', prefix: 'weekly', unit: 'week' },
  { type: 'FeatureMonthlyProfitTargetDTO', prefix: 'monthly', unit: 'month' },
];

export const periodTargetFeatures = PERIOD_TARGETS.map((t) => periodDefinition(t.type, t.prefix, t.unit));

export const isPeriodTargetType = (type: string): type is PeriodTargetType => PERIOD_TARGETS.some((t) => t.type === type);
export const isProfitTargetType = (type: string): type is ProfitTargetType => type === OVERALL_TARGET_TYPE || isPeriodTargetType(type);

/** A stored period target setting, read the same way whatever its period. */
export const periodTargetSettings = (type: PeriodTargetType, setting: Readonly<Record<string, unknown>>): PeriodTargetSettings => {
  const { prefix, unit } = PERIOD_TARGETS.find((t) => t.type === type)!;
  return {
    unit,
    absoluteProfitTarget: Number(setting[`${prefix}AbsoluteProfitTarget`] ?? 0),
    relativeProfitTarget: Number(setting[`${prefix}RelativeProfitTarget`] ?? 0),
    autoResetIfBalanceIsBelow: Number(setting.autoResetIfBalanceIsBelow ?? 0),
    resetOnBalanceChange: setting.resetOnBalanceChange === true,
    pauseInsteadOfClose: setting.pauseInsteadOfClose === true,
    trackByOpenDate: unit === 'day' && setting.trackByOpenDate === true,
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
    'An overall profit target and loss limit against a fixed referenceBalance, never reset by periods: reached when equity (referenceMode EQUITY, default) or balance (BALANCE) minus the reference is at least profitTargetAmount or profitTargetPercentage of referenceBalance, or the reference minus it is at least lossLimitAmount or lossLimitPercentage; 0 switches each off. ' +
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
