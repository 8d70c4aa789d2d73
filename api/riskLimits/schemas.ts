// RiskLimitDTO, RiskTypeDTO and what account information shows of protections in force (spec
// "RiskLimitDTO", "risk types"). Every definition the rules use is written out here, for the OpenAPI
// document; the rules themselves are domain/protection/evaluate.ts.
import { Type } from '@sinclair/typebox';
import { MEASURE_WORDS } from '../../domain/riskLimit/riskTypes.js';
import { IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

const Amount = (description: string) => Type.Number({ minimum: 0, maximum: 1e12, description });
const Percent = (description: string) => Type.Number({ minimum: 0, maximum: 100, description });

export const RiskTypeDTO = Type.Object(
  {
    id: Type.Integer({ description: '1-3 equity to equity (daily, weekly, monthly), 4-6 balance to equity, 7-9 balance to balance, 10-12 smart reference' }),
    name: Type.String({ description: 'PERIOD_MEASURE, e.g. DAILY_EQUITY_TO_EQUITY' }),
    period: Type.Union([Type.Literal('DAILY'), Type.Literal('WEEKLY'), Type.Literal('MONTHLY')], {
      description:
        "a day, an ISO week (from Monday) or a calendar month in the service TIME_ZONE, as account information's profitToday, profitThisWeek, profitThisMonth",
    }),
    measure: Type.Union(
      [Type.Literal('EQUITY_TO_EQUITY'), Type.Literal('BALANCE_TO_EQUITY'), Type.Literal('BALANCE_TO_BALANCE'), Type.Literal('SMART_REFERENCE')],
      {
        description: Object.entries(MEASURE_WORDS)
          .map(([k, v]) => `${k}: ${v}`)
          .join('. '),
      },
    ),
    description: Type.String(),
  },
  { $id: 'RiskTypeDTO', additionalProperties: false },
);

const limitMembers = {
  absoluteRiskLimit: Amount('loss in the account currency (reference - measured value) at which the limit is hit; 0 = off (default)'),
  riskLimit: Percent('loss as a percentage of the reference (5 = 5 %) at which the limit is hit; 0 = off (default)'),
  relativeRiskLimit: Percent(
    'trailing drawdown: how far the measured value may fall below its highest point since the period began (the reference counts as the first point), as a percentage of that high; 0 = off (default)',
  ),
  fallbackAbsoluteRiskLimit: Amount(
    'with closeAllOpenPositions false: once the limit is hit, a loss of this amount closes every position; 0 = off (default); above absoluteRiskLimit',
  ),
  fallbackRiskLimit: Percent('with closeAllOpenPositions false: the same as a percentage of the reference; 0 = off (default); above riskLimit'),
  fallbackRelativeRiskLimit: Percent(
    'with closeAllOpenPositions false: the same as a trailing drawdown percentage; 0 = off (default); above relativeRiskLimit',
  ),
  closeAllOpenPositions: Type.Boolean({
    description:
      'true (default): the hit closes every position and cancels every pending order of the account; false: they stay open and the fallback limits watch them',
  }),
  active: Type.Boolean({ description: 'false: kept but not watched, and any hit of it is lifted; default true' }),
};

const readOnly = Type.Optional(Type.Unknown({ readOnly: true, description: 'read-only; ignored when sent' }));

/** POST and PUT: RiskLimitDTO without its read-only members (sent ones are ignored). */
export const RiskLimitWriteDTO = Type.Object(
  {
    riskTypeId: Type.Integer({ minimum: 1, maximum: 12, description: 'a RiskTypeDTO id (GET /types/riskTypes); required' }),
    absoluteRiskLimit: Type.Optional(limitMembers.absoluteRiskLimit),
    riskLimit: Type.Optional(limitMembers.riskLimit),
    relativeRiskLimit: Type.Optional(limitMembers.relativeRiskLimit),
    fallbackAbsoluteRiskLimit: Type.Optional(limitMembers.fallbackAbsoluteRiskLimit),
    fallbackRiskLimit: Type.Optional(limitMembers.fallbackRiskLimit),
    fallbackRelativeRiskLimit: Type.Optional(limitMembers.fallbackRelativeRiskLimit),
    closeAllOpenPositions: Type.Optional(limitMembers.closeAllOpenPositions),
    active: Type.Optional(limitMembers.active),
    id: readOnly,
    accountId: readOnly,
    riskType: readOnly,
    status: readOnly,
    hits: readOnly,
    created: readOnly,
    updated: readOnly,
  },
  {
    $id: 'RiskLimitWriteDTO',
    additionalProperties: false,
    description: 'RiskLimitDTO as written: members left out take their defaults; read-only members are ignored.',
  },
);

export const RiskLimitHitDTO = Type.Object(
  {
    riskLimitId: Uuid,
    riskTypeId: Type.Integer(),
    riskType: Type.String({ description: "the risk type's name" }),
    level: Type.Union([Type.Literal('LIMIT'), Type.Literal('FALLBACK')], {
      description: 'LIMIT: the limit was hit; FALLBACK: then its fallback too (every position closed)',
    }),
    hitAt: IsoDateTime,
    until: Nullable(IsoDateTime),
    loss: Type.Number({ description: 'the loss (reference - measured value, deposits and withdrawals left out) when it was hit, account currency' }),
    threshold: Type.Number({ description: 'the value of the member that was reached' }),
    thresholdMember: Type.String({ description: 'which member was reached: absoluteRiskLimit, riskLimit, relativeRiskLimit or a fallback' }),
    currency: Type.String(),
    action: Type.Union([Type.Literal('STOP_COPYING'), Type.Literal('CLOSE_ALL')], {
      description: 'STOP_COPYING: positions kept; CLOSE_ALL: every position closed, every pending order cancelled',
    }),
    positionsClosedAt: Nullable(IsoDateTime),
    message: Type.String(),
  },
  { $id: 'RiskLimitHitDTO', additionalProperties: false, description: 'A risk limit hit in force: it lasts until the period ends (until) or a reset.' },
);

export const ProfitTargetLockDTO = Type.Object(
  {
    profitTargetFeatureId: Uuid,
    type: Type.String({
      description: 'the feature DTO: FeatureDailyProfitTargetDTO, FeatureWeeklyProfitTargetDTO, FeatureMonthlyProfitTargetDTO or FeatureOverallTargetDTO',
    }),
    level: Type.Union([Type.Literal('TARGET'), Type.Literal('LOSS_LIMIT')], {
      description: "TARGET: the profit target was reached; LOSS_LIMIT: the overall target's loss limit",
    }),
    symbol: Nullable(Type.String({ description: 'a per-symbol overall target: only this symbol is locked' })),
    lockedAt: IsoDateTime,
    until: Nullable(IsoDateTime),
    measured: Type.Number({ description: 'the profit (TARGET) or loss (LOSS_LIMIT) when it locked, account currency' }),
    threshold: Type.Number({ description: 'the value of the member that was reached' }),
    thresholdMember: Type.String(),
    currency: Type.String(),
    action: Type.Union([Type.Literal('STOP_COPYING'), Type.Literal('CLOSE_ALL')], {
      description: 'STOP_COPYING: pauseInsteadOfClose, positions kept; CLOSE_ALL: positions closed',
    }),
    positionsClosedAt: Nullable(IsoDateTime),
    message: Type.String(),
  },
  {
    $id: 'ProfitTargetLockDTO',
    additionalProperties: false,
    description: 'A locked profit target: until the period ends (until; null for the overall target) or PUT .../profitTargets/{id}/reset.',
  },
);

export const RiskLimitDTO = Type.Object(
  {
    id: Uuid,
    accountId: Uuid,
    riskTypeId: Type.Integer(),
    riskType: RiskTypeDTO,
    ...limitMembers,
    status: Type.Union([Type.Literal('ARMED'), Type.Literal('HIT'), Type.Literal('FALLBACK_HIT'), Type.Literal('INACTIVE')], {
      description: 'ARMED: watched, not hit; HIT: hit in this period (no new copies); FALLBACK_HIT: its fallback too; INACTIVE: active is false',
    }),
    hits: Type.Array(RiskLimitHitDTO, { description: 'the hits in force (none when ARMED or INACTIVE)' }),
    created: IsoDateTime,
    updated: IsoDateTime,
  },
  {
    $id: 'RiskLimitDTO',
    additionalProperties: false,
    description:
      'A loss limit of the account over a period (riskTypeId). The protection monitor reads the account every second. At the first look in each period it records the reference (balance and equity then; a period begun while the service was down or the account offline is measured from the first look after, marked late in the logs). ' +
      'Loss = reference - measured value as the risk type says; deposits and withdrawals after the reference move the measured value back by their amount, so they are never loss or profit. ' +
      'The limit is hit when the loss reaches absoluteRiskLimit, or riskLimit percent of the reference, or the measured value falls relativeRiskLimit percent below its highest point of the period (checked in that order; the first reached is reported). ' +
      'When hit: no new trade is copied to the account (copies skipped with RISK_LIMIT_HIT in the account logs; changes and closes of positions already copied still follow the master; trading through the API is not blocked) and, with closeAllOpenPositions, every position is closed and every pending order cancelled, once. ' +
      'With closeAllOpenPositions false, positions stay open and the fallbacks are armed: reaching one closes everything. A hit lasts until the period ends or PUT .../riskLimits/{riskLimitId}/reset, which lifts it at once and measures again from that moment (a new reference) until the period ends. ' +
      'Several limits add up: each is watched on its own and any hit stops copying.',
  },
);
