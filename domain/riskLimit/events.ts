// Events of a risk limit (stream `riskLimit-<riskLimitId>`, spec "RiskLimitDTO"): its settings. What
// the limit measured and whether it was hit are the account's protection events
// (domain/protection/events.ts).
import type { RiskLimitSettings } from './settings.js';

export type RiskLimitEvent =
  | {
      type: 'RiskLimitCreated';
      /** copierId: the copier of the account the limit is scoped to (RiskLimitDTO.copierId); null or absent: the whole account. */
      data: { riskLimitId: string; projectId: string; accountId: string; copierId?: string | null; settings: RiskLimitSettings; at: string };
    }
  | { type: 'RiskLimitUpdated'; data: { riskLimitId: string; accountId: string; settings: RiskLimitSettings; at: string } }
  | { type: 'RiskLimitDeleted'; data: { riskLimitId: string; accountId: string; at: string } };

export type RiskLimitEventType = RiskLimitEvent['type'];

export const riskLimitEventTypes: readonly RiskLimitEventType[] = ['RiskLimitCreated', 'RiskLimitUpdated', 'RiskLimitDeleted'];

export const RISK_LIMIT_STREAM_PREFIX = 'riskLimit-';
export const riskLimitStream = (riskLimitId: string): string => `${RISK_LIMIT_STREAM_PREFIX}${riskLimitId}`;
