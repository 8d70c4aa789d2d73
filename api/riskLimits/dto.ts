// RiskLimitDTO, RiskTypeDTO and the protections in force as the API shows them (RiskLimitDTO.hits,
// account information's riskLimitsHit and profitTargetsLocked), from the risk_limits and protections
// read models; and a risk limit's settings from a RiskLimitWriteDTO.
import type { Static } from '@sinclair/typebox';
import { RISK_TYPES, riskTypeById } from '../../domain/riskLimit/riskTypes.js';
import { checkRiskLimit, RISK_LIMIT_DEFAULTS, type RiskLimitSettings } from '../../domain/riskLimit/settings.js';
import { type ProtectionRow, protectionsInForce } from '../../projections/protections/queries.js';
import type { RiskLimitRow } from '../../projections/riskLimits/queries.js';
import type { Services } from '../../app/services.js';
import { ApiError } from '../errors.js';
import type { ProfitTargetLockDTO, RiskLimitDTO, RiskLimitHitDTO, RiskLimitWriteDTO } from './schemas.js';

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

const riskTypeByName = (name: string): number => RISK_TYPES.find((t) => t.name === name)?.id ?? 0;

export const toRiskTypeDTO = (id: number) => {
  const t = riskTypeById(id)!;
  return { id: t.id, name: t.name, period: t.period, measure: t.measure, description: t.description };
};

/** What a risk limit hit and a profit target lock share: the threshold crossed and what was done. */
const enforcement = (row: ProtectionRow) => ({
  threshold: row.threshold,
  thresholdMember: row.threshold_member,
  currency: row.currency,
  action: row.action as 'STOP_COPYING' | 'CLOSE_ALL',
  positionsClosedAt: iso(row.positions_closed_at),
  message: row.message,
});

export const toRiskLimitHitDTO = (row: ProtectionRow): Static<typeof RiskLimitHitDTO> => ({
  riskLimitId: row.rule_id,
  riskTypeId: riskTypeByName(row.rule_type),
  riskType: row.rule_type,
  level: row.level as 'LIMIT' | 'FALLBACK',
  hitAt: iso(row.at)!,
  until: iso(row.until),
  loss: row.measured,
  ...enforcement(row),
});

export const toProfitTargetLockDTO = (row: ProtectionRow): Static<typeof ProfitTargetLockDTO> => ({
  profitTargetFeatureId: row.rule_id,
  type: row.rule_type,
  level: row.level as 'TARGET' | 'LOSS_LIMIT',
  symbol: row.symbol,
  lockedAt: iso(row.at)!,
  until: iso(row.until),
  measured: row.measured,
  ...enforcement(row),
});

/** RiskLimitDTO of a row, with its hits among the protections in force. */
export const toRiskLimitDTO = (row: RiskLimitRow, inForce: readonly ProtectionRow[]): Static<typeof RiskLimitDTO> => {
  const s = { ...RISK_LIMIT_DEFAULTS, ...row.settings };
  const hits = inForce.filter((p) => p.rule_id === row.id).map(toRiskLimitHitDTO);
  return {
    id: row.id,
    accountId: row.account_id,
    riskTypeId: s.riskTypeId,
    riskType: toRiskTypeDTO(s.riskTypeId),
    absoluteRiskLimit: s.absoluteRiskLimit,
    riskLimit: s.riskLimit,
    relativeRiskLimit: s.relativeRiskLimit,
    fallbackAbsoluteRiskLimit: s.fallbackAbsoluteRiskLimit,
    fallbackRiskLimit: s.fallbackRiskLimit,
    fallbackRelativeRiskLimit: s.fallbackRelativeRiskLimit,
    closeAllOpenPositions: s.closeAllOpenPositions,
    active: s.active,
    status: !s.active ? 'INACTIVE' : hits.some((h) => h.level === 'FALLBACK') ? 'FALLBACK_HIT' : hits.length > 0 ? 'HIT' : 'ARMED',
    hits,
    created: iso(row.created)!,
    updated: iso(row.updated)!,
  };
};

/** RiskLimitDTOs of one account's rows, with the hits in force now. */
export const toRiskLimitDTOs = async (services: Services, rows: readonly RiskLimitRow[]): Promise<Static<typeof RiskLimitDTO>[]> => {
  const inForce = rows.length === 0 ? [] : await protectionsInForce(services.db, [rows[0]!.account_id], services.clock());
  return rows.map((row) => toRiskLimitDTO(row, inForce));
};

/** The members account information adds: which risk limits are hit and which profit targets locked. */
export const accountProtections = async (services: Services, accountId: string) => {
  const rows = await protectionsInForce(services.db, [accountId], services.clock());
  return {
    riskLimitsHit: rows.filter((r) => r.rule_kind === 'RISK_LIMIT').map(toRiskLimitHitDTO),
    profitTargetsLocked: rows.filter((r) => r.rule_kind !== 'RISK_LIMIT').map(toProfitTargetLockDTO),
  };
};

/** The settings to store: defaults for members left out, read-only members dropped, the rules between members checked. */
export const fromRiskLimitWriteDTO = (body: Static<typeof RiskLimitWriteDTO>): RiskLimitSettings => {
  const settings: RiskLimitSettings = {
    riskTypeId: body.riskTypeId,
    absoluteRiskLimit: body.absoluteRiskLimit ?? RISK_LIMIT_DEFAULTS.absoluteRiskLimit,
    riskLimit: body.riskLimit ?? RISK_LIMIT_DEFAULTS.riskLimit,
    relativeRiskLimit: body.relativeRiskLimit ?? RISK_LIMIT_DEFAULTS.relativeRiskLimit,
    fallbackAbsoluteRiskLimit: body.fallbackAbsoluteRiskLimit ?? RISK_LIMIT_DEFAULTS.fallbackAbsoluteRiskLimit,
    fallbackRiskLimit: body.fallbackRiskLimit ?? RISK_LIMIT_DEFAULTS.fallbackRiskLimit,
    fallbackRelativeRiskLimit: body.fallbackRelativeRiskLimit ?? RISK_LIMIT_DEFAULTS.fallbackRelativeRiskLimit,
    closeAllOpenPositions: body.closeAllOpenPositions ?? RISK_LIMIT_DEFAULTS.closeAllOpenPositions,
    active: body.active ?? RISK_LIMIT_DEFAULTS.active,
  };
  const problem = checkRiskLimit(settings);
  if (problem) throw new ApiError(400, '[VALIDATION_FAILED]', `${problem.field}: ${problem.message}`, [{ field: problem.field, message: problem.message }]);
  return settings;
};
