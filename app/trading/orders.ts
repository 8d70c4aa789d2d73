// An order as the Trading API receives it (the reference's PositionRequestDTO) made into the venue's
// order: 0 = no stop loss, no take profit, no open price; relative stops resolved against the entry;
// a pending order's expiry from pendingExpirySeconds (platform types 1 and 2 only); the volume adjusted
// to the symbol's lot step, minimum and maximum (domain/positions/volume.ts).
import { accountTypeOf } from '../../domain/account/enums.js';
import type { MarketOrderType, PendingOrderType } from '../../domain/copy/types.js';
import type { TradeRequest } from '../../domain/positions/events.js';
import { adjustedOrderVolume } from '../../domain/positions/volume.js';
import { invalid } from '../../domain/shared/errors.js';
import type { Services } from '../services.js';
import { type OrderRequest, type TradingSession, venueOrderType } from './session.js';

export interface OrderToPlace {
  readonly symbol: string;
  readonly orderType: MarketOrderType | PendingOrderType;
  readonly volume: number;
  /** 0 = none (market orders: not used). */
  readonly openPrice: number;
  readonly stopLoss: number;
  readonly takeProfit: number;
  readonly comment: string | null;
  readonly magicNumber: number | null;
  readonly pendingExpirySeconds: number | null;
  readonly relativeTpSl: boolean;
}

const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;

/** The order at the venue, with its expiry (a pending order's openPrice is checked before: more than 0); 400 when relativeTpSl is not supported. */
export const venueOrderOf = async (
  services: Services,
  accountTypeId: number,
  connection: TradingSession,
  body: OrderToPlace,
): Promise<{ order: OrderRequest; expiry: string | null }> => {
  const type = venueOrderType(body.orderType);
  const pending = type !== 'buy' && type !== 'sell';
  const platform = accountTypeOf(accountTypeId);
  let stopLoss = body.stopLoss > 0 ? body.stopLoss : null;
  let takeProfit = body.takeProfit > 0 ? body.takeProfit : null;
  if (body.relativeTpSl) {
    if (!platform?.supportsRelativeTpSl) {
      throw invalid('[RELATIVE_TP_SL_NOT_SUPPORTED]', `relativeTpSl works on platform type 5 only, not on type ${accountTypeId}`);
    }
    const info = await connection.symbolInfo(body.symbol);
    const quote = await connection.quote(body.symbol);
    const buy = type === 'buy' || type === 'buyLimit' || type === 'buyStop';
    const entry = pending ? body.openPrice : buy ? quote.ask : quote.bid;
    const away = (points: number | null, up: boolean) => (points === null ? null : round(entry + (up ? 1 : -1) * points * info.point, info.digits));
    stopLoss = away(stopLoss, !buy);
    takeProfit = away(takeProfit, buy);
  }
  // An unknown symbol keeps the volume asked: the broker's refusal of the order says what is wrong.
  const limits = await connection.symbolInfo(body.symbol).catch(() => null);
  const volume = limits ? adjustedOrderVolume(body.volume, limits) : body.volume;
  const base = { symbol: body.symbol, volume, stopLoss, takeProfit, comment: body.comment, magicNumber: body.magicNumber };
  if (!pending) return { order: { ...base, orderType: type }, expiry: null };
  const seconds = body.pendingExpirySeconds ?? 0;
  const expiry = platform?.supportsPendingExpiry && seconds > 0 ? new Date(services.clock().getTime() + seconds * 1000).toISOString() : null;
  return { order: { ...base, orderType: type, openPrice: body.openPrice, expiry }, expiry };
};

/** What the positions stream records of an open request. */
export const openRequestOf = (body: OrderToPlace, order: OrderRequest, expiry: string | null, async: boolean): TradeRequest => ({
  action: 'open',
  symbol: body.symbol,
  orderType: body.orderType,
  volume: order.volume,
  openPrice: 'openPrice' in order ? order.openPrice : null,
  stopLoss: order.stopLoss ?? null,
  takeProfit: order.takeProfit ?? null,
  comment: order.comment ?? null,
  magicNumber: order.magicNumber ?? null,
  expiry,
  async,
});
