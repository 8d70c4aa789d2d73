// Protections in force as the API shows them: the hits of risk limits (RiskLimitDTO.hits, account
// information's riskLimitsHit) and the locked profit targets (account information's profitTargetsLocked).
import type { Static } from '@sinclair/typebox';
import { RISK_TYPES } from '../../domain/riskLimit/riskTypes.js';
import { type ProtectionRow, protectionsInForce } from '../../projections/protections/queries.js';
import type { Services } from '../../app/services.js';
import type { ProfitTargetLockDTO, RiskLimitHitDTO } from './schemas.js';

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

export const riskLimitHitView = (row: ProtectionRow): Static<typeof RiskLimitHitDTO> => ({
  riskLimitId: row.rule_id,
  riskTypeId: riskTypeByName(row.rule_type),
  riskType: row.rule_type,
  level: row.level as 'LIMIT' | 'FALLBACK',
  hitAt: iso(row.at)!,
  until: iso(row.until),
  loss: row.measured,
  threshold: row.threshold,
  thresholdMember: row.threshold_member,
  currency: row.currency,
  action: row.action as 'STOP_COPYING' | 'CLOSE_ALL',
  positionsClosedAt: iso(row.positions_closed_at),
  message: row.message,
});

export const profitTargetLockView = (row: ProtectionRow): Static<typeof ProfitTargetLockDTO> => ({
  profitTargetFeatureId: row.rule_id,
  type: row.rule_type,
  level: row.level as 'TARGET' | 'LOSS_LIMIT',
  symbol: row.symbol,
  lockedAt: iso(row.at)!,
  until: iso(row.until),
  measured: row.measured,
  threshold: row.threshold,
  thresholdMember: row.threshold_member,
  currency: row.currency,
  action: row.action as 'STOP_COPYING' | 'CLOSE_ALL',
  positionsClosedAt: iso(row.positions_closed_at),
  message: row.message,
});

const riskTypeByName = (name: string): number => RISK_TYPES.find((t) => t.name === name)?.id ?? 0;

/** The members account information adds: which risk limits are hit and which profit targets locked. */
export const accountProtections = async (services: Services, accountId: string) => {
  const rows = await protectionsInForce(services.db, [accountId], services.clock());
  return {
    riskLimitsHit: rows.filter((r) => r.rule_kind === 'RISK_LIMIT').map(riskLimitHitView),
    profitTargetsLocked: rows.filter((r) => r.rule_kind !== 'RISK_LIMIT').map(profitTargetLockView),
  };
};
