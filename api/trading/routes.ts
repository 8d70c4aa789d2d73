// The Trading API (spec: "Positions and orders" and the Trading API rows of "Accounts"): positions and
// pending orders, orders, closeAllPositions, history, information, quote, symbols. It talks to the
// account's live venue session; every trading request is recorded as TradeRequested (the audit log
// says who asked), a refusal as TradeRequestRejected (the account logs say why), both through the
// recorder (domain/positions/requests.ts), and the venue's changes arrive as events of their own.
import { randomUUID } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import { v5 as uuidv5 } from 'uuid';
import { netProfitSince, performanceMetrics } from '../../domain/analytics/metrics.js';
import { periodStart } from '../../domain/analytics/periods.js';
import { balanceOperationsOf, tradesOf } from '../../projections/history/queries.js';
import { otherAccountWithSameLogin } from '../../projections/accounts/queries.js';
import { pendingApprovals } from '../../projections/approvals/queries.js';
import { positionMismatchOf } from '../../projections/copies/queries.js';
import { openPositionsOf } from '../../projections/positions/queries.js';
import { accountProtections } from '../riskLimits/views.js';
import { accountTypeOf, AccountStatus } from '../../domain/account/enums.js';
import type { TradeRequest } from '../../domain/positions/events.js';
import { TRADE_REQUEST_NAMESPACE } from '../../domain/positions/requests.js';
import type { ClosedTrade, OpenPosition, OrderRequest, SymbolInfo, VenueConnection, VenuePosition } from '../../engine/venues/port.js';
import { VenueError } from '../../engine/venues/port.js';
import { specOrderType, venueOrderType } from '../../engine/venues/recorder.js';
import { type EventMetadata, recordTradeRejection, recordTradeRequest } from '../../app/commands/tradeRequests.js';
import { loadAccount } from '../shared/accounts.js';
import { AccountIdParams } from '../accounts/schemas.js';
import { ApiError } from '../errors.js';
import type { Caller, HandlerInput, Routes } from '../route.js';
import { type Services, settle } from '../../app/services.js';
import { ErrorDTO, errorResponses } from '../shared/schemas.js';
import { IdempotencyKeyHeader, idempotencyKeyOf, idempotencyKeyReused, requestFingerprint } from './idempotency.js';
import {
  AccountInformationDTO,
  DeleteQuery,
  HistoryQuery,
  MarketQuoteDTO,
  PositionDTO,
  PositionParams,
  PositionRequestDTO,
  PositionUpdateDTO,
  QuoteQuery,
  SymbolInfoDTO,
  SymbolParams,
} from './schemas.js';

type PositionRequest = Static<typeof PositionRequestDTO>;
type PositionUpdate = Static<typeof PositionUpdateDTO>;
type PositionView = Static<typeof PositionDTO>;

const HYPERACTIVE_TRADES_PER_DAY = 500;
/** How long account information waits for the copy engine to finish what it has in hand. */
const ENGINE_IDLE_WAIT_MS = 2000;

const tradingErrors = {
  ...errorResponses(400, 401, 404, 409),
  409: {
    description:
      'the account is deleted ([ACCOUNT_DELETED]), not started ([ACCOUNT_NOT_ACTIVE]), not connected ([ACCOUNT_NOT_CONNECTED]), trading is disabled ([TRADING_DISABLED]), or the broker refused: [NOT_ENOUGH_MONEY], [MARKET_CLOSED]',
    schema: ErrorDTO,
  },
};

/** The trading requests that take an Idempotency-Key. */
const keyedErrors = {
  ...tradingErrors,
  422: { description: 'the Idempotency-Key was used on this account for another request ([IDEMPOTENCY_KEY_REUSED]); nothing was done', schema: ErrorDTO },
};

/** A trading request's client order id, and the fingerprint to record when an Idempotency-Key named it. */
interface RequestIdentity {
  readonly requestId: string;
  readonly fingerprint: string | null;
}

export const positionView = (item: VenuePosition): PositionView => {
  const common = {
    id: item.id,
    symbol: item.symbol,
    orderType: specOrderType(item.orderType),
    volume: item.volume,
    openPrice: item.openPrice,
    openTime: item.openTime,
    stopLoss: item.stopLoss,
    takeProfit: item.takeProfit,
    comment: item.comment,
    magicNumber: item.magicNumber,
    currentPrice: item.currentPrice,
  };
  return item.kind === 'position'
    ? { ...common, profit: item.profit, swap: item.swap, commission: item.commission }
    : { ...common, profit: 0, swap: 0, commission: 0, expiry: item.expiry };
};

/** A position as the positions read model last saw it (no session: the broker's figures are unknown). */
const knownPositionView = (row: Awaited<ReturnType<typeof openPositionsOf>>[number]): Static<typeof AccountInformationDTO>['openPositions'][number] => ({
  id: row.id,
  symbol: row.symbol,
  orderType: row.order_type as PositionView['orderType'],
  volume: row.volume,
  openPrice: row.open_price,
  openTime: new Date(row.open_time).toISOString(),
  stopLoss: row.stop_loss,
  takeProfit: row.take_profit,
  profit: null,
  swap: null,
  commission: null,
  comment: row.comment,
  magicNumber: row.magic_number === null ? null : Number(row.magic_number),
});

const historyView = (trade: ClosedTrade): PositionView => ({
  id: trade.positionId,
  symbol: trade.symbol,
  orderType: specOrderType(trade.orderType),
  volume: trade.volume,
  openPrice: trade.openPrice,
  openTime: trade.openTime,
  stopLoss: null,
  takeProfit: null,
  profit: trade.profit,
  swap: trade.swap,
  commission: trade.commission,
  comment: trade.comment,
  magicNumber: trade.magicNumber,
  closePrice: trade.closePrice,
  closeTime: trade.closeTime,
  closeReason: trade.reason,
  closeTradeId: trade.id,
});

const symbolView = (info: SymbolInfo): Static<typeof SymbolInfoDTO> => ({
  symbol: info.symbol,
  description: info.description,
  digits: info.digits,
  point: info.point,
  contractSize: info.contractSize,
  minVolume: info.minVolume,
  maxVolume: info.maxVolume,
  volumeStep: info.volumeStep,
  stopsLevel: info.stopsLevel,
  baseCurrency: info.baseCurrency,
  profitCurrency: info.profitCurrency,
  marginCurrency: info.marginCurrency,
  commissionPerLot: info.commissionPerLot,
  swapLong: info.swapLong,
  swapShort: info.swapShort,
});

const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;

export const tradingRoutes = (routes: Routes, services: Services): void => {
  const resultsOf = (accountId: string) => accountResults(services, accountId);

  /** The account's live venue session; `write` also refuses an account whose trading is disabled. */
  const session = async (caller: Caller, accountId: string, write: boolean) => {
    const account = await loadAccount(services, caller, accountId);
    if (account.account_status_id === AccountStatus.Deleted) throw new ApiError(409, '[ACCOUNT_DELETED]', `account ${accountId} was deleted`);
    if (account.account_status_id !== AccountStatus.Active) {
      throw new ApiError(409, '[ACCOUNT_NOT_ACTIVE]', 'the account is not started: POST .../actions/start connects it');
    }
    if (write && account.trading_disabled) throw new ApiError(409, '[TRADING_DISABLED]', 'trading is disabled on this account (tradingDisabled)');
    const connection = services.connections.connection(accountId);
    if (!connection)
      throw new ApiError(409, '[ACCOUNT_NOT_CONNECTED]', 'the account has no session with its broker; see its logs, or POST .../actions/reconnect');
    return { account, connection };
  };

  /** Records who asked for what, before the venue hears of it; answers the metadata its refusal carries too. */
  const requested = async (
    input: HandlerInput<{ accountId: string }, unknown, unknown>,
    { requestId, fingerprint }: RequestIdentity,
    request: TradeRequest,
  ): Promise<EventMetadata> => {
    try {
      return await recordTradeRequest(services, { accountId: input.params.accountId, requestId, fingerprint, request, context: input.context });
    } catch (error) {
      throw idempotencyKeyReused(error);
    }
  };

  const rejected = async (accountId: string, requestId: string, error: VenueError, metadata: EventMetadata) => {
    await recordTradeRejection(services, { accountId, requestId, refusal: error }, metadata);
  };

  /** Runs a venue request; a refusal is recorded and answered as the venue's 4xx. */
  const atVenue = async <T>(accountId: string, requestId: string, metadata: EventMetadata, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof VenueError) {
        await rejected(accountId, requestId, error, metadata);
        await settle(services);
      }
      throw error;
    }
  };

  /** Answers once the venue's changes are recorded and the read models include them. */
  const recorded = async (accountId: string) => {
    await services.connections.recorded(accountId);
    await settle(services);
  };

  /**
   * The client order id: from Idempotency-Key when given (a retried request places nothing twice), else
   * new. Call it after every check that can refuse the request: `requested` then records the key's use.
   */
  const requestIdOf = (input: HandlerInput<{ accountId: string }, unknown, unknown>): RequestIdentity => {
    const key = idempotencyKeyOf(input.req.header('idempotency-key'));
    if (key === null) return { requestId: randomUUID(), fingerprint: null };
    const { method } = input.req;
    return {
      requestId: uuidv5(`${input.params.accountId}/${key}`, TRADE_REQUEST_NAMESPACE),
      fingerprint: requestFingerprint({ method, path: input.context.path ?? input.req.path, query: input.query, body: input.body }),
    };
  };

  /** PositionRequestDTO as a venue order: relative stops resolved, expiry from pendingExpirySeconds. */
  const orderOf = async (
    accountTypeId: number,
    connection: VenueConnection,
    body: PositionRequest,
  ): Promise<{ order: OrderRequest; expiry: string | null }> => {
    const type = venueOrderType(body.orderType);
    const pending = type !== 'buy' && type !== 'sell';
    const platform = accountTypeOf(accountTypeId);
    if (pending && (body.openPrice === undefined || body.openPrice === null)) {
      throw new ApiError(400, '[VALIDATION_FAILED]', `a ${body.orderType} order needs openPrice`, [
        { field: 'body.openPrice', problem: 'required for pending orders' },
      ]);
    }
    let stopLoss = body.stopLoss ?? null;
    let takeProfit = body.takeProfit ?? null;
    if (body.relativeTpSl) {
      if (!platform?.supportsRelativeTpSl) {
        throw new ApiError(400, '[RELATIVE_TP_SL_NOT_SUPPORTED]', `relativeTpSl works on platform type 5 only, not on type ${accountTypeId}`);
      }
      const info = await connection.symbolInfo(body.symbol);
      const quote = await connection.quote(body.symbol);
      const buy = type === 'buy' || type === 'buyLimit' || type === 'buyStop';
      const entry = pending ? body.openPrice! : buy ? quote.ask : quote.bid;
      const away = (points: number | null, up: boolean) => (points === null ? null : round(entry + (up ? 1 : -1) * points * info.point, info.digits));
      stopLoss = away(stopLoss, !buy);
      takeProfit = away(takeProfit, buy);
    }
    const base = { symbol: body.symbol, volume: body.volume, stopLoss, takeProfit, comment: body.comment ?? null, magicNumber: body.magicNumber ?? null };
    if (!pending) return { order: { ...base, orderType: type }, expiry: null };
    const seconds = body.pendingExpirySeconds ?? 0;
    const expiry = platform?.supportsPendingExpiry && seconds > 0 ? new Date(services.clock().getTime() + seconds * 1000).toISOString() : null;
    return { order: { ...base, orderType: type, openPrice: body.openPrice!, expiry }, expiry };
  };

  const openRequest = (body: PositionRequest, order: OrderRequest, expiry: string | null, async: boolean): TradeRequest => ({
    action: 'open',
    symbol: body.symbol,
    orderType: body.orderType,
    volume: body.volume,
    openPrice: 'openPrice' in order ? order.openPrice : null,
    stopLoss: order.stopLoss ?? null,
    takeProfit: order.takeProfit ?? null,
    comment: order.comment ?? null,
    magicNumber: order.magicNumber ?? null,
    expiry,
    async,
  });

  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/positions',
    tag: 'Trading',
    operationId: 'listPositions',
    summary: 'Open positions and pending orders',
    description: 'Read from the broker now. Pending orders carry expiry; their profit, swap and commission are 0.',
    params: AccountIdParams,
    responses: { 200: { description: 'positions and pending orders', schema: Type.Array(PositionDTO) }, ...tradingErrors },
    async handler({ params, caller }) {
      const { connection } = await session(caller, params.accountId, false);
      return { body: (await connection.positions()).map(positionView) };
    },
  });

  const placing = (path: string, operationId: string, summary: string, async: boolean, description: string) =>
    routes.add<{ accountId: string }, unknown, PositionRequest>({
      method: 'post',
      path,
      tag: 'Trading',
      operationId,
      summary,
      description,
      params: AccountIdParams,
      headers: IdempotencyKeyHeader,
      body: PositionRequestDTO,
      bodyRequired: true,
      responses: {
        204: {
          description: async ? 'accepted; the outcome shows in positions and logs' : 'filled (market) or placed (pending)',
          headers: async ? undefined : { 'X-Position-Id': { description: 'the id of the position or pending order', schema: Type.String() } },
        },
        ...keyedErrors,
      },
      async handler(input) {
        const { params, caller, body } = input;
        const { account, connection } = await session(caller, params.accountId, true);
        const { order, expiry } = await orderOf(account.account_type_id, connection, body);
        const identity = requestIdOf(input);
        const { requestId } = identity;
        const metadata = await requested(input, identity, openRequest(body, order, expiry, async));
        const place = () => atVenue(params.accountId, requestId, metadata, () => connection.placeOrder(order, requestId));
        if (async) {
          place()
            .then(
              () => recorded(params.accountId),
              () => undefined,
            )
            .catch((error: unknown) => services.log.error('an order failed', error));
          return { status: 204 };
        }
        const result = await place();
        await recorded(params.accountId);
        const id = result.status === 'filled' ? (result.positionId ?? result.orderId) : result.orderId;
        return { status: 204, headers: { 'X-Position-Id': id } };
      },
    });
  placing(
    '/accounts/{accountId}/positions',
    'openPosition',
    'Open a position or place a pending order',
    false,
    'Answers once the broker filled or placed it (204, X-Position-Id says which) or refused it (4xx, nothing placed). An Idempotency-Key header makes a retry safe: the same key on the same account with the same body places once and answers the same; the same key with another body (or on another trading operation) gives 422 [IDEMPOTENCY_KEY_REUSED] and places nothing.',
  );
  placing(
    '/accounts/{accountId}/orders',
    'sendOrder',
    'Send an order without waiting for the broker',
    true,
    "Answers 204 at once after the checks that need no broker (account state, body, relativeTpSl); the broker's answer shows in GET .../positions, and a refusal in GET .../logs as an Error entry. Idempotency-Key as for POST .../positions.",
  );

  routes.add<{ accountId: string; positionId: string }, unknown, PositionUpdate>({
    method: 'put',
    path: '/accounts/{accountId}/positions/{positionId}',
    tag: 'Trading',
    operationId: 'modifyPosition',
    summary: 'Change volume, open price, stop loss or take profit',
    description:
      "Positions: a lower volume closes the difference (partial close; what remains must be at least the symbol's minimum), stop loss and take profit move or (null) go; the open price cannot change (400 [INVALID_PRICE]). Pending orders: volume, open price, stop loss and take profit all change. Unknown id: 404 [POSITION_NOT_FOUND].",
    params: PositionParams,
    headers: IdempotencyKeyHeader,
    body: PositionUpdateDTO,
    bodyRequired: true,
    responses: { 204: { description: 'changed' }, ...keyedErrors },
    async handler(input) {
      const { params, caller, body } = input;
      const { connection } = await session(caller, params.accountId, true);
      const identity = requestIdOf(input as never);
      const { requestId } = identity;
      const metadata = await requested(input as never, identity, { action: 'modify', positionId: params.positionId, ...body });
      await atVenue(params.accountId, requestId, metadata, () => connection.modifyPosition(params.positionId, body, requestId));
      await recorded(params.accountId);
      return { status: 204 };
    },
  });

  routes.add<{ accountId: string; positionId: string }, Static<typeof DeleteQuery>, unknown>({
    method: 'delete',
    path: '/accounts/{accountId}/positions/{positionId}',
    tag: 'Trading',
    operationId: 'closePosition',
    summary: 'Close a position or cancel a pending order',
    description:
      'pendingOnly=false (default) closes a live position or cancels a pending order; pendingOnly=true cancels only a pending order and leaves a filled position untouched (204, nothing done). Unknown id: 404 [POSITION_NOT_FOUND].',
    params: PositionParams,
    query: DeleteQuery,
    headers: IdempotencyKeyHeader,
    responses: { 204: { description: 'closed, cancelled, or (pendingOnly on a position) left alone' }, ...keyedErrors },
    async handler(input) {
      const { params, caller, query } = input;
      const { connection } = await session(caller, params.accountId, true);
      const item = (await connection.positions()).find((p) => p.id === params.positionId);
      if (!item) throw new ApiError(404, '[POSITION_NOT_FOUND]', `no open position or pending order ${params.positionId}`);
      if (item.kind === 'position' && query.pendingOnly) return { status: 204 };
      const identity = requestIdOf(input as never);
      const { requestId } = identity;
      const metadata = await requested(input as never, identity, { action: 'close', positionId: params.positionId, pendingOnly: query.pendingOnly ?? false });
      await atVenue<unknown>(params.accountId, requestId, metadata, () =>
        item.kind === 'order' ? connection.cancelOrder(item.id, requestId) : connection.closePosition(item.id, undefined, requestId),
      );
      await recorded(params.accountId);
      return { status: 204 };
    },
  });

  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'post',
    path: '/accounts/{accountId}/actions/closeAllPositions',
    tag: 'Trading',
    operationId: 'closeAllPositions',
    summary: 'Close every open position and cancel every pending order',
    description:
      'Each one is tried; when the broker refuses some (a closed market), the rest are still closed and the answer is 409 [CLOSE_ALL_INCOMPLETE] with details listing what stayed open and why.',
    params: AccountIdParams,
    responses: { 204: { description: 'everything closed and cancelled' }, ...tradingErrors },
    async handler(input) {
      const { params, caller } = input;
      const { connection } = await session(caller, params.accountId, true);
      const requestId = randomUUID();
      const metadata = await requested(input, { requestId, fingerprint: null }, { action: 'closeAll' });
      const failures: { positionId: string; error: string; message: string }[] = [];
      for (const item of await connection.positions()) {
        try {
          if (item.kind === 'order') await connection.cancelOrder(item.id, `${requestId}/${item.id}`);
          else await connection.closePosition(item.id, undefined, `${requestId}/${item.id}`);
        } catch (error) {
          if (!(error instanceof VenueError)) throw error;
          failures.push({ positionId: item.id, error: error.code, message: error.message });
          await rejected(params.accountId, `${requestId}/${item.id}`, error, metadata);
        }
      }
      await recorded(params.accountId);
      if (failures.length > 0) throw new ApiError(409, '[CLOSE_ALL_INCOMPLETE]', `${failures.length} could not be closed`, failures);
      return { status: 204 };
    },
  });

  routes.add<{ accountId: string }, Static<typeof HistoryQuery>, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/history/positions',
    tag: 'Trading',
    operationId: 'positionHistory',
    summary: 'Closed positions between start and stop',
    description:
      'One entry per closed volume (a position closed in parts has an entry per part), by close time. Read from the broker when asked: no delay (the spec allows up to 3 minutes). start after stop gives 400.',
    params: AccountIdParams,
    query: HistoryQuery,
    responses: { 200: { description: 'closed positions', schema: Type.Array(PositionDTO) }, ...tradingErrors },
    async handler({ params, caller, query }) {
      if (Date.parse(query.start) > Date.parse(query.stop)) throw new ApiError(400, '[VALIDATION_FAILED]', 'start must not be after stop');
      const { connection } = await session(caller, params.accountId, false);
      const history = await connection.history(new Date(query.start).toISOString(), new Date(query.stop).toISOString());
      return { body: history.filter((e): e is ClosedTrade => e.kind === 'trade').map(historyView) };
    },
  });

  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/information',
    tag: 'Trading',
    operationId: 'accountInformation',
    summary: 'Balance, equity, margin, results and state of the account',
    description: "Works for every account: while it has no broker session, the broker's figures are null and the counts come from the last known book.",
    params: AccountIdParams,
    responses: { 200: { description: 'the account information', schema: AccountInformationDTO }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller }) {
      const account = await loadAccount(services, caller, params.accountId);
      const connection = services.connections.connection(params.accountId);
      const duplicates = await otherAccountWithSameLogin(services.db, caller.projectId, account);
      // positionMismatch reads the engine's outcomes (CopyExecuted), which it appends after the slave's
      // venue reported the fill: a close of that copy right after could otherwise be judged before the
      // copy was known (the race behind copierFeatures "resync reopens on the slave"). Bounded wait.
      await Promise.race([services.engine.idle(), new Promise((r) => setTimeout(r, ENGINE_IDLE_WAIT_MS).unref())]);
      await settle(services);
      const mismatch = await positionMismatchOf(services.db, params.accountId);
      const results = await resultsOf(params.accountId);
      const protections = await accountProtections(services, params.accountId);
      const common = {
        ...results,
        ...protections,
        connected: connection !== null,
        status: account.account_status_id,
        isNative: account.native_mode,
        historyDeactivated: false,
        accountDuplicationInProjectDetected: duplicates !== undefined,
        pendingApprovals: (await pendingApprovals(services.db, params.accountId, services.clock())).length,
        positionMismatch: mismatch,
      };
      if (!connection) {
        const known = await openPositionsOf(services.db, params.accountId);
        return {
          body: {
            ...common,
            currency: null,
            leverage: null,
            balance: null,
            equity: null,
            credit: null,
            usedMargin: null,
            freeMargin: null,
            unrealizedProfit: null,
            marginLevel: null,
            marginMode: null,
            environment: null,
            openPositionsCount: known.filter((r) => r.kind === 'position').length,
            pendingOrdersCount: known.filter((r) => r.kind === 'order').length,
            openPositions: known.filter((r) => r.kind === 'position').map(knownPositionView),
          },
        };
      }
      const info = await connection.accountInformation();
      const book = await connection.positions();
      return {
        body: {
          ...common,
          currency: info.currency,
          leverage: info.leverage,
          balance: info.balance,
          equity: info.equity,
          credit: info.credit,
          usedMargin: info.margin,
          freeMargin: info.freeMargin,
          unrealizedProfit: info.unrealizedProfit,
          marginLevel: info.marginLevel,
          marginMode: info.marginMode,
          environment: info.environment,
          openPositionsCount: info.openPositionsCount,
          pendingOrdersCount: info.pendingOrdersCount,
          openPositions: book.filter((p): p is OpenPosition => p.kind === 'position').map(positionView),
        },
      };
    },
  });

  routes.add<{ accountId: string; symbol: string }, Static<typeof QuoteQuery>, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/quote/{symbol}',
    tag: 'Trading',
    operationId: 'quote',
    summary: 'Bid and ask of a symbol now',
    description: 'symbolInfo is filled only with includeSymbolInfo=true. An unknown symbol gives 404 [SYMBOL_NOT_FOUND].',
    params: SymbolParams,
    query: QuoteQuery,
    responses: { 200: { description: 'the quote', schema: MarketQuoteDTO }, ...tradingErrors },
    async handler({ params, caller, query }) {
      const { connection } = await session(caller, params.accountId, false);
      const quote = await connection.quote(params.symbol);
      const symbolInfo = query.includeSymbolInfo ? symbolView(await connection.symbolInfo(params.symbol)) : null;
      return { body: { symbol: quote.symbol, bid: quote.bid, ask: quote.ask, timestamp: quote.time, symbolInfo } };
    },
  });

  routes.add<{ accountId: string; symbol: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/symbols/{symbol}',
    tag: 'Trading',
    operationId: 'symbol',
    summary: 'One symbol of the account: its trading specification',
    description: 'An unknown symbol gives 404 [SYMBOL_NOT_FOUND].',
    params: SymbolParams,
    responses: { 200: { description: 'the symbol', schema: SymbolInfoDTO }, ...tradingErrors },
    async handler({ params, caller }) {
      const { connection } = await session(caller, params.accountId, false);
      return { body: symbolView(await connection.symbolInfo(params.symbol)) };
    },
  });
};

/**
 * The results members of AccountInformationDTO, from the same history and formulas as the performance
 * metrics (domain/analytics/metrics.ts), in the service's time zone.
 */
const accountResults = async (services: Services, accountId: string) => {
  const zone = services.config.timeZone;
  const now = services.clock();
  const trades = await tradesOf(services.db, accountId);
  const balanceOperations = await balanceOperationsOf(services.db, accountId);
  const { maxDrawdown, avgDrawdown } = performanceMetrics({ trades, balanceOperations, samples: [], from: null, to: null, zone, dataCollectorEnabled: false });
  const dayAgo = now.getTime() - 86_400_000;
  return {
    profitToday: netProfitSince(trades, periodStart('day', now, zone)),
    profitThisWeek: netProfitSince(trades, periodStart('week', now, zone)),
    profitThisMonth: netProfitSince(trades, periodStart('month', now, zone)),
    avgDrawdown,
    maxDrawdown,
    isHyperactive: trades.filter((t) => Date.parse(t.closeTime) >= dayAgo).length > HYPERACTIVE_TRADES_PER_DAY,
  };
};
