// AccountInformationDTO (reference: GET /accounts/{accountId}/information, and AccountDTO.accountInformation):
// the broker's figures of the account's session, its results from the trade history, and its state.
// Every member of the reference is here with the reference's type; where this service has no such
// thing, the member is a documented constant. Our extras sit beside them. One schema for both places
// (an access policy's `AccountInformationDTO: member` entries hide the member in both): the members
// the account list cannot afford per account are optional, and say so.
import { type Static, Type } from '@sinclair/typebox';
import { ProfitTargetLockDTO, ProfitTargetStatusDTO, RiskLimitHitDTO, RiskLimitStatusDTO } from '../riskLimits/schemas.js';
import { Nullable, Uuid } from '../shared/schemas.js';
import { ProxyRegionDTO } from '../types/schemas.js';

export const HYPERACTIVE_TRADES_PER_DAY = 500;

const Int = (description: string) => Type.Integer({ minimum: -2147483648, maximum: 2147483647, description });
/** The members that ask the broker session: GET .../information only. */
const BROKER_ONLY = 'left out while the account has no broker session, and always left out of AccountDTO.accountInformation';
/** The members computed from the account's whole trade history or its protections: GET .../information only. */
const INFORMATION_ONLY = 'always in GET /accounts/{accountId}/information; left out of AccountDTO.accountInformation (a computation per account of a list)';
const brokerFigure = (description: string) => Type.Optional(Type.Number({ description: `${description}; ${BROKER_ONLY}` }));

const PendingApprovalItem = Type.Object(
  {
    accountFromId: Uuid,
    ticket: Type.Integer({ description: 'the ticket (position id) of the master position waiting for a decision' }),
    volume: Type.Number({ description: "the master's lots (the copy is sized when approved)" }),
    approvalId: Type.String({ description: 'ours: the id to decide it with (POST /accounts/{accountId}/approvals; GET .../approvals lists them)' }),
    copierId: Uuid,
    symbol: Type.String(),
  },
  { description: 'ApprovalDTO: a master open FeatureApprovalDTO holds back on this account, not decided yet.' },
);

const MissingSymbolMappingDTO = Type.Object(
  {
    symbol: Type.String(),
    copierId: Uuid,
    fromAccountId: Uuid,
    fromAccount: Type.String(),
    lastTimestampDetected: Type.Integer(),
  },
  { description: 'MissingSymbolMappingDTO' },
);

const ProxyDTO = Type.Object(
  {
    id: Type.Integer(),
    ipAddress: Type.String(),
    region: ProxyRegionDTO,
    usedByAccounts: Type.Array(Uuid),
  },
  {
    description:
      "ProxyDTO: a proxy server of the reference's pool. Never answered: this service reserves no proxy servers (AccountDTO.proxy is the one an account is configured with).",
  },
);

export const AccountInformationDTO = Type.Object(
  {
    currency: Type.Optional(Type.String({ description: `ISO 4217 code of the account currency; ${BROKER_ONLY}` })),
    leverage: Type.Optional(Int(`account leverage (100 = 1:100); ${BROKER_ONLY}`)),
    connected: Type.Boolean({ description: 'the account has a live session with its broker' }),
    status: Type.String({ description: 'the account status in words, as AccountDTO.status.name: New, Active, Stopped or Deleted' }),
    accountMode: Type.Optional(
      Type.Union([Type.Literal('NETTING'), Type.Literal('HEDGING'), Type.Literal('EXCHANGE')], {
        description: `the account's margin mode at the broker; ${BROKER_ONLY}`,
      }),
    ),
    openPositions: Type.Boolean({ description: 'there is an open position (GET .../positions lists them)' }),
    openPositionsCount: Int('open positions; without a broker session (and always in AccountDTO.accountInformation), from the last known book'),
    pendingOrders: Type.Boolean({ description: 'there is a pending order' }),
    pendingOrdersCount: Int('pending orders; without a broker session (and always in AccountDTO.accountInformation), from the last known book'),
    balance: brokerFigure('balance'),
    equity: brokerFigure('balance + credit + floating profit and swap of open positions'),
    credit: brokerFigure('credit from the broker'),
    usedMargin: brokerFigure('margin held by open positions'),
    freeMargin: brokerFigure('equity - used margin'),
    unrealizedProfit: brokerFigure('floating profit and swap of open positions'),
    drawdown: brokerFigure('percent: how far equity is below balance now, (balance - equity) / balance x 100, 0 when equity is not below'),
    profitToday: Type.Optional(
      Type.Number({
        description: `net result (profit + swap + commission) of the trades closed since 00:00 today in the service TIME_ZONE; ${INFORMATION_ONLY}`,
      }),
    ),
    profitThisWeek: Type.Optional(Type.Number({ description: `the same since Monday 00:00 (TIME_ZONE); ${INFORMATION_ONLY}` })),
    profitThisMonth: Type.Optional(Type.Number({ description: `the same since the first of the month 00:00 (TIME_ZONE); ${INFORMATION_ONLY}` })),
    avgDrawdown: Type.Optional(
      Type.Number({
        description: `percent: the mean depth of the drawdown episodes of the balance curve of closed trades (an episode runs from a peak until a new peak; depth = (peak - balance) / peak; deposits and withdrawals shift the peak and are not results); ${INFORMATION_ONLY}`,
      }),
    ),
    maxDrawdown: Type.Optional(Type.Number({ description: `percent: the deepest drawdown episode, as avgDrawdown defines them; ${INFORMATION_ONLY}` })),
    isNative: Type.Boolean({
      description:
        'the account runs in native mode: true when its account type trades at a real venue (ACCOUNT_TYPE_VENUES; every such connector is native), else AccountDTO.nativeMode',
    }),
    isHyperactive: Type.Optional(
      Type.Boolean({ description: `more than ${HYPERACTIVE_TRADES_PER_DAY} trades closed in the last 24 hours; ${INFORMATION_ONLY}` }),
    ),
    accountDuplicationInProjectDetected: Type.Boolean({
      description: 'another account of the project (not deleted) has the same loginServer (case-insensitive), loginAccountNumber and type',
    }),
    pendingApprovals: Type.Array(PendingApprovalItem, {
      description: 'master opens waiting for a decision on this account (FeatureApprovalDTO), oldest first; [] without that feature',
    }),
    positionMismatch: Type.Boolean({
      description: 'as a slave: a live copy whose master position is closed, or a master position still open whose copy the slave closed by itself',
    }),
    riskLimitsStatus: Type.Optional(
      Type.Array(RiskLimitStatusDTO, {
        description: `every risk limit of the account (GET .../riskLimits): whether it is hit, and the reference it measures from now; ${INFORMATION_ONLY}`,
      }),
    ),
    profitTargetsStatus: Type.Optional(
      Type.Array(ProfitTargetStatusDTO, {
        description: `every profit target feature of the account: whether it is locked, and the reference it measures from now; ${INFORMATION_ONLY}`,
      }),
    ),
    wrongCredentials: Type.Boolean({ description: 'the last connection attempt was refused with [INVALID_CREDENTIALS]' }),
    missingSymbolMappings: Type.Array(MissingSymbolMappingDTO, {
      description: 'always []: a copy this service cannot map is skipped and logged on the slave (SYMBOL_NOT_MAPPED in GET .../logs) instead',
    }),
    brokeTimeOffsetToUtc: Int('hours between broker time and UTC: always 0, the simulated venue keeps UTC'),
    fallbackMode: Type.Boolean({ description: 'always false: this service has no fallback connection mode' }),
    isInvestorPassword: Type.Boolean({ description: 'always false: the simulated venue has no read-only investor logins' }),
    latencyInMs: Type.Integer({ description: 'always 0: the simulated venue runs in-process' }),
    configuredProxy: Type.Optional(ProxyDTO),
    proxy: Type.Optional(ProxyDTO),
    walletBalances: Type.Array(Type.Object({ asset: Type.String(), balance: Type.Number() }, { description: 'WalletDTO' }), {
      description: 'always []: exchange wallets do not exist at the simulated venue',
    }),
    // Ours.
    environment: Type.Optional(
      Type.Union([Type.Literal('LIVE'), Type.Literal('DEMO')], {
        description: `ours: left out when detection is unsupported for the broker type; ${BROKER_ONLY}`,
      }),
    ),
    historyDeactivated: Type.Boolean({ description: 'ours: history fetching is switched off for this account; this service never does' }),
    marginLevel: Type.Optional(Nullable(Type.Number({ description: `ours: equity / used margin x 100; null without margin in use; ${BROKER_ONLY}` }))),
    riskLimitsHit: Type.Optional(
      Type.Array(RiskLimitHitDTO, {
        description: `ours: the risk limits hit in force (GET .../riskLimits): while any is, no new trade is copied to the account; each lasts until its period ends (until) or PUT .../riskLimits/{riskLimitId}/reset; ${INFORMATION_ONLY}`,
      }),
    ),
    profitTargetsLocked: Type.Optional(
      Type.Array(ProfitTargetLockDTO, {
        description: `ours: the profit targets locked (account features FeatureDaily/Weekly/MonthlyProfitTargetDTO, FeatureOverallTargetDTO): while any is, no new trade is copied to the account (a per-symbol one: on that symbol); ${INFORMATION_ONLY}`,
      }),
    ),
  },
  {
    $id: 'AccountInformationDTO',
    additionalProperties: false,
    description:
      "Computed when asked (the reference syncs it every minute). Members the reference declares that this service has no such thing for are documented constants. GET /accounts/{accountId}/information answers every member but the broker figures while the account has no broker session; it first lets the copy engine finish what it has in hand. AccountDTO.accountInformation (every account answer, the list of 1,000 included) answers what the read models and the live sessions tell at once, a fixed number of queries for any number of accounts: connected, status, isNative, the counts of open positions and pending orders from the last known book, accountDuplicationInProjectDetected, pendingApprovals, positionMismatch, wrongCredentials and the constants; it leaves out the broker figures (they ask the broker session) and the results and protections (profitToday/ThisWeek/ThisMonth, avgDrawdown, maxDrawdown, isHyperactive, riskLimitsStatus, profitTargetsStatus, riskLimitsHit, profitTargetsLocked: each a computation over the account's history); GET .../information has them.",
  },
);

export type AccountInformation = Static<typeof AccountInformationDTO>;
