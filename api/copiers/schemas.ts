// CopierDTO (spec: "CopierDTO") as request and response, and MasterAccountSummaryDTO.
import { type TProperties, Type } from '@sinclair/typebox';
import { scaleTypes } from '../../domain/copier/settings.js';
import { AccountDTO } from '../accounts/schemas.js';
import { IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

const settingsProperties = {
  active: Type.Boolean({ description: 'copies while true; default true' }),
  monitorOnly: Type.Boolean({ description: 'records what it would copy, places nothing; default false' }),
  multiplier: Type.Number({ exclusiveMinimum: 0, maximum: 1000, description: 'lot factor of MULTIPLIER, BALANCE_RATIO and EQUITY_RATIO; default 1' }),
  scaleType: Type.Union(
    scaleTypes.map((s) => Type.Literal(s)),
    {
      description:
        'NONE: master lot; MULTIPLIER (default): master lot x multiplier; FIXED_LOT: fixedLotSize; BALANCE_RATIO: master lot x slave balance / master balance x multiplier; EQUITY_RATIO: the same with equity',
    },
  ),
  fixedLotSize: Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 1000, description: 'lots, for FIXED_LOT' })),
  fixMasterBalanceAndEquity: Type.Integer({
    minimum: 0,
    maximum: 1_000_000_000,
    description: 'above 0: used instead of the master balance and equity in ratios; 0 (default) = deactivated',
  }),
  fixSlaveBalanceAndEquity: Type.Integer({
    minimum: 0,
    maximum: 1_000_000_000,
    description: 'above 0: used instead of the slave balance and equity in ratios; 0 (default) = deactivated',
  }),
  maxLotSize: Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 1000, description: 'a slave lot above it is reduced to it; null (default) = no cap' })),
  maximumLot: Nullable(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: 100000,
      description: 'open lots of this copier on the slave may not exceed it; an open that would is skipped; null = none',
    }),
  ),
  martingaleStrategy: Type.Boolean({
    description: 'after a copied position closes at a loss the next lot doubles (capped by maxLotSize); a win resets; default false',
  }),
  reverse: Type.Boolean({ description: 'buy becomes sell and sell buy; stop loss and take profit swap; default false' }),
  copyOpenPositions: Type.Boolean({ description: 'on creation or activation, the master positions already open are copied too; default false' }),
  forcePositionLotSize: Type.Boolean({
    description: 'a lot below the slave minimum is raised to the minimum instead of skipped (see minVolumeSafetySkipThresholdMultiplier); default false',
  }),
  openRetry: Type.Integer({ minimum: 0, maximum: 60, description: 'minutes during which a rejected open is resent every 30 seconds; 0 (default) = no retry' }),
  hideComment: Type.Boolean({ description: 'slave orders carry no comment; default false' }),
  customComment: Nullable(Type.String({ maxLength: 64, description: 'comment of slave orders instead of the master comment' })),
  customMagicNumber: Nullable(Type.Integer({ minimum: 0, maximum: 2147483647, description: 'magic number of slave orders' })),
  copyMagicNumber: Type.Boolean({ description: 'slave orders carry the master magic number (unless customMagicNumber); default true' }),
  copyOriginalComment: Type.Boolean({ description: 'slave orders carry the master comment (unless hideComment or customComment); default true' }),
  ignoreCurrency: Type.Boolean({ description: 'ratios compare raw balances without converting currencies; default false' }),
  minVolumeSafetySkipThresholdMultiplier: Type.Number({
    minimum: 0,
    maximum: 1000,
    description:
      "Applies only when forcing the minimum trade would raise the calculated slave lot to the slave broker's minimum lot and that minimum is greater than the master broker's minimum lot for the symbol. If slave minimum lot divided by calculated lot is equal to or greater than the value, the trade is skipped. 0 = deactivated (default). Equal minimum lot sizes on both brokers: check not applied.",
  }),
};

const optional = (props: TProperties): TProperties => Object.fromEntries(Object.entries(props).map(([k, v]) => [k, Type.Optional(v)]));

const readOnlyEchoes = {
  id: Type.Optional(Type.Unknown({ readOnly: true })),
  created: Type.Optional(Type.Unknown({ readOnly: true })),
  fromAccountAlias: Type.Optional(Type.Unknown({ readOnly: true })),
  toAccountId: Type.Optional(Type.Unknown({ readOnly: true })),
};

export const CopierCreateDTO = Type.Object(
  { fromAccountId: { ...Uuid, description: 'the master account, of the same project' }, ...optional(settingsProperties), ...readOnlyEchoes },
  { additionalProperties: false, title: 'CopierDTO (create)' },
);

export const CopierUpdateDTO = Type.Object(
  {
    fromAccountId: Type.Optional({ ...Uuid, description: 'may be sent back unchanged; the master cannot change' }),
    ...optional(settingsProperties),
    ...readOnlyEchoes,
  },
  { additionalProperties: false, title: 'CopierDTO (update)', description: 'Members present are changed; members left out keep their value.' },
);

export const CopierDTO = Type.Object(
  {
    id: Uuid,
    fromAccountId: Uuid,
    fromAccountAlias: Nullable(Type.String()),
    toAccountId: { ...Uuid, description: 'the slave: the account the copier belongs to' },
    created: IsoDateTime,
    ...settingsProperties,
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
