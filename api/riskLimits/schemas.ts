// RiskLimitDTO, RiskTypeDTO and what account information shows of protections in force (spec
// "RiskLimitDTO", "risk types"). Every definition the rules use is written out here, for the OpenAPI
// document; the rules themselves are domain/protection/evaluate.ts.
import { Type } from '@sinclair/typebox';
import { MEASURE_WORDS } from '../../domain/riskLimit/riskTypes.js';
import { MAX_FULFILL_SECONDS, RISK_LIMIT_DEFAULTS } from '../../domain/riskLimit/settings.js';
import { IsoDateTime, Nullable, Uuid, withDefaults } from '../shared/schemas.js';

const Amount = (description: string) => Type.Number({ minimum: 0, maximum: 1e12, description });
const Fraction = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });

const RISK_TYPE_WORDS =
  'Ids as the reference: 1 Daily, 2 Weekly, 3 Monthly (balance-based: the balance at the period start is the reference, the equity is measured), 4 Actual (the balance now is the reference: the floating loss), 5-7 Equity-equity daily, weekly, monthly, 8-10 Smart reference daily, weekly, monthly (the greater of balance and equity at the period start). Ours on top: 11-13 Balance-balance daily, weekly, monthly (only closed results count). A client sends only the id: {"id": 1}.';

export const RiskTypeDTO = Type.Object(
  {
    id: Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: RISK_TYPE_WORDS }),
    name: Type.Optional(Type.String({ readOnly: true, description: "the reference's name: Daily, Actual, Equity-equity weekly, ...; ignored when sent" })),
    code: Type.Optional(
      Type.String({ readOnly: true, description: 'ours: PERIOD_MEASURE as messages and hits name it, e.g. DAILY_BALANCE_TO_EQUITY; ignored when sent' }),
    ),
    period: Type.Optional(
      Type.Union([Type.Literal('DAILY'), Type.Literal('WEEKLY'), Type.Literal('MONTHLY')], {
        readOnly: true,
        description:
          "ours: a day, an ISO week (from Monday) or a calendar month in the service TIME_ZONE (types 1-3 with a resetTime: from that time of day, UTC), as account information's profitToday, profitThisWeek, profitThisMonth; Actual (4): a hit lasts until the day ends",
      }),
    ),
    measure: Type.Optional(
      Type.Union(
        [
          Type.Literal('BALANCE_TO_EQUITY'),
          Type.Literal('ACTUAL'),
          Type.Literal('EQUITY_TO_EQUITY'),
          Type.Literal('SMART_REFERENCE'),
          Type.Literal('BALANCE_TO_BALANCE'),
        ],
        {
          readOnly: true,
          description: Object.entries(MEASURE_WORDS)
            .map(([k, v]) => `${k}: ${v}`)
            .join('. '),
        },
      ),
    ),
    description: Type.Optional(Type.String({ readOnly: true })),
  },
  { $id: 'RiskTypeDTO', description: `The risk type of a risk limit (GET /types/riskTypes). ${RISK_TYPE_WORDS}` },
);

const limitMembers = withDefaults(RISK_LIMIT_DEFAULTS, {
  absoluteRiskLimit: Amount(
    'loss in the account currency (reference - measured value) at which the limit is hit; 0 = off (default). (The reference says only "an absolute risk limit in account currency"; we read it as the loss.)',
  ),
  riskLimit: Fraction('loss as a fraction of the reference (0.215 = 21.5 %, at most 1) at which the limit is hit; 0 = off. Required, as in the reference.'),
  relativeRiskLimit: Fraction(
    'trailing drawdown: how far the measured value may fall below its highest point since the period began (the reference counts as the first point), as a fraction of that high (0.1 = 10 %, at most 1); 0 = off (default). (The reference leaves its meaning open; a fraction like riskLimit, so a value meant as an amount is refused, never taken as a tiny limit.)',
  ),
  fallbackAbsoluteRiskLimit: Amount(
    'with closeAllOpenPositions false: once the limit is hit, a loss of this amount closes every position; 0 = off (default); above absoluteRiskLimit. Kept and ignored with closeAllOpenPositions true.',
  ),
  fallbackRiskLimit: Fraction(
    'with closeAllOpenPositions false: the same as a fraction of the reference (at most 1); 0 = off (default); above riskLimit. Kept and ignored with closeAllOpenPositions true.',
  ),
  fallbackRelativeRiskLimit: Fraction(
    'with closeAllOpenPositions false: the same as a trailing drawdown fraction (at most 1); 0 = off (default); above relativeRiskLimit. Kept and ignored with closeAllOpenPositions true.',
  ),
  closeAllOpenPositions: Type.Boolean({
    description:
      'true (default): the hit closes every position and cancels every pending order of the account; false: they stay open, no new trade is copied, and the fallback limits watch them',
  }),
  active: Type.Boolean({ description: 'false: kept but not watched, and any hit of it is lifted; default true' }),
  fulfillSeconds: Type.Integer({
    minimum: 0,
    maximum: MAX_FULFILL_SECONDS,
    description: `how long a threshold (the limit, then a fallback) must stay reached before it acts, in seconds: the monitor looks every second and every look in between must find it reached, else the wait starts over. Default 60 (the reference); 0 = at once; at most ${MAX_FULFILL_SECONDS}.`,
  }),
  resetTime: Type.String({
    format: 'date-time',
    description:
      'risk types 1-3 (the reference: "only used for 1-3"): their days begin at this time of day, weeks on Monday and months on the 1st at it; only the time counts, in UTC (the offset given is applied: 22:00+02:00 is 20:00 UTC). Left out (answers then leave it out too): midnight in the service TIME_ZONE (UTC unless configured), as the reference default 00:00+00:00 under the default configuration.',
  }),
});

const readOnly = Type.Optional(Type.Unknown({ readOnly: true, description: 'read-only; ignored when sent' }));
export const COPIER_SCOPE_WORDS =
  "copierId (the reference: set at creation, read-only after; both documents are silent on what it does, ours): the limit is scoped to one copier of this account (a copier copying to it). It measures the account as every risk limit does (its risk type, on the account's balance and equity); a hit acts on that copier only: it copies no new trade while the hit is in force (RISK_LIMIT_HIT), and with closeAllOpenPositions (or a fallback hit) only the positions and pending orders it copied are closed; the account's other copiers and its own trades go on. Without copierId (or null) the limit is the whole account's. No such copier copying to this account: 404 [COPIER_NOT_FOUND]. PUT may leave it out; sent, it must be the limit's own (400 [VALIDATION_FAILED] otherwise). The limit of a copier deleted later stays and acts on nothing.";

const CopierId = Type.Union([Uuid, Type.Null()], { description: COPIER_SCOPE_WORDS });

/** POST and PUT: RiskLimitDTO as the reference writes it; read-only members are ignored. */
export const RiskLimitWriteDTO = Type.Object(
  {
    riskType: Type.Object(
      { id: Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: RISK_TYPE_WORDS }), name: readOnly },
      { description: 'the risk type: {"id": 1}; required. An unknown id is refused with 400 [VALIDATION_FAILED].' },
    ),
    riskLimit: limitMembers.riskLimit,
    absoluteRiskLimit: Type.Optional(limitMembers.absoluteRiskLimit),
    relativeRiskLimit: Type.Optional(limitMembers.relativeRiskLimit),
    fallbackAbsoluteRiskLimit: Type.Optional(limitMembers.fallbackAbsoluteRiskLimit),
    fallbackRiskLimit: Type.Optional(limitMembers.fallbackRiskLimit),
    fallbackRelativeRiskLimit: Type.Optional(limitMembers.fallbackRelativeRiskLimit),
    closeAllOpenPositions: Type.Optional(limitMembers.closeAllOpenPositions),
    active: Type.Optional(limitMembers.active),
    fulfillSeconds: Type.Optional(limitMembers.fulfillSeconds),
    resetTime: Type.Optional(limitMembers.resetTime),
    accountId: Type.Optional(
      Type.Union([Uuid, Type.Null()], { description: 'the reference: set at creation, read-only after; when sent it must be the account of the path' }),
    ),
    copierId: Type.Optional(CopierId),
    id: readOnly,
    status: readOnly,
    hits: readOnly,
    created: readOnly,
    updated: readOnly,
  },
  {
    $id: 'RiskLimitWriteDTO',
    additionalProperties: false,
    description:
      'RiskLimitDTO as written: riskType and riskLimit required (the reference), other members left out take their defaults; read-only members are ignored.',
  },
);

export const RiskLimitHitDTO = Type.Object(
  {
    riskLimitId: Uuid,
    riskType: Type.Object({ id: Type.Integer(), name: Type.String() }, { description: 'the risk type, as RiskTypeDTO names it' }),
    level: Type.Union([Type.Literal('LIMIT'), Type.Literal('FALLBACK')], {
      description: 'LIMIT: the limit was hit; FALLBACK: then its fallback too (every position closed)',
    }),
    hitAt: IsoDateTime,
    until: Nullable(IsoDateTime),
    loss: Type.Number({ description: 'the loss (reference - measured value, deposits and withdrawals left out) when it was hit, account currency' }),
    threshold: Type.Number({ description: 'the value of the member that was reached (riskLimit and relativeRiskLimit: a fraction, 0.05 = 5 %)' }),
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
    copierId: Type.Optional(
      Type.String({ format: 'uuid', description: 'the copier the limit is scoped to; absent: the whole account. ' + COPIER_SCOPE_WORDS }),
    ),
    riskType: RiskTypeDTO,
    ...limitMembers,
    resetTime: Type.Optional(limitMembers.resetTime),
    status: Type.Union([Type.Literal('ARMED'), Type.Literal('HIT'), Type.Literal('FALLBACK_HIT'), Type.Literal('INACTIVE')], {
      description: 'ours: ARMED: watched, not hit; HIT: hit in this period (no new copies); FALLBACK_HIT: its fallback too; INACTIVE: active is false',
    }),
    hits: Type.Array(RiskLimitHitDTO, { description: 'ours: the hits in force (none when ARMED or INACTIVE)' }),
    created: IsoDateTime,
    updated: IsoDateTime,
  },
  {
    $id: 'RiskLimitDTO',
    additionalProperties: false,
    description:
      'A loss limit of the account over a period (riskType), as the reference document writes it; status, hits, created and updated are ours. The protection monitor reads the account every second. At the first look in each period it records the reference (balance and equity then; a period begun while the service was down or the account offline is measured from the first look after, marked late in the logs). ' +
      'Loss = reference - measured value as the risk type says; deposits and withdrawals after the reference move the measured value back by their amount, so they are never loss or profit. ' +
      'The limit is reached when the loss reaches absoluteRiskLimit, or riskLimit (a fraction: 0.05 = 5 %) of the reference, or the measured value falls relativeRiskLimit (a fraction) below its highest point of the period (checked in that order; the first reached is reported); 0 switches a member off, so a limit with every member 0 never acts. ' +
      'It acts once it has stayed reached for fulfillSeconds (default 60; the account logs say RISK_LIMIT_REACHED when the wait starts and RISK_LIMIT_RECEDED when it ends without acting). ' +
      'When hit: no new trade is copied to the account (copies skipped with RISK_LIMIT_HIT in the account logs; changes and closes of positions already copied still follow the master; trading through the API is not blocked) and, with closeAllOpenPositions, every position is closed and every pending order cancelled, once. ' +
      'With closeAllOpenPositions false, positions stay open and the fallbacks are armed: reaching one (for fulfillSeconds too) closes everything. A hit lasts until the period ends or PUT .../riskLimits/{riskLimitId}/reset, which lifts it at once and measures again from that moment (a new reference) until the period ends. ' +
      'Several limits add up: each is watched on its own and any hit stops copying.',
  },
);

export const RiskLimitStatusDTO = Type.Object(
  {
    riskLimitId: Uuid,
    limitIsHit: Type.Boolean({ description: 'a hit (or its fallback) is in force: no new trade is copied to the account' }),
    referenceBalance: Type.Optional(
      Type.Number({
        description:
          'the value the loss is measured from now (the risk type says which: the balance, equity or the higher of both at the period start or the last reset; Actual: the balance at the last period reference). Left out until the monitor has recorded one (within a second of the limit being added).',
      }),
    ),
    balanceLastUpdate: Type.Optional(Type.String({ format: 'date-time', description: 'when that reference was read' })),
  },
  { $id: 'RiskLimitStatusDTO', description: "A risk limit's state now, as the reference writes it (account information riskLimitsStatus)." },
);

export const ProfitTargetStatusDTO = Type.Object(
  {
    profitTargetFeatureId: Uuid,
    profitTargetIsHit: Type.Boolean({ description: 'the target is locked (or the overall target reached its loss limit): no new trade is copied' }),
    referenceBalance: Type.Optional(
      Type.Number({
        description:
          "a period target: the balance at the period start or its last reset (its percent target, e.g. dailyProfitTarget, and its relative target, e.g. dailyRelativeProfitTarget, are of it); the overall target: its referenceBalance. Left out until the monitor has recorded the period's reference.",
      }),
    ),
    balanceLastUpdate: Type.Optional(Type.String({ format: 'date-time', description: 'when that reference was read' })),
  },
  { $id: 'ProfitTargetStatusDTO', description: "A profit target feature's state now, as the reference writes it (account information profitTargetsStatus)." },
);
