// The simulated dealer's symbol catalogue. Specifications follow the typical MetaTrader values of
// ../shared/research/venues.md §5.2; swaps are in points per lot per day (§5.4); margin modes and
// rates follow §5.3, with the ESMA retail caps (§5.3) expressed as MT5 margin rates on the symbols
// whose mode ignores the account leverage.
import type { SymbolInfo } from '../port.js';

/** forex: open from Sunday 22:00 to Friday 22:00 UTC (venues.md §5.4); crypto: always open. */
export type TradingSchedule = 'forex' | 'crypto';

export interface SimulatedSymbol {
  readonly info: SymbolInfo;
  readonly schedule: TradingSchedule;
  /** Bid at the start of every price path. */
  readonly initialBid: number;
  /** Spread in points in calm markets; it widens with volatility and at rollover. */
  readonly typicalSpread: number;
  /** Annualised volatility of the price path (venues.md §5.5 defaults). */
  readonly annualVolatility: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Daily rollover, and the weekly close and open of the forex schedule. */
export const ROLLOVER_HOUR_UTC = 22;

/** 0 = Sunday ... 6 = Saturday; 1970-01-01 was a Thursday. */
export const weekdayOf = (timeMs: number): number => (Math.floor(timeMs / DAY_MS) + 4) % 7;
export const hourOf = (timeMs: number): number => Math.floor(timeMs / HOUR_MS) % 24;

export const isMarketOpen = (schedule: TradingSchedule, timeMs: number): boolean => {
  if (schedule === 'crypto') return true;
  const weekday = weekdayOf(timeMs);
  const hour = hourOf(timeMs);
  if (weekday === 6) return false;
  if (weekday === 5) return hour < ROLLOVER_HOUR_UTC;
  if (weekday === 0) return hour >= ROLLOVER_HOUR_UTC;
  return true;
};

/** The second of the daily rollover, 22:00 UTC. */
export const isRollover = (timeMs: number): boolean => timeMs % DAY_MS === ROLLOVER_HOUR_UTC * HOUR_MS;

/**
 * Days of swap charged at `timeMs` (0 when it is not a rollover). Forex-schedule symbols roll over
 * at 22:00 UTC Monday to Friday, with three days on `swapRollover3Days` to pay for the weekend;
 * crypto rolls over every day (venues.md §5.4).
 */
export const swapDaysAt = (symbol: SimulatedSymbol, timeMs: number): number => {
  if (!isRollover(timeMs)) return 0;
  const weekday = weekdayOf(timeMs);
  if (symbol.schedule === 'crypto') return 1;
  if (weekday === 0 || weekday === 6) return 0;
  return weekday === symbol.info.swapRollover3Days ? 3 : 1;
};

const WEDNESDAY = 3;

const forexPair = (
  symbol: string,
  description: string,
  digits: 3 | 5,
  initialBid: number,
  typicalSpread: number,
  swapLong: number,
  swapShort: number,
  annualVolatility: number,
): SimulatedSymbol => ({
  info: {
    symbol,
    description,
    digits,
    point: 1 / 10 ** digits,
    contractSize: 100_000,
    minVolume: 0.01,
    maxVolume: 100,
    volumeStep: 0.01,
    stopsLevel: 10,
    marginCalcMode: 'forex',
    marginRate: 1,
    baseCurrency: symbol.slice(0, 3),
    marginCurrency: symbol.slice(0, 3),
    profitCurrency: symbol.slice(3, 6),
    commissionPerLot: 7,
    swapLong,
    swapShort,
    swapRollover3Days: WEDNESDAY,
  },
  schedule: 'forex',
  initialBid,
  typicalSpread,
  annualVolatility,
});

export const defaultSymbols: readonly SimulatedSymbol[] = [
  forexPair('EURUSD', 'Euro vs US Dollar', 5, 1.085, 6, -7.2, 2.1, 0.075),
  forexPair('GBPUSD', 'Great Britain Pound vs US Dollar', 5, 1.27, 9, -4.1, -1.3, 0.085),
  forexPair('USDJPY', 'US Dollar vs Japanese Yen', 3, 150, 8, 15.2, -28.7, 0.1),
  {
    info: {
      symbol: 'XAUUSD',
      description: 'Gold vs US Dollar',
      digits: 2,
      point: 0.01,
      contractSize: 100,
      minVolume: 0.01,
      maxVolume: 100,
      volumeStep: 0.01,
      stopsLevel: 50,
      marginCalcMode: 'cfdLeverage',
      marginRate: 1,
      baseCurrency: 'XAU',
      marginCurrency: 'USD',
      profitCurrency: 'USD',
      commissionPerLot: 7,
      swapLong: -45.3,
      swapShort: 22.1,
      swapRollover3Days: WEDNESDAY,
    },
    schedule: 'forex',
    initialBid: 2350,
    typicalSpread: 25,
    annualVolatility: 0.15,
  },
  {
    // Margin 5% of notional whatever the account leverage: ESMA's 20:1 for major indices.
    info: {
      symbol: 'US500',
      description: 'US 500 Cash Index CFD',
      digits: 1,
      point: 0.1,
      contractSize: 10,
      minVolume: 0.1,
      maxVolume: 50,
      volumeStep: 0.1,
      stopsLevel: 10,
      marginCalcMode: 'cfd',
      marginRate: 0.05,
      baseCurrency: 'USD',
      marginCurrency: 'USD',
      profitCurrency: 'USD',
      commissionPerLot: 0,
      swapLong: -35,
      swapShort: -12,
      swapRollover3Days: WEDNESDAY,
    },
    schedule: 'forex',
    initialBid: 5200,
    typicalSpread: 5,
    annualVolatility: 0.17,
  },
  {
    // Margin 50% of notional: ESMA's 2:1 for crypto.
    info: {
      symbol: 'BTCUSD',
      description: 'Bitcoin vs US Dollar CFD',
      digits: 2,
      point: 0.01,
      contractSize: 1,
      minVolume: 0.01,
      maxVolume: 10,
      volumeStep: 0.01,
      stopsLevel: 1000,
      marginCalcMode: 'cfd',
      marginRate: 0.5,
      baseCurrency: 'BTC',
      marginCurrency: 'USD',
      profitCurrency: 'USD',
      commissionPerLot: 0,
      swapLong: -1500,
      swapShort: -1500,
      swapRollover3Days: null,
    },
    schedule: 'crypto',
    initialBid: 65_000,
    typicalSpread: 2500,
    annualVolatility: 0.55,
  },
];
