// Validation helpers: what a request must hold before the dealer acts on it (venues.md §5.4), each
// refusal a VenueError with the code the port names.
//
// Volumes are whole numbers of 10^-8 lots. Prices are the doubles nearest their decimals, which
// compare exactly.
import { type PendingOrderType, type Side, type SymbolInfo, VenueError } from '../port.js';
import { type FeedQuote, roundToDigits } from './prices.js';

/**
 * Volumes are read to 8 decimals: enough to absorb binary noise (0.1 + 0.2 = 0.30000000000000004
 * is 0.3 lots) while 0.075 stays 0.075 and fails a 0.01 step.
 */
const VOLUME_UNITS_PER_LOT = 1e8;
/** Prices are read to within a millionth of a point of the tick grid, for the same reason. */
const PRICE_TOLERANCE_TICKS = 1e-6;

export const fail = (code: ConstructorParameters<typeof VenueError>[0], message: string, details?: Record<string, unknown>): never => {
  throw new VenueError(code, message, details);
};

export const volumeUnits = (lots: number): number => Math.round(lots * VOLUME_UNITS_PER_LOT);
export const lotsOf = (units: number): number => units / VOLUME_UNITS_PER_LOT;

/** The volume as exact lots, or [INVALID_VOLUME] when off the step or outside min..max. */
export const checkedVolume = (info: SymbolInfo, lots: unknown): number => {
  if (typeof lots !== 'number' || !Number.isFinite(lots) || lots <= 0) {
    return fail('[INVALID_VOLUME]', `volume must be a positive number of lots`, { volume: lots });
  }
  const units = volumeUnits(lots);
  const step = volumeUnits(info.volumeStep);
  if (units < volumeUnits(info.minVolume) || units > volumeUnits(info.maxVolume) || units % step !== 0) {
    return fail('[INVALID_VOLUME]', `${info.symbol} takes ${info.minVolume} to ${info.maxVolume} lots in steps of ${info.volumeStep}, not ${lots}`, {
      volume: lots,
      minVolume: info.minVolume,
      maxVolume: info.maxVolume,
      volumeStep: info.volumeStep,
    });
  }
  return lotsOf(units);
};

const ticksOf = (price: number, digits: number): number => Math.round(price * 10 ** digits);

/** The price on the symbol's tick grid, or the given error code. */
export const checkedPrice = (info: SymbolInfo, price: unknown, code: '[INVALID_PRICE]' | '[INVALID_STOPS]', what: string): number => {
  if (typeof price !== 'number' || !Number.isFinite(price) || price <= 0) return fail(code, `${what} must be a positive price`);
  const scaled = price * 10 ** info.digits;
  if (Math.abs(scaled - Math.round(scaled)) > PRICE_TOLERANCE_TICKS) {
    return fail(code, `${what} ${price} is not a multiple of ${info.symbol}'s point ${info.point}`);
  }
  return roundToDigits(price, info.digits);
};

export const optionalStop = (info: SymbolInfo, price: number | null | undefined, what: string): number | null =>
  price === undefined || price === null ? null : checkedPrice(info, price, '[INVALID_STOPS]', what);

/** `from` must be at least the stops level (and one point) above `to` (venues.md §5.4). */
const requireGap = (info: SymbolInfo, above: number, below: number, code: '[INVALID_PRICE]' | '[INVALID_STOPS]', what: string): void => {
  const gap = ticksOf(above, info.digits) - ticksOf(below, info.digits);
  const needed = Math.max(1, info.stopsLevel);
  if (gap < needed) {
    fail(code, `${what}: ${info.symbol} needs ${needed} points on the right side, got ${gap}`, { points: gap, stopsLevel: info.stopsLevel });
  }
};

/**
 * SL and TP against their reference price: the close side of the market for a position (bid for a
 * buy, ask for a sell), the open price for a pending order (venues.md §5.4).
 */
export const checkStops = (info: SymbolInfo, side: Side, reference: number, stopLoss: number | null, takeProfit: number | null): void => {
  if (side === 'buy') {
    if (stopLoss !== null) requireGap(info, reference, stopLoss, '[INVALID_STOPS]', 'stop loss of a buy');
    if (takeProfit !== null) requireGap(info, takeProfit, reference, '[INVALID_STOPS]', 'take profit of a buy');
  } else {
    if (stopLoss !== null) requireGap(info, stopLoss, reference, '[INVALID_STOPS]', 'stop loss of a sell');
    if (takeProfit !== null) requireGap(info, reference, takeProfit, '[INVALID_STOPS]', 'take profit of a sell');
  }
};

/** Limits below/above the market, stops beyond it, each at least the stops level away (venues.md §5.4). */
export const checkPendingPrice = (info: SymbolInfo, type: PendingOrderType, price: number, quote: FeedQuote): void => {
  switch (type) {
    case 'buyLimit':
      return requireGap(info, quote.ask, price, '[INVALID_PRICE]', 'a buy limit goes below the ask');
    case 'sellLimit':
      return requireGap(info, price, quote.bid, '[INVALID_PRICE]', 'a sell limit goes above the bid');
    case 'buyStop':
      return requireGap(info, price, quote.ask, '[INVALID_PRICE]', 'a buy stop goes above the ask');
    case 'sellStop':
      return requireGap(info, quote.bid, price, '[INVALID_PRICE]', 'a sell stop goes below the bid');
  }
};

export const checkedText = (value: unknown, what: string): string | null => {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return fail('[INVALID_REQUEST]', `${what} must be a string`);
  return value;
};

export const checkedMagic = (value: unknown): number | null => {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) return fail('[INVALID_REQUEST]', 'magicNumber must be an integer');
  return value;
};

export const checkedTime = (value: string, what: string, code: '[INVALID_REQUEST]' | '[INVALID_EXPIRATION]'): number => {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) fail(code, `${what} must be an ISO 8601 time`);
  return ms;
};

/** A time as the ISO 8601 text the records and changes carry; the inverse of checkedTime. */
export const iso = (ms: number): string => new Date(ms).toISOString();
