// What the protection monitor watches on an account, whatever configured it: a risk limit
// (domain/riskLimit), a period profit target or the overall target (domain/profitTarget). The rules
// arrive in the monitor's commands as data, read from the read models of their own aggregates.
import type { PeriodUnit } from '../analytics/periods.js';
import { type OverallTargetSettings, type PeriodTargetSettings, periodTargetSettings, type PeriodTargetType } from '../profitTarget/features.js';
import { riskTypeById, type RiskType, UNIT_OF_PERIOD } from '../riskLimit/riskTypes.js';
import { resetTimeOfDay, type RiskLimitSettings } from '../riskLimit/settings.js';

export type RuleKind = 'RISK_LIMIT' | 'PROFIT_TARGET' | 'OVERALL_TARGET';

export interface RiskLimitRule {
  readonly kind: 'RISK_LIMIT';
  /** The risk limit's id. */
  readonly id: string;
  readonly riskType: RiskType;
  readonly unit: PeriodUnit;
  /** Types 1-3 with a resetTime: its periods begin at this time of day, in milliseconds after 00:00 UTC; null: midnight in TIME_ZONE. */
  readonly boundaryMs: number | null;
  readonly settings: RiskLimitSettings;
  /**
   * A limit scoped to one copier of the account (RiskLimitDTO.copierId): it measures the account as any
   * limit does, but a hit stops only that copier and closes only what it copied. Null or absent: the
   * whole account.
   */
  readonly copierId?: string | null;
}

export interface PeriodTargetRule {
  readonly kind: 'PROFIT_TARGET';
  /** The feature's id. */
  readonly id: string;
  readonly type: PeriodTargetType;
  readonly unit: PeriodUnit;
  /** The daily target: its days begin at its resetTime's time of day, in milliseconds after 00:00 UTC; weekly and monthly: null (TIME_ZONE). */
  readonly boundaryMs: number | null;
  readonly settings: PeriodTargetSettings;
}

export interface OverallTargetRule {
  readonly kind: 'OVERALL_TARGET';
  readonly id: string;
  readonly settings: OverallTargetSettings;
}

export type ProtectionRule = RiskLimitRule | PeriodTargetRule | OverallTargetRule;

export const riskLimitRule = (id: string, settings: RiskLimitSettings, copierId: string | null = null): RiskLimitRule | null => {
  const riskType = riskTypeById(settings.riskTypeId);
  if (!riskType) return null;
  const boundaryMs = riskType.usesResetTime && settings.resetTime ? resetTimeOfDay(settings.resetTime) : null;
  return { kind: 'RISK_LIMIT', id, riskType, unit: UNIT_OF_PERIOD[riskType.period], boundaryMs, settings, ...(copierId === null ? {} : { copierId }) };
};

/** A period target feature's rule, from its stored members. */
export const periodTargetRule = (id: string, type: PeriodTargetType, members: Readonly<Record<string, unknown>>): PeriodTargetRule => {
  const settings = periodTargetSettings(type, members);
  const boundaryMs = settings.resetTime === null ? null : (resetTimeOfDay(settings.resetTime) ?? 0);
  return { kind: 'PROFIT_TARGET', id, type, unit: settings.unit, boundaryMs, settings };
};

/** The name a rule goes by in messages and DTOs: the risk type's name or the feature DTO's. */
export const ruleTypeName = (rule: ProtectionRule): string =>
  rule.kind === 'RISK_LIMIT' ? rule.riskType.code : rule.kind === 'PROFIT_TARGET' ? rule.type : 'FeatureOverallTargetDTO';
