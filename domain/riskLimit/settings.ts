// The members of RiskLimitDTO (the reference document's RiskLimitDTO) and the rules between them.
// Amounts are in the account currency; riskLimit, relativeRiskLimit and their fallbacks are fractions
// (0.215 = 21.5 %, at most 1); 0 switches a member off.
import { riskTypeById } from './riskTypes.js';

export interface RiskLimitSettings {
  /** RiskTypeDTO id (GET /types/riskTypes): the period and what the loss is measured on. */
  readonly riskTypeId: number;
  /** Loss in the account currency at which the limit is hit. */
  readonly absoluteRiskLimit: number;
  /** Loss as a fraction of the period's reference at which the limit is hit (0.05 = 5 %). */
  readonly riskLimit: number;
  /** Drawdown from the period's highest value of the measure, as a fraction of that high (trailing). */
  readonly relativeRiskLimit: number;
  readonly fallbackAbsoluteRiskLimit: number;
  readonly fallbackRiskLimit: number;
  readonly fallbackRelativeRiskLimit: number;
  /** true: the hit closes every position; false: positions stay open and the fallbacks watch them. */
  readonly closeAllOpenPositions: boolean;
  /** false: the limit is kept but not watched, and blocks nothing. */
  readonly active: boolean;
  /** How long a threshold must stay reached before it acts, in seconds (0: at once). */
  readonly fulfillSeconds: number;
  /** Risk types 1-3: the time of day (UTC, from the ISO time given) at which their periods begin; null: midnight in TIME_ZONE. */
  readonly resetTime: string | null;
}

/** The reference's defaults (fulfillSeconds 60); resetTime null: periods begin at midnight in TIME_ZONE (UTC unless configured). */
export const RISK_LIMIT_DEFAULTS: Omit<RiskLimitSettings, 'riskTypeId'> = {
  absoluteRiskLimit: 0,
  riskLimit: 0,
  relativeRiskLimit: 0,
  fallbackAbsoluteRiskLimit: 0,
  fallbackRiskLimit: 0,
  fallbackRelativeRiskLimit: 0,
  closeAllOpenPositions: true,
  active: true,
  fulfillSeconds: 60,
  resetTime: null,
};

/** fulfillSeconds is at most a day: a limit that waits longer than its period never acts. */
export const MAX_FULFILL_SECONDS = 86_400;

const PAIRS = [
  ['absoluteRiskLimit', 'fallbackAbsoluteRiskLimit'],
  ['riskLimit', 'fallbackRiskLimit'],
  ['relativeRiskLimit', 'fallbackRelativeRiskLimit'],
] as const;

const FRACTIONS = ['riskLimit', 'relativeRiskLimit', 'fallbackRiskLimit', 'fallbackRelativeRiskLimit'] as const;

/** The time of day a resetTime names, in milliseconds after 00:00 UTC; null when it is no ISO 8601 time. */
export const resetTimeOfDay = (resetTime: string): number | null => {
  const at = Date.parse(resetTime);
  if (Number.isNaN(at)) return null;
  const day = 86_400_000;
  return ((at % day) + day) % day;
};

/** The first rule the settings break, in words with the member's path, or null. */
export const checkRiskLimit = (s: RiskLimitSettings): { field: string; message: string } | null => {
  if (!riskTypeById(s.riskTypeId)) return { field: 'body.riskType.id', message: `no risk type ${s.riskTypeId} (GET /types/riskTypes lists them)` };
  for (const member of FRACTIONS) {
    if (s[member] < 0 || s[member] > 1) return { field: `body.${member}`, message: `${member} is a fraction from 0 to 1 (0.05 = 5 %), got ${s[member]}` };
  }
  if (!Number.isInteger(s.fulfillSeconds) || s.fulfillSeconds < 0 || s.fulfillSeconds > MAX_FULFILL_SECONDS) {
    return { field: 'body.fulfillSeconds', message: `fulfillSeconds is a whole number of seconds from 0 to ${MAX_FULFILL_SECONDS}, got ${s.fulfillSeconds}` };
  }
  if (s.resetTime !== null && resetTimeOfDay(s.resetTime) === null) {
    return { field: 'body.resetTime', message: `resetTime is an ISO 8601 date-time (only its time counts), got "${s.resetTime}"` };
  }
  // The fallbacks apply only when closeAllOpenPositions is false (the reference): with true they are kept and ignored.
  if (s.closeAllOpenPositions) return null;
  for (const [limit, fallback] of PAIRS) {
    if (s[fallback] > 0 && s[limit] > 0 && s[fallback] <= s[limit]) {
      return { field: `body.${fallback}`, message: `${fallback} (${s[fallback]}) must be above ${limit} (${s[limit]}): the fallback acts after the limit` };
    }
  }
  return null;
};
