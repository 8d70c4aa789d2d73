// RiskLimitDTO, RiskTypeDTO and the protections in force as the API shows them (RiskLimitDTO.hits,
// account information's riskLimitsHit and profitTargetsLocked), from the risk_limits and protections
// read models; and a risk limit's settings from a RiskLimitWriteDTO.
import type { Static } from '@sinclair/typebox';
import { RISK_TYPES, referenceValue, riskTypeById } from '../../domain/riskLimit/riskTypes.js';
import { checkRiskLimit, RISK_LIMIT_DEFAULTS, type RiskLimitSettings } from '../../domain/riskLimit/settings.js';
import type { FeatureSetting } from '../../domain/feature/events.js';
import { familyOf } from '../../domain/protection/anchors.js';
import { periodTargetRule, riskLimitRule } from '../../domain/protection/rules.js';
import { isPeriodTargetType } from '../../domain/profitTarget/features.js';
import { membersOf } from '../../domain/feature/definition.js';
import {
  type ProtectionReferenceRow,
  protectionReferencesOf,
  type ProtectionRow,
  protectionsInForce,
  referenceOfRule,
} from '../../projections/protections/queries.js';
import { profitTargetFeaturesOf, type RiskLimitRow, riskLimitsOfAccount } from '../../projections/riskLimits/queries.js';
import type { Services } from '../../app/services.js';
import { ApiError } from '../errors.js';
import { enumObject } from '../shared/enumObjects.js';
import type {
  ProfitTargetLockDTO,
  ProfitTargetStatusDTO,
  RiskLimitDTO,
  RiskLimitHitDTO,
  RiskLimitStatusDTO,
  RiskLimitWriteDTO,
  RiskTypeDTO,
} from './schemas.js';

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

/** The risk type a hit names by its code (the protections read model's rule_type). */
const riskTypeOfCode = (code: string): { id: number; name: string } => {
  const t = RISK_TYPES.find((x) => x.code === code);
  return t ? enumObject(t.id, t.name) : enumObject(0, code);
};

export const toRiskTypeDTO = (id: number): Static<typeof RiskTypeDTO> => {
  const t = riskTypeById(id)!;
  return { ...enumObject(t.id, t.name), code: t.code, period: t.period, measure: t.measure, description: t.description };
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
  riskType: riskTypeOfCode(row.rule_type),
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
    ...(row.copier_id === null ? {} : { copierId: row.copier_id }),
    riskType: toRiskTypeDTO(s.riskTypeId),
    absoluteRiskLimit: s.absoluteRiskLimit,
    riskLimit: s.riskLimit,
    relativeRiskLimit: s.relativeRiskLimit,
    fallbackAbsoluteRiskLimit: s.fallbackAbsoluteRiskLimit,
    fallbackRiskLimit: s.fallbackRiskLimit,
    fallbackRelativeRiskLimit: s.fallbackRelativeRiskLimit,
    closeAllOpenPositions: s.closeAllOpenPositions,
    active: s.active,
    fulfillSeconds: s.fulfillSeconds,
    ...(s.resetTime === null ? {} : { resetTime: s.resetTime }),
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

/**
 * The members account information adds: the reference's riskLimitsStatus and profitTargetsStatus, and
 * ours, which risk limits are hit and which profit targets locked.
 */
export const accountProtections = async (services: Services, accountId: string) => {
  const rows = await protectionsInForce(services.db, [accountId], services.clock());
  return {
    ...(await protectionStatus(services, accountId, rows)),
    riskLimitsHit: rows.filter((r) => r.rule_kind === 'RISK_LIMIT').map(toRiskLimitHitDTO),
    profitTargetsLocked: rows.filter((r) => r.rule_kind !== 'RISK_LIMIT').map(toProfitTargetLockDTO),
  };
};

/**
 * Account information's riskLimitsStatus and profitTargetsStatus (the reference's RiskLimitStatusDTO
 * and ProfitTargetStatusDTO): every risk limit and profit target feature of the account, whether it is
 * hit, and the reference it measures from now.
 */
export const protectionStatus = async (
  services: Services,
  accountId: string,
  inForce: readonly ProtectionRow[],
): Promise<{ riskLimitsStatus: Static<typeof RiskLimitStatusDTO>[]; profitTargetsStatus: Static<typeof ProfitTargetStatusDTO>[] }> => {
  const [limits, features, references] = await Promise.all([
    riskLimitsOfAccount(services.db, accountId),
    profitTargetFeaturesOf(services.db, accountId),
    protectionReferencesOf(services.db, accountId),
  ]);
  const hit = new Set(inForce.map((p) => p.rule_id));
  const reference = (value: number | undefined, row: ProtectionReferenceRow | undefined) =>
    row && value !== undefined ? { referenceBalance: value, balanceLastUpdate: iso(row.observed_at)! } : {};
  const riskLimitsStatus = limits.map((row) => {
    const rule = riskLimitRule(row.id, { ...RISK_LIMIT_DEFAULTS, ...row.settings });
    const ref = rule ? referenceOfRule(references, row.id, familyOf(rule.unit, rule.boundaryMs)) : undefined;
    const value = rule && ref ? referenceValue(rule.riskType.measure, ref) : undefined;
    return { riskLimitId: row.id, limitIsHit: hit.has(row.id), ...reference(value, ref) };
  });
  const profitTargetsStatus = features.map((row) => {
    const members = membersOf<Record<string, unknown>>(row.setting as FeatureSetting);
    if (!isPeriodTargetType(row.type)) {
      const overall = members.referenceBalance as number | undefined;
      return { profitTargetFeatureId: row.id, profitTargetIsHit: hit.has(row.id), ...reference(overall, referenceOfRule(references, row.id, null)) };
    }
    const rule = periodTargetRule(row.id, row.type, members);
    const ref = referenceOfRule(references, row.id, familyOf(rule.unit, rule.boundaryMs));
    return { profitTargetFeatureId: row.id, profitTargetIsHit: hit.has(row.id), ...reference(ref?.balance, ref) };
  });
  return { riskLimitsStatus, profitTargetsStatus };
};

/** The settings to store: defaults for members left out, read-only members dropped, the rules between members checked. */
export const fromRiskLimitWriteDTO = (body: Static<typeof RiskLimitWriteDTO>, accountId: string): RiskLimitSettings => {
  const refuse = (field: string, message: string): never => {
    throw new ApiError(400, '[VALIDATION_FAILED]', `${field}: ${message}`, [{ field, message }]);
  };
  if (body.accountId != null && body.accountId !== accountId) refuse('body.accountId', `the limit belongs to the account of the path, ${accountId}`);
  const d = RISK_LIMIT_DEFAULTS;
  const settings: RiskLimitSettings = {
    riskTypeId: body.riskType.id,
    absoluteRiskLimit: body.absoluteRiskLimit ?? d.absoluteRiskLimit,
    riskLimit: body.riskLimit,
    relativeRiskLimit: body.relativeRiskLimit ?? d.relativeRiskLimit,
    fallbackAbsoluteRiskLimit: body.fallbackAbsoluteRiskLimit ?? d.fallbackAbsoluteRiskLimit,
    fallbackRiskLimit: body.fallbackRiskLimit ?? d.fallbackRiskLimit,
    fallbackRelativeRiskLimit: body.fallbackRelativeRiskLimit ?? d.fallbackRelativeRiskLimit,
    closeAllOpenPositions: body.closeAllOpenPositions ?? d.closeAllOpenPositions,
    active: body.active ?? d.active,
    fulfillSeconds: body.fulfillSeconds ?? d.fulfillSeconds,
    resetTime: body.resetTime === undefined ? d.resetTime : new Date(Date.parse(body.resetTime)).toISOString(),
  };
  const problem = checkRiskLimit(settings);
  if (problem) refuse(problem.field, problem.message);
  return settings;
};
