// A protection aggregate driven through time for the unit specs: looks (what the monitor saw), resets,
// and what they recorded.
import { systemContext } from '../../../domain/shared/command.js';
import type { Observation } from '../../../domain/protection/commands.js';
import { type ActiveTrigger, decide, evolve, initialState, type ProtectionState } from '../../../domain/protection/decider.js';
import type { ProtectionEvent, TriggerData } from '../../../domain/protection/events.js';
import {
  type OverallTargetRule,
  type PeriodTargetRule,
  type ProtectionRule,
  riskLimitRule,
  type RiskLimitRule,
  type RuleKind,
} from '../../../domain/protection/rules.js';
import {
  DEFAULT_RESET_TIME,
  overallTargetFeature,
  type OverallTargetSettings,
  type PeriodTargetSettings,
  type PeriodTargetType,
} from '../../../domain/profitTarget/features.js';
import { RISK_LIMIT_DEFAULTS, resetTimeOfDay, type RiskLimitSettings } from '../../../domain/riskLimit/settings.js';

export const ZONE = 'Europe/Berlin';
export const ACCOUNT = 'acc';

/** A time on Wednesday 7 January 2026, UTC: at('10:00'), at('10:10:01'). */
export const at = (time: string): string => `2026-01-07T${time.length === 5 ? `${time}:00` : time}.000Z`;

export const observed = (overrides: Partial<Observation> = {}): Observation => ({
  balance: 10_000,
  equity: 10_000,
  currency: 'USD',
  book: [],
  historyFrom: '2000-01-01T00:00:00.000Z',
  balanceOperations: [],
  closedTrades: [],
  peaks: {},
  ...overrides,
});

/** A daily equity-to-equity limit (risk type 5) of a 300 loss that acts at once (fulfillSeconds 0), unless overridden. */
export const limit = (overrides: Partial<RiskLimitSettings> = {}, id = 'L1'): RiskLimitRule =>
  riskLimitRule(id, { ...RISK_LIMIT_DEFAULTS, riskTypeId: 5, absoluteRiskLimit: 300, fulfillSeconds: 0, ...overrides })!;

const TYPES: Readonly<Record<PeriodTargetSettings['unit'], PeriodTargetType>> = {
  day: 'FeatureDailyProfitTargetDTO',
  week: 'FeatureWeeklyProfitTargetDTO',
  month: 'FeatureMonthlyProfitTargetDTO',
};

/**
 * A daily profit target of 300 above the balance at the day's start (dailyRelativeProfitTarget 300, the
 * percent target off) with the reference's default resetTime (00:00 UTC), unless overridden.
 */
export const target = (overrides: Partial<PeriodTargetSettings> = {}, id = 'T1'): PeriodTargetRule => {
  const unit = overrides.unit ?? 'day';
  const settings: PeriodTargetSettings = {
    unit,
    profitTarget: 0,
    relativeProfitTarget: 300,
    absoluteProfitTarget: 0,
    autoResetIfBalanceIsBelow: false,
    resetOnBalanceChange: false,
    pauseInsteadOfClose: false,
    trackByOpenDate: false,
    resetTime: unit === 'day' ? DEFAULT_RESET_TIME : null,
    ...overrides,
  };
  const boundaryMs = settings.resetTime === null ? null : resetTimeOfDay(settings.resetTime);
  return { kind: 'PROFIT_TARGET', id, type: TYPES[settings.unit], unit: settings.unit, boundaryMs, settings };
};

export const overall = (overrides: Partial<OverallTargetSettings> = {}, id = 'O1'): OverallTargetRule => ({
  kind: 'OVERALL_TARGET',
  id,
  settings: { ...(overallTargetFeature.defaults as OverallTargetSettings), referenceBalance: 10_000, ...overrides },
});

export const timeline = (rules: readonly ProtectionRule[], zone = ZONE) => {
  let state: ProtectionState = initialState;
  let current = rules;
  const all: ProtectionEvent[] = [];
  const record = (events: readonly ProtectionEvent[]) => {
    state = events.reduce(evolve, state);
    all.push(...events);
    t.events = [...events];
  };
  const t = {
    /** What the last step recorded. */
    events: [] as ProtectionEvent[],
    all,
    /** The monitor looks at the account at `now` (null: no venue session). */
    look(now: string, observation: Observation | null) {
      record(
        decide(
          { type: 'EvaluateProtection', data: { accountId: ACCOUNT, zone, rules: current, observation }, metadata: { now, context: systemContext('spec') } },
          state,
        ),
      );
      return t;
    },
    /** PUT .../reset through the API. */
    reset(now: string, ruleId = 'L1', ruleKind: RuleKind = 'RISK_LIMIT') {
      record(
        decide(
          { type: 'ResetProtection', data: { accountId: ACCOUNT, ruleId, ruleKind, ruleType: 'spec' }, metadata: { now, context: systemContext('spec') } },
          state,
        ),
      );
      return t;
    },
    withRules(next: readonly ProtectionRule[]) {
      current = next;
      return t;
    },
    /** Starts from the state these events fold to (a restart). */
    replay(events: readonly ProtectionEvent[]) {
      state = events.reduce(evolve, initialState);
      return t;
    },
    /** Every trigger recorded so far, oldest first. */
    triggers: (): TriggerData[] => all.flatMap((e) => (e.type === 'ProtectionTriggered' ? [e.data] : [])),
    /** The triggers in force. */
    active: (): ActiveTrigger[] => Object.values(state.triggers),
    eventsOfType: <T extends ProtectionEvent['type']>(type: T) => all.filter((e): e is Extract<ProtectionEvent, { type: T }> => e.type === type),
    state: () => state,
  };
  return t;
};
