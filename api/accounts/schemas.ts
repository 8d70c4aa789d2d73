// AccountDTO (spec: "AccountDTO"), as request and as response. Members the spec leaves open are named
// accountTypeId, regionId and accountStatusId, as the query parameters of GET /accounts are.
import { Type } from '@sinclair/typebox';
import { Int32, IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

const ProxyDTO = Type.Object(
  {
    host: Type.String({ minLength: 1, maxLength: 255 }),
    port: Type.Integer({ minimum: 1, maximum: 65535 }),
    username: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  },
  { additionalProperties: false, description: 'proxy the broker connection goes through' },
);

const Ip = Type.String({ anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }], description: 'an IPv4 or IPv6 address' });

const writable = {
  loginServer: Type.String({ minLength: 1, maxLength: 255, description: 'broker server name or address' }),
  loginAccountNumber: Type.String({ minLength: 1, maxLength: 64, description: 'login (account number) at the broker' }),
  loginAccountPassword: Type.String({
    minLength: 1,
    maxLength: 255,
    writeOnly: true,
    description: 'write-only: stored encrypted, never returned',
  }),
  alias: Nullable(Type.String({ maxLength: 255 })),
  accountTypeId: Int32({ description: 'platform type 1 to 17 (GET /types/accountTypes); another value gives 404 [ACCOUNT_TYPE_NOT_FOUND]' }),
  regionId: Int32({ description: '1 New York, 2 London, 3 Singapore, 4 Berlin; another value gives 404 [REGION_NOT_FOUND]' }),
  propFirm: Type.Boolean({ description: 'the account is a prop-firm account; default false' }),
  tradingDisabled: Type.Boolean({ description: 'no orders are sent to this account; default false' }),
  nativeMode: Type.Boolean({ description: 'default false' }),
  closeUnmanagedPositions: Type.Boolean({ description: 'default false' }),
  dedicatedIp: Nullable(Ip),
  myHomeIp: Nullable(Ip),
  proxy: Nullable(ProxyDTO),
};

/** Read-only members a client may send back unchanged (GET, edit, PUT); they are ignored. */
const readOnlyEchoes = {
  id: Type.Optional(Type.Unknown({ readOnly: true })),
  created: Type.Optional(Type.Unknown({ readOnly: true })),
  accountStatusId: Type.Optional(Type.Unknown({ readOnly: true })),
  hasMonitorOnlyCopiers: Type.Optional(Type.Unknown({ readOnly: true })),
  hasDisabledCopiers: Type.Optional(Type.Unknown({ readOnly: true })),
  copiers: Type.Optional(Type.Unknown({ readOnly: true })),
  riskLimits: Type.Optional(Type.Unknown({ readOnly: true })),
  features: Type.Optional(Type.Unknown({ readOnly: true })),
};

export const AccountCreateDTO = Type.Object(
  {
    loginServer: writable.loginServer,
    loginAccountNumber: writable.loginAccountNumber,
    loginAccountPassword: writable.loginAccountPassword,
    accountTypeId: writable.accountTypeId,
    regionId: writable.regionId,
    alias: Type.Optional(writable.alias),
    propFirm: Type.Optional(writable.propFirm),
    tradingDisabled: Type.Optional(writable.tradingDisabled),
    nativeMode: Type.Optional(writable.nativeMode),
    closeUnmanagedPositions: Type.Optional(writable.closeUnmanagedPositions),
    dedicatedIp: Type.Optional(writable.dedicatedIp),
    myHomeIp: Type.Optional(writable.myHomeIp),
    proxy: Type.Optional(writable.proxy),
    failIfAccountExistsInProject: Type.Optional(
      Type.Boolean({
        writeOnly: true,
        description:
          'when true, creation fails with 409 [ACCOUNT_ALREADY_EXISTS] if an account of the project (not deleted) has the same account type, login server (case-insensitive) and login',
      }),
    ),
    callbackUrl: Type.Optional(
      Type.String({
        writeOnly: true,
        description: 'asynchronous creation (validated: [CALLBACK_URL_REQUIRED], [CALLBACK_URL_INVALID], [CALLBACK_URL_INVALID_PROTOCOL])',
      }),
    ),
    ...readOnlyEchoes,
  },
  { additionalProperties: false, title: 'AccountDTO (create)' },
);

export const AccountUpdateDTO = Type.Object(
  {
    ...Object.fromEntries(Object.entries(writable).map(([k, v]) => [k, Type.Optional(v)])),
    ...readOnlyEchoes,
  },
  {
    additionalProperties: false,
    title: 'AccountDTO (update)',
    description: 'Members present are changed; members left out keep their value (the password is write-only, so it is never required).',
  },
);

export const AccountDTO = Type.Object(
  {
    id: Uuid,
    created: IsoDateTime,
    loginServer: Type.String(),
    loginAccountNumber: Type.String(),
    alias: Nullable(Type.String()),
    accountTypeId: Type.Integer(),
    regionId: Type.Integer(),
    accountStatusId: Type.Integer({
      description:
        '1 New, 2 Active, 3 Stopped, 4 Deleted. New -start-> Active; Stopped -start-> Active; New or Active -stop-> Stopped; any -delete-> Deleted (final). start on Active, stop on Stopped and delete on Deleted change nothing; a deleted account refuses every other change with 409 [ACCOUNT_DELETED].',
    }),
    propFirm: Type.Boolean(),
    tradingDisabled: Type.Boolean(),
    hasMonitorOnlyCopiers: Type.Boolean({ description: 'some copier of this account is in monitor-only mode' }),
    hasDisabledCopiers: Type.Boolean({ description: 'some copier of this account is deactivated' }),
    nativeMode: Type.Boolean(),
    closeUnmanagedPositions: Type.Boolean(),
    dedicatedIp: Nullable(Type.String()),
    myHomeIp: Nullable(Type.String()),
    proxy: Nullable(ProxyDTO),
    copiers: Type.Optional(
      Type.Array(Type.Unknown(), { description: 'CopierDTO list (its copiers as the slave); only GET /accounts/configurationSummary fills it' }),
    ),
    riskLimits: Type.Optional(Type.Array(Type.Unknown(), { description: 'RiskLimitDTO list; only GET /accounts/configurationSummary fills it' })),
    features: Type.Optional(
      Type.Array(Type.Unknown(), { description: 'FeatureDTO list (account-scope features); only GET /accounts/configurationSummary fills it' }),
    ),
  },
  { $id: 'AccountDTO', additionalProperties: false },
);

export const AccountQuery = Type.Object(
  {
    accountTypeId: Type.Optional(Int32()),
    loginServer: Type.Optional(Type.String({ maxLength: 255, description: 'case-insensitive partial match' })),
    loginAccountNumber: Type.Optional(Type.String({ maxLength: 64, description: 'case-insensitive partial match' })),
    alias: Type.Optional(Type.String({ maxLength: 255, description: 'case-insensitive partial match' })),
    regionId: Type.Optional(Int32()),
    accountStatusId: Type.Optional(Int32({ description: 'without it, deleted accounts are left out; 4 lists only deleted accounts' })),
    limit: Type.Optional(Int32({ minimum: 1, maximum: 1000, description: 'maximum number returned; default 1000' })),
    offset: Type.Optional(Int32({ minimum: 0, description: 'number skipped; default 0' })),
  },
  { additionalProperties: false },
);

export const AccountIdParams = Type.Object({ accountId: Uuid }, { additionalProperties: false });
