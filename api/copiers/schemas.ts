// CopierDTO as the reference (OpenAPI 1.2.5) writes it, as request and response, ScaleTypeDTO, and
// MasterAccountSummaryDTO. Names, types, ranges and defaults are the reference's; the descriptions say
// where the reference is silent and the choice is ours, and which members are our extras.
import { type TProperties, Type } from '@sinclair/typebox';
import { defaultCopierSettings, SCALE_TYPES } from '../../domain/copier/settings.js';
import { AccountDTO } from '../accounts/schemas.js';
import { EnumObject } from '../shared/enumObjects.js';
import { IsoDateTime, Nullable, Uuid, withDefaults } from '../shared/schemas.js';

export const ScaleTypeDTO = EnumObject(
  'ScaleTypeDTO',
  `How the slave's lot follows the master's; send only the id, e.g. {"id": 1}. ${SCALE_TYPES.map((t) => `${t.id}: ${t.name}`).join(', ')}. ` +
    '1: master lot x slave balance / master balance x multiplier; 2: the same with equity; 3: fixedLotSize; 4: master lot x multiplier (default; the reference gives none). An unknown id: 400 [VALIDATION_FAILED].',
);

const Lots = (description: string) => Type.Number({ minimum: 0, maximum: 100000, description });
const Int32 = (description: string, maximum = 2147483647) => Type.Integer({ minimum: 0, maximum, description });

const settingsProperties = withDefaults(defaultCopierSettings, {
  active: Type.Boolean({ default: true, description: 'false: fully disabled: copies nothing new and no longer manages its open copies. Default true' }),
  monitorOnly: Type.Boolean({
    default: false,
    description: 'true: manages the copies it holds (closes, modifications) but copies no new trade; the log says what it would have copied. Default false',
  }),
  multiplier: Type.Number({ minimum: 0.001, maximum: 999.999, default: 1, description: 'lot factor of scale types 1, 2 and 4. Default 1' }),
  scaleType: ScaleTypeDTO,
  fixedLotSize: Type.Number({ exclusiveMinimum: 0, maximum: 100000, default: 0.01, description: 'lots, for scaleType 3 (Fixed lot size). Default 0.01' }),
  fixMasterBalanceAndEquity: Int32('above 0: used instead of the master balance and equity in the ratios (scale types 1 and 2); 0 (default) = deactivated'),
  fixSlaveBalanceAndEquity: Int32('above 0: used instead of the slave balance and equity in the ratios (scale types 1 and 2); 0 (default) = deactivated'),
  maxLotSize: Lots('a slave lot above it is reduced to it; 0 (default) = deactivated'),
  maximumLot: Lots(
    'the open lots of this copier on the slave (positions and pending orders) may not exceed it: an open that would is skipped (MAXIMUM_LOT_REACHED); 0 (default) = deactivated',
  ),
  martingaleStrategy: Type.Boolean({
    default: false,
    description:
      'ours (the reference describes keeping the ratio of successive master lots): after a copied position closes at a loss the next lot doubles (capped by maxLotSize); a win resets. Default false',
  }),
  reverse: Type.Boolean({ default: false, description: 'buy becomes sell and sell buy; stop loss and take profit swap. Default false' }),
  copyOpenPositions: Type.Boolean({
    default: false,
    description: 'on creation or activation, the master positions already open are copied too. Default false',
  }),
  forceMinTrade: Type.Boolean({
    default: true,
    description:
      "a lot below the slave broker's minimum is raised to the minimum (subject to minVolumeSafetySkipThresholdMultiplier); false: skipped (VOLUME_BELOW_MINIMUM). Default true",
  }),
  forcePositionLotSize: Type.Boolean({
    default: false,
    description:
      "Place more trades if max lot size for a specific symbol is reached (reference). Ours: the slave's lot is placed as orders of the broker's maximum (on whole lot steps) and one of the rest (a rest below the minimum takes what it lacks from the order before), at most 50 orders (a larger lot is capped at 50 maximum lots); every order copies the one master position: its close, partial close (taken from the last order back), stop loss and take profit changes and cancellation apply to each. false: a lot above the broker's maximum is capped at it. Default false",
  }),
  openRetry: Type.Boolean({
    default: false,
    description:
      'true: an open the broker refuses or does not answer is resent every 30 seconds for openRetryTimeoutInMinutes, while the master holds the position. Default false',
  }),
  openRetryTimeoutInMinutes: Int32('minutes of resending with openRetry; 0 = as long as the master holds the position. Default 10', 525600),
  copyStopLoss: Type.Boolean({
    default: true,
    description:
      "the copy gets a stop loss from the master (under reverse: the master's take profit) and follows its changes; false: none from the master. Default true",
  }),
  copyTakeProfit: Type.Boolean({
    default: true,
    description:
      "the copy gets a take profit from the master (under reverse: the master's stop loss) and follows its changes; false: none from the master. Default true",
  }),
  skipPendingOrders: Type.Boolean({
    default: true,
    description:
      "true: the master's pending orders are not copied (PENDING_ORDER_SKIPPED); when one fills, the position is copied like a market open. Default true",
  }),
  maxSlippage: Int32(
    "points: a market copy is skipped (SLIPPAGE_EXCEEDED) when the slave's price (ask for a buy, bid for a sell) is further than this from the master's open price, or PRICE_MISSING without a price; 0 (default) = deactivated",
  ),
  maxOpenPositions: Int32(
    'copies this copier may hold open on the slave (positions and pending orders); an open beyond it is skipped (MAX_OPEN_POSITIONS_REACHED); 0 (default) = deactivated',
  ),
  ignoreContractSize: Type.Boolean({
    default: true,
    description:
      "false: the master lot is converted by the master's contract size / the slave's (the same units on both sides) before scaling (scale types 1, 2, 4). Default true",
  }),
  hideComment: Type.Boolean({ default: false, description: 'slave orders carry no comment. Default false' }),
  customComment: Nullable(
    Type.String({ minLength: 0, maxLength: 20, description: 'comment of slave orders instead of the master comment; absent (or null when sent) = none' }),
  ),
  customMagicNumber: Nullable(
    Type.Integer({ minimum: 1, maximum: 2147483647, description: 'magic number of all slave orders (0 cannot be used); absent (or null when sent) = none' }),
  ),
  copyMagicNumber: Type.Boolean({ default: false, description: 'slave orders carry the master magic number (unless customMagicNumber). Default false' }),
  copyOriginalComment: Type.Boolean({
    default: false,
    description:
      'slave orders carry the master comment (unless hideComment or customComment); false: no comment (copies are tracked by their client order ids). Default false',
  }),
  ignoreCurrency: Type.Boolean({ default: false, description: 'ratios compare raw balances without converting currencies. Default false' }),
  minVolumeSafetySkipThresholdMultiplier: Type.Number({
    minimum: 0,
    maximum: 1000,
    description:
      "(spec 1.2.6) Applies only when forcing the minimum trade (forceMinTrade) would raise the calculated slave lot to the slave broker's minimum lot and that minimum is greater than the master broker's minimum lot for the symbol. If slave minimum lot divided by calculated lot is equal to or greater than the value, the trade is skipped. 0 = deactivated (default). Equal minimum lot sizes on both brokers: check not applied.",
  }),
});

const StrategyId = (description: string) => Nullable({ ...Uuid, description });
const strategyRequestMembers = {
  fromStrategyId: Type.Optional(
    StrategyId(
      "set at creation only: the copier copies only the master trades whose magic number is this strategy's key (skip reason STRATEGY_KEY_FILTERED); null or absent: every trade. Not with toStrategyId (copying from one strategy to another is not allowed). A PUT may send it back unchanged; another value: 400 [COPIER_STRATEGY_IMMUTABLE]",
    ),
  ),
  toStrategyId: Type.Optional(
    StrategyId(
      "set at creation only: the copier writes this strategy's key into the magic number of every slave order it places (over customMagicNumber and copyMagicNumber); null or absent: none. A PUT may send it back unchanged; another value: 400 [COPIER_STRATEGY_IMMUTABLE]",
    ),
  ),
  fromStrategyName: Type.Optional(Type.Unknown({ readOnly: true })),
};

const optional = (props: TProperties): TProperties => Object.fromEntries(Object.entries(props).map(([k, v]) => [k, Type.Optional(v)]));

const readOnlyEchoes = {
  id: Type.Optional(Type.Unknown({ readOnly: true })),
  created: Type.Optional(Type.Unknown({ readOnly: true })),
  fromAccountAlias: Type.Optional(Type.Unknown({ readOnly: true })),
  toAccountId: Type.Optional(Type.Unknown({ readOnly: true, description: 'the path account; a different value is ignored' })),
};

export const CopierCreateDTO = Type.Object(
  {
    fromAccountId: { ...Uuid, description: 'the master account, of the same project' },
    ...optional(settingsProperties),
    ...strategyRequestMembers,
    ...readOnlyEchoes,
  },
  { additionalProperties: false, title: 'CopierDTO (create)', description: 'Members left out take their defaults.' },
);

export const CopierUpdateDTO = Type.Object(
  {
    fromAccountId: Type.Optional({ ...Uuid, description: 'may be sent back unchanged; the master cannot change' }),
    ...optional(settingsProperties),
    ...strategyRequestMembers,
    ...readOnlyEchoes,
  },
  { additionalProperties: false, title: 'CopierDTO (update)', description: 'Members present are changed; members left out keep their value.' },
);

/** Members answered only when they have a value (the reference types them without null). */
const absentWhenNone = {
  fromAccountAlias: Type.Optional(Type.String({ description: "the master's alias; absent when it has none" })),
  customComment: Type.Optional(settingsProperties.customComment.anyOf[0]),
  customMagicNumber: Type.Optional(settingsProperties.customMagicNumber.anyOf[0]),
  fromStrategyId: Type.Optional({ ...Uuid, description: 'the strategy whose trades the copier copies; absent: every trade of the master' }),
  fromStrategyName: Type.Optional(Type.String({ description: "fromStrategyId's name; absent without fromStrategyId" })),
  toStrategyId: Type.Optional({ ...Uuid, description: 'the strategy whose key the copier writes into its slave orders; absent: none' }),
};

export const CopierDTO = Type.Object(
  {
    id: Uuid,
    fromAccountId: Uuid,
    toAccountId: { ...Uuid, description: 'the slave: the account the copier belongs to' },
    created: { ...IsoDateTime, description: '(spec 1.2.6) creation time' },
    ...settingsProperties,
    ...absentWhenNone,
  },
  { $id: 'CopierDTO', additionalProperties: false },
);

export const MasterAccountSummaryDTO = Type.Object(
  {
    masterAccount: AccountDTO,
    slaveAccounts: Type.Array(AccountDTO, { description: 'as GET /accounts/{accountId}/slaves' }),
    slaveCount: Type.Integer({ minimum: 1 }),
  },
  { $id: 'MasterAccountSummaryDTO', additionalProperties: false },
);

export const CopierParams = Type.Object({ accountId: Uuid, copierId: Uuid }, { additionalProperties: false });
