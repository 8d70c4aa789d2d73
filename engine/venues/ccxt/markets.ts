// A ccxt market as the venue port's symbol (connection.ts): 1 lot = 1 unit of the market's amount (a
// coin on spot, a contract on derivatives); the volume step is the exchange's amount precision, the
// minimum volume the larger of its minimum amount and its minimum notional at the current price.
import type { Exchange, MarketInterface as Market } from 'ccxt';
import { type OrderRequest, type SymbolInfo, VenueError } from '../port.js';
import { amountAt, positive } from './orders.js';

export const idOf = (market: Market): string => market.id ?? market.symbol;

const decimalsOf = (step: number): number => Math.max(0, Math.round(-Math.log10(step)));

export const symbolInfoOf = (market: Market, quote: { bid: number; ask: number } | undefined, exchangeId: string): SymbolInfo => {
  const step = positive(market.precision.amount) ?? 1e-8;
  const tick = positive(market.precision.price) ?? 1e-8;
  const minAmount = positive(market.limits.amount?.min) ?? step;
  const minCost = positive(market.limits.cost?.min);
  const size = market.contractSize ?? 1;
  // The minimum notional at the current price, rounded up to the step: below it the exchange refuses.
  const byCost = minCost && quote && quote.ask > 0 ? Math.ceil(minCost / (quote.ask * size) / step - 1e-9) * step : 0;
  const digits = decimalsOf(step);
  return {
    symbol: idOf(market),
    description: `${market.base}/${market.quote}${market.spot ? '' : ` ${market.type}`} at ${exchangeId}`,
    digits: decimalsOf(tick),
    point: tick,
    contractSize: size,
    minVolume: Number(Math.max(minAmount, byCost).toFixed(digits)),
    maxVolume: positive(market.limits.amount?.max) ?? 1e9,
    volumeStep: step,
    stopsLevel: 0,
    marginCalcMode: market.spot ? 'forexNoLeverage' : 'cfdLeverage',
    marginRate: 1,
    baseCurrency: market.base,
    marginCurrency: market.quote,
    profitCurrency: market.quote,
    commissionPerLot: 0,
    swapLong: 0,
    swapShort: 0,
    swapRollover3Days: null,
  };
};

/** The amount of `request` at the exchange: refused with [INVALID_VOLUME] off the market's step or below its minimum amount. */
export const checkedAmount = (exchange: Exchange, market: Market, request: OrderRequest, exchangeId: string): number => {
  const amount = amountAt(exchange, market, request.volume);
  if (!(amount > 0) || Math.abs(amount - request.volume) > 1e-12)
    throw new VenueError('[INVALID_VOLUME]', `${request.volume} is not a multiple of ${request.symbol}'s step ${market.precision.amount} at ${exchangeId}`);
  const minAmount = positive(market.limits.amount?.min);
  if (minAmount && amount < minAmount - 1e-12)
    throw new VenueError('[INVALID_VOLUME]', `${amount} ${request.symbol} is below the exchange's minimum amount ${minAmount} at ${exchangeId}`);
  return amount;
};

/** Refuses with [INVALID_VOLUME] an order worth less than the market's minimum notional at `price`. */
export const checkNotional = (market: Market, request: OrderRequest, amount: number, price: number): void => {
  const minCost = positive(market.limits.cost?.min);
  if (minCost && amount * price * (market.contractSize ?? 1) < minCost)
    throw new VenueError('[INVALID_VOLUME]', `${amount} ${request.symbol} is worth less than the exchange's minimum notional ${minCost} ${market.quote}`);
};
