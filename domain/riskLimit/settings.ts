// The members of RiskLimitDTO (spec "RiskLimitDTO") and the rules between them. Amounts are in the
// account currency; riskLimit and relativeRiskLimit are percentages (5 = 5 %); 0 switches a member off.
import { riskTypeById } from './riskTypes.js';

export interface RiskLimitSettings {
  /** RiskTypeDTO id (GET /types/riskTypes): the period and what the loss is measured on. */
  readonly riskTypeId: number;
  /** Loss in the account currency at which the limit is hit. */
  readonly absoluteRiskLimit: number;
  /** Loss as a percentage of the period's reference at which the limit is hit. */
  readonly riskLimit: number;
  /** Drawdown from the period's highest value of the measure, as a percentage of that high (trailing). */
  readonly relativeRiskLimit: number;
  readonly fallbackAbsoluteRiskLimit: number;
  readonly fallbackRiskLimit: number;
  readonly fallbackRelativeRiskLimit: number;
  /** true: the hit closes every position; false: positions stay open and the fallbacks watch them. */
  readonly closeAllOpenPositions: boolean;
  /** false: the limit is kept but not watched, and blocks nothing. */
  readonly active: boolean;
}

export const RISK_LIMIT_DEFAULTS: Omit<RiskLimitSettings, 'riskTypeId'> = {
  absoluteRiskLimit: 0,
  riskLimit: 0,
  relativeRiskLimit: 0,
  fallbackAbsoluteRiskLimit: 0,
  fallbackRiskLimit: 0,
  fallbackRelativeRiskLimit: 0,
  closeAllOpenPositions: true,
  active: true,
};

const PAIRS = [
  ['absoluteRiskLimit', 'fallbackAbsoluteRiskLimit'],
  ['riskLimit', 'fallbackRiskLimit'],
  ['relativeRiskLimit', 'fallbackRelativeRiskLimit'],
] as const;

/** The first rule the settings break, in words with the member's path, or null. */
export const checkRiskLimit = (s: RiskLimitSettings): { field: string; message: string } | null => {
  if (!riskTypeById(s.riskTypeId)) return { field: 'body.riskTypeId', message: `no risk type ${s.riskTypeId} (GET /types/riskTypes lists them)` };
  if (s.absoluteRiskLimit <= 0 && s.riskLimit <= 0 && s.relativeRiskLimit <= 0) {
    return { field: 'body', message: 'set at least one of absoluteRiskLimit, riskLimit and relativeRiskLimit above 0' };
  }
  for (const [limit, fallback] of PAIRS) {
    if (s[fallback] <= 0) continue;
    if (s.closeAllOpenPositions) {
      return { field: `body.${fallback}`, message: `${fallback} applies only when closeAllOpenPositions is false (the hit closes every position already)` };
    }
    if (s[limit] > 0 && s[fallback] <= s[limit]) {
      return { field: `body.${fallback}`, message: `${fallback} (${s[fallback]}) must be above ${limit} (${s[limit]}): the fallback acts after the limit` };
    }
  }
  return null;
};
