// Positions and orders of the Trading API (spec "Positions and orders"; the reference's PositionDTO and
// PositionRequestDTO): the book, opening and placing, changing, closing, closing everything, history.
import { type Static, Type } from '@sinclair/typebox';
import { apiComment } from '../../domain/positions/apiComment.js';
import { openRequestOf, type OrderToPlace, venueOrderOf } from '../../app/trading/orders.js';
import { type ClosedTrade, refuseOpenWhileLocked } from '../../app/trading/session.js';
import { AccountIdParams } from '../accounts/schemas.js';
import { ApiError } from '../errors.js';
import type { HandlerInput, Routes } from '../route.js';
import type { Services } from '../../app/services.js';
import { ErrorDTO, errorResponses } from '../shared/schemas.js';
import { IdempotencyKeyHeader } from './idempotency.js';
import type { TradingRequests } from './requests.js';
import { DeleteQuery, HistoryQuery, PositionDTO, PositionParams, PositionRequestDTO } from './schemas.js';
import { historyView, positionView } from './views.js';

type PositionRequest = Static<typeof PositionRequestDTO>;

export const tradingErrors = {
  ...errorResponses(400, 401, 404, 409),
  409: {
    description:
      'the account is deleted ([ACCOUNT_DELETED]), not started ([ACCOUNT_NOT_ACTIVE]), not connected ([ACCOUNT_NOT_CONNECTED]), trading is disabled ([TRADING_DISABLED]), locked for opens (ours, the spec names no code: [RISK_LIMIT_HIT] while a risk limit of the account is hit, [PROFIT_TARGET_LOCKED] while a profit target locks it, [OVERALL_TARGET_REACHED] while an overall target locks it or the symbol; closes and changes stay allowed), or the broker refused: [NOT_ENOUGH_MONEY], [MARKET_CLOSED]',
    schema: ErrorDTO,
  },
};

/** The trading requests that take an Idempotency-Key. */
const keyedErrors = {
  ...tradingErrors,
  422: { description: 'the Idempotency-Key was used on this account for another request ([IDEMPOTENCY_KEY_REUSED]); nothing was done', schema: ErrorDTO },
};

const MAX_MAGIC_NUMBER = BigInt(Number.MAX_SAFE_INTEGER);

/** magicNumber as the service keeps it: "" = none; a number above 2^53 - 1 gives 400. */
const magicNumberOf = (text: string | undefined): number | null => {
  if (text === undefined || text === '') return null;
  if (BigInt(text) > MAX_MAGIC_NUMBER) {
    throw new ApiError(400, '[VALIDATION_FAILED]', `magicNumber must be at most ${Number.MAX_SAFE_INTEGER}`, [
      { field: 'body.magicNumber', problem: `at most ${Number.MAX_SAFE_INTEGER}` },
    ]);
  }
  return Number(text);
};

/** PositionRequestDTO as an order to place; a pending order without openPrice gives 400. */
const orderToPlace = (body: PositionRequest): OrderToPlace => {
  if (body.orderType !== 'Buy' && body.orderType !== 'Sell' && body.openPrice <= 0) {
    throw new ApiError(400, '[VALIDATION_FAILED]', `a ${body.orderType} order needs openPrice`, [
      { field: 'body.openPrice', problem: 'more than 0 for pending orders' },
    ]);
  }
  return {
    symbol: body.symbol,
    orderType: body.orderType,
    volume: body.volume,
    openPrice: body.openPrice,
    stopLoss: body.stopLoss,
    takeProfit: body.takeProfit,
    comment: body.comment === undefined || body.comment === '' ? null : body.comment,
    magicNumber: magicNumberOf(body.magicNumber),
    pendingExpirySeconds: body.pendingExpirySeconds ?? null,
    relativeTpSl: body.relativeTpSl ?? false,
  };
};

export const positionRoutes = (routes: Routes, services: Services, trading: TradingRequests): void => {
  const { session, identityOf, requested, atVenue, recorded, closeEverything } = trading;

  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/positions',
    tag: 'Trading',
    operationId: 'listPositions',
    summary: 'Open positions and pending orders',
    description:
      'Read from the broker now. state Open or Pending; pending orders carry expiry, and their profit, swap, commission and netProfit are 0. A missing stop loss or take profit is 0.',
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
          headers: async ? undefined : { 'X-Position-Id': { description: 'ours: the id of the position or pending order', schema: Type.String() } },
        },
        ...keyedErrors,
      },
      async handler(input) {
        const { params, caller, body } = input;
        const { account, connection } = await session(caller, params.accountId, true);
        const asked = orderToPlace(body);
        await refuseOpenWhileLocked(services, params.accountId, asked.symbol);
        // The reference prepends 'API|<requestId>|' to the comment of POST .../positions only.
        const toPlace = async ? asked : { ...asked, comment: apiComment(body.requestId, asked.comment) };
        const { order, expiry } = await venueOrderOf(services, account.account_type_id, connection, toPlace);
        const identity = await identityOf(input as never, body.requestId);
        const { requestId } = identity;
        const metadata = await requested(input as never, identity, openRequestOf(toPlace, order, expiry, async));
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
  const retries =
    'A retry is safe: the same requestId with the same body on the same account within 2 minutes places once and answers the same (requestIds wrap at 999, so later, or with another body, it is a new request); an Idempotency-Key header (ours), when sent, names the request instead: the same key with another body (or on another trading operation) gives 422 [IDEMPOTENCY_KEY_REUSED] and places nothing.';
  placing(
    '/accounts/{accountId}/positions',
    'openPosition',
    'Open a position or place a pending order',
    false,
    `Answers once the broker filled or placed it (204, X-Position-Id says which) or refused it (4xx, nothing placed). ${retries}`,
  );
  placing(
    '/accounts/{accountId}/orders',
    'sendOrder',
    'Send an order without waiting for the broker',
    true,
    `Answers 204 at once after the checks that need no broker (account state, body, relativeTpSl); the broker's answer shows in GET .../positions, and a refusal in GET .../logs as an Error entry. ${retries}`,
  );

  routes.add<{ accountId: string; positionId: string }, unknown, PositionRequest>({
    method: 'put',
    path: '/accounts/{accountId}/positions/{positionId}',
    tag: 'Trading',
    operationId: 'modifyPosition',
    summary: 'Change volume, open price, stop loss or take profit',
    description:
      "The body is a whole PositionRequestDTO, of which only volume, openPrice, stopLoss and takeProfit are read. Positions: a lower volume closes the difference (partial close; what remains must be at least the symbol's minimum), the same volume changes nothing; stopLoss and takeProfit are set, 0 removes them; openPrice 0 or the open price leaves it, another gives 400 [INVALID_PRICE]. Pending orders: volume, openPrice (0 = unchanged), stopLoss and takeProfit (0 = none) all change. Unknown id: 404 [POSITION_NOT_FOUND]. requestId and Idempotency-Key as for POST .../positions.",
    params: PositionParams,
    headers: IdempotencyKeyHeader,
    body: PositionRequestDTO,
    bodyRequired: true,
    responses: { 204: { description: 'changed' }, ...keyedErrors },
    async handler(input) {
      const { params, caller, body } = input;
      const { connection } = await session(caller, params.accountId, true);
      const changes = {
        volume: body.volume,
        ...(body.openPrice > 0 ? { openPrice: body.openPrice } : {}),
        stopLoss: body.stopLoss > 0 ? body.stopLoss : null,
        takeProfit: body.takeProfit > 0 ? body.takeProfit : null,
      };
      const identity = await identityOf(input as never, body.requestId);
      const { requestId } = identity;
      const metadata = await requested(input as never, identity, { action: 'modify', positionId: params.positionId, ...changes });
      await atVenue(params.accountId, requestId, metadata, () => connection.modifyPosition(params.positionId, changes, requestId));
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
      const identity = await identityOf(input as never);
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
    async handler(input: HandlerInput<{ accountId: string }, unknown, unknown>) {
      const { params, caller } = input;
      const { connection } = await session(caller, params.accountId, true);
      const failures = await closeEverything(params.accountId, connection, input);
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
      'One entry per closed volume (a position closed in parts has an entry per part), by close time, with state Closed. Read from the broker when asked: no delay (the spec allows up to 3 minutes). start after stop gives 400. stopLoss and takeProfit are those the position had when the volume closed (0 = none).',
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
};
