// AccountDTO as the reference (OpenAPI 1.2.5) writes it, as request and as response: `type`, `region`
// and `status` are enumeration objects, `dedicatedIp` is a FeatureDedicatedIpDTO, `myHomeIp` a
// FeatureMyHomeIpDTO. Our extras (proxy, propFirm, callbackUrl, hasDisabledCopiers and the collections
// of the configuration summary) sit beside them. Secrets are write-only in effect: answers carry the
// mask instead (`loginAccountPassword`, `ctraderClientSecret`, `myHomeIp.password`).
import { Type } from '@sinclair/typebox';
import { Int32, IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';
import { AccountStatusDTO, AccountTypeDTO, RegionDTO } from '../types/schemas.js';
import { AccountInformationDTO } from './informationSchemas.js';
import { APPLIED_TEMPLATE_MARKERS } from '../templates/schemas.js';

/** What answers carry instead of a secret; sent back unchanged (or as ""), it keeps the stored secret. */
export const SECRET_MASK = '********';

const ProxyDTO = Type.Object(
  {
    host: Type.String({ minLength: 1, maxLength: 255 }),
    port: Type.Integer({ minimum: 1, maximum: 65535 }),
    username: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  },
  { additionalProperties: false, description: 'ours: the proxy the broker connection goes through (null: none)' },
);

const Port = Type.Integer({ minimum: 1, maximum: 65535 });

/** FeatureDedicatedIpDTO (the reference's shape; no $id: the account feature of that name is another schema). */
const DedicatedIpDTO = Type.Object(
  {
    dedicatedProxyServerId: Int32({
      minimum: 1,
      description: 'the id of a dedicated proxy server. Stored and answered; this self-hosted service has no proxy pool, so it changes no behaviour.',
    }),
  },
  { description: 'FeatureDedicatedIpDTO: a dedicated IP for the account. Left out of an answer when none is set; send null to remove it.' },
);

const myHomeIpMembers = {
  host: Type.String({ minLength: 1, maxLength: 253, description: 'your IP address or DNS host name' }),
  httpPort: Type.Optional(Port),
  socksPort: Type.Optional(Port),
  username: Type.String({ maxLength: 255, description: 'for SOCKS/HTTP authentication' }),
};

const MyHomeIpRequest = Type.Object(
  {
    ...myHomeIpMembers,
    password: Type.String({
      maxLength: 255,
      description: `for SOCKS/HTTP authentication; stored encrypted, answered as "${SECRET_MASK}". Sent as "" or "${SECRET_MASK}" on update, the stored one is kept.`,
    }),
  },
  {
    description:
      'FeatureMyHomeIpDTO: a proxy at your home the broker connection would leave through. Stored and answered; broker sessions run in-process against the simulated venue here, so it changes no behaviour. Send null to remove it.',
  },
);

const MyHomeIpAnswer = Type.Object(
  { ...myHomeIpMembers, password: Type.String({ description: `always "${SECRET_MASK}"` }) },
  { description: 'FeatureMyHomeIpDTO; left out when none is set.' },
);

const Labels = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 50,
  description:
    'Labels of the account (at most 50, each 1 to 100 characters; a repeated label is kept once). Null or left out: unchanged; [] removes them all. GET /projects/{projectId}/labels lists the labels in use.',
});

const password = (description: string) => Type.String({ maxLength: 255, description });

const writable = {
  loginServer: Type.String({ minLength: 1, maxLength: 255, description: 'broker server name or address' }),
  loginAccountNumber: Type.String({ maxLength: 255, description: 'login (account number) at the broker; default "" (exchanges need none)' }),
  alias: Nullable(Type.String({ maxLength: 255 })),
  type: AccountTypeDTO,
  region: RegionDTO,
  propFirm: Type.Boolean({ default: false, description: 'ours: the account is a prop-firm account; default false' }),
  tradingDisabled: Type.Boolean({ default: false, description: 'no orders are sent to this account; default false' }),
  nativeMode: Type.Boolean({ default: false, description: 'default false' }),
  closeUnmanagedPositions: Type.Boolean({ default: false, description: 'default false' }),
  skipCredentialCheck: Type.Boolean({
    default: false,
    description:
      'default false. Creation never logs in here (the credentials are checked when the account starts: POST .../actions/start answers 400 [INVALID_CREDENTIALS]), so the flag is stored and answered and changes nothing.',
  }),
  labels: Nullable(Labels),
  dedicatedIp: Nullable(DedicatedIpDTO),
  myHomeIp: Nullable(MyHomeIpRequest),
  proxy: Nullable(ProxyDTO),
  ctraderClientId: Nullable(
    Type.String({
      maxLength: 255,
      description:
        "the account's own cTrader Open API application, with ctraderClientSecret (both set): a cTrader account connects under it, before its brand's (the white label's ctraderClientId/ctraderClientSecret) and the service's (CTRADER_CLIENT_ID); stored and answered (null removes it); one of the pair without the other (as sent, or with the stored one) gives 400 [VALIDATION_FAILED] naming the member left out",
    }),
  ),
  ctraderClientSecret: Nullable(
    password(`stored encrypted, answered as "${SECRET_MASK}"; sent as "" or "${SECRET_MASK}", the stored one is kept; null removes it`),
  ),
};

/** Read-only members a client may send back unchanged (GET, edit, PUT); they are ignored. */
const readOnlyEchoes = {
  id: Type.Optional(Type.Unknown({ readOnly: true })),
  created: Type.Optional(Type.Unknown({ readOnly: true })),
  status: Type.Optional(Type.Unknown({ readOnly: true })),
  statusMessage: Type.Optional(Type.Unknown({ readOnly: true })),
  deleted: Type.Optional(Type.Unknown({ readOnly: true })),
  hasActiveCopiers: Type.Optional(Type.Unknown({ readOnly: true })),
  hasMonitorOnlyCopiers: Type.Optional(Type.Unknown({ readOnly: true })),
  hasDisabledCopiers: Type.Optional(Type.Unknown({ readOnly: true })),
  accountInformation: Type.Optional(Type.Unknown({ readOnly: true })),
  copiers: Type.Optional(Type.Unknown({ readOnly: true })),
  riskLimits: Type.Optional(Type.Unknown({ readOnly: true })),
  features: Type.Optional(Type.Unknown({ readOnly: true })),
  accountTemplate1: Type.Optional(Type.Unknown({ readOnly: true })),
  appliedTemplateRevision: Type.Optional(Type.Unknown({ readOnly: true })),
  appliedTemplateMeta: Type.Optional(Type.Unknown({ readOnly: true })),
};

const failIfAccountExistsInProject = Type.Boolean({
  description:
    'when true, creation fails with 409 [ACCOUNT_ALREADY_EXISTS] if an account of the project (not deleted) has the same account type, login server (case-insensitive) and login. Ignored on update.',
});

export const AccountCreateDTO = Type.Object(
  {
    loginServer: writable.loginServer,
    loginAccountNumber: Type.Optional(writable.loginAccountNumber),
    loginAccountPassword: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'the broker password (stored encrypted, answered masked). Not empty at creation (ours: "" gives 400 [VALIDATION_FAILED]).',
    }),
    type: writable.type,
    region: writable.region,
    alias: Type.Optional(writable.alias),
    propFirm: Type.Optional(writable.propFirm),
    tradingDisabled: Type.Optional(writable.tradingDisabled),
    nativeMode: Type.Optional(writable.nativeMode),
    closeUnmanagedPositions: Type.Optional(writable.closeUnmanagedPositions),
    skipCredentialCheck: Type.Optional(writable.skipCredentialCheck),
    labels: Type.Optional(writable.labels),
    dedicatedIp: Type.Optional(writable.dedicatedIp),
    myHomeIp: Type.Optional(writable.myHomeIp),
    proxy: Type.Optional(writable.proxy),
    ctraderClientId: Type.Optional(writable.ctraderClientId),
    ctraderClientSecret: Type.Optional(writable.ctraderClientSecret),
    failIfAccountExistsInProject: Type.Optional(failIfAccountExistsInProject),
    callbackUrl: Type.Optional(
      Type.String({
        writeOnly: true,
        description: 'ours: asynchronous creation (validated: [CALLBACK_URL_REQUIRED], [CALLBACK_URL_INVALID], [CALLBACK_URL_INVALID_PROTOCOL])',
      }),
    ),
    ...readOnlyEchoes,
  },
  { additionalProperties: false, title: 'AccountDTO (create)' },
);

export const AccountUpdateDTO = Type.Object(
  {
    ...Object.fromEntries(Object.entries(writable).map(([k, v]) => [k, Type.Optional(v)])),
    loginAccountPassword: Type.Optional(
      password(`a new broker password; "" (as the reference's clients send when they do not change it) or "${SECRET_MASK}" keeps the stored one`),
    ),
    failIfAccountExistsInProject: Type.Optional(failIfAccountExistsInProject),
    ...readOnlyEchoes,
  },
  {
    additionalProperties: false,
    title: 'AccountDTO (update)',
    description: 'Members present are changed; members left out (or labels: null) keep their value. The whole AccountDTO of a GET may be sent back.',
  },
);

export const AccountDTO = Type.Object(
  {
    id: Uuid,
    created: IsoDateTime,
    loginServer: Type.String(),
    loginAccountNumber: Type.String(),
    loginAccountPassword: Type.String({ description: `always "${SECRET_MASK}": the password never leaves the service` }),
    alias: Type.Optional(Type.String({ description: 'left out when the account has none' })),
    type: AccountTypeDTO,
    region: RegionDTO,
    status: AccountStatusDTO,
    statusMessage: Type.String({
      description:
        'the status in words (ours: New, Active, Stopped, Deleted); for a started account at a real venue its link\'s state, e.g. at a crypto exchange `connected; order stream live`, `connected; order stream down after 3 failures (…); polling meanwhile, reconnecting with backoff` or `connected; no order stream for okx, polled every 2000 ms` (README "Real venues")',
    }),
    deleted: Type.Optional(IsoDateTime),
    labels: Type.Array(Type.String()),
    skipCredentialCheck: writable.skipCredentialCheck,
    propFirm: writable.propFirm,
    tradingDisabled: writable.tradingDisabled,
    hasActiveCopiers: Type.Boolean({ description: 'some copier of this account (as the slave) is active' }),
    hasMonitorOnlyCopiers: Type.Boolean({ description: 'some copier of this account (as the slave) is in monitor-only mode' }),
    hasDisabledCopiers: Type.Boolean({ description: 'some copier of this account (as the slave) is deactivated' }),
    nativeMode: writable.nativeMode,
    closeUnmanagedPositions: writable.closeUnmanagedPositions,
    dedicatedIp: Type.Optional(DedicatedIpDTO),
    myHomeIp: Type.Optional(MyHomeIpAnswer),
    proxy: Nullable(ProxyDTO),
    ctraderClientId: Type.Optional(Type.String({ description: 'left out when none is set' })),
    ctraderClientSecret: Type.Optional(Type.String({ description: `"${SECRET_MASK}" when one is set, left out otherwise` })),
    failIfAccountExistsInProject: Type.Optional(Type.Boolean({ description: 'a creation flag: never answered' })),
    accountInformation: AccountInformationDTO,
    copiers: Type.Optional(
      Type.Array(Type.Unknown(), { description: 'CopierDTO list (its copiers as the slave); only GET /accounts/configurationSummary fills it' }),
    ),
    riskLimits: Type.Optional(Type.Array(Type.Unknown(), { description: 'RiskLimitDTO list; only GET /accounts/configurationSummary fills it' })),
    features: Type.Optional(
      Type.Array(Type.Unknown(), { description: 'FeatureDTO list (account-scope features); only GET /accounts/configurationSummary fills it' }),
    ),
    // The spec's three applied-template markers (AppliedTemplateDTO): every AccountDTO answer has them (api/templates/markers.ts).
    ...APPLIED_TEMPLATE_MARKERS,
  },
  { $id: 'AccountDTO', additionalProperties: false },
);

export const AccountQuery = Type.Object(
  {
    accountTypeId: Type.Optional(Int32({ description: 'the id of `type`' })),
    loginServer: Type.Optional(Type.String({ maxLength: 255, description: 'case-insensitive partial match' })),
    loginAccountNumber: Type.Optional(Type.String({ maxLength: 64, description: 'case-insensitive partial match' })),
    alias: Type.Optional(Type.String({ maxLength: 255, description: 'case-insensitive partial match' })),
    regionId: Type.Optional(Int32({ description: 'the id of `region`' })),
    accountStatusId: Type.Optional(Int32({ description: 'the id of `status`; without it, deleted accounts are left out; 4 lists only deleted accounts' })),
    limit: Type.Optional(Int32({ minimum: 1, maximum: 1000, description: 'maximum number returned; default 1000' })),
    offset: Type.Optional(Int32({ minimum: 0, description: 'number skipped; default 0' })),
  },
  { additionalProperties: false, description: "The query parameters are the spec's (the reference has none)." },
);

export const AccountIdParams = Type.Object({ accountId: Uuid }, { additionalProperties: false });
