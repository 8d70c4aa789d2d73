// From an open alert to the orders to place (one per take-profit leg): the entry, stop loss and take
// profits as prices, and each leg's volume. Pure: the account's figures (balance, the value of a point,
// the symbol's limits, the quote) arrive as arguments.
//
// Sizing (README, "Charting webhook"):
//   - volume: the lots of the whole trade, split evenly over the legs;
//   - riskPercent / riskAmount: the risk of the whole trade, as the account-level FeatureRiskPerTradeDTO
//     measures it (domain/copy/features/riskPerTrade.ts: riskOf, pointValueOf): lots = risk / (points
//     from the entry to the stop loss x the value of one point of one lot), split evenly over the legs;
//     without that feature on the account the alert is refused;
//   - each leg is rounded down to the symbol's lot step, then capped by maxAllowedVolume (0/null: no
//     cap) and by the symbol's maximum; a leg below the symbol's minimum is refused, not raised.
// Distances (points) count from the entry: the ask (buy) or bid (sell) now, or a pending order's price.
import { floorToStep, roundPrice } from '../copy/rounding.js';
import type { OrderType } from '../copy/types.js';
import { pointValueOf, riskOf, type RiskPerTradeSettings } from '../copy/features/riskPerTrade.js';
import { exact, show, toNumber } from '../shared/decimal.js';
import type { Level, OpenAlert } from './message.js';

export interface SymbolLimits {
  readonly point: number;
  readonly digits: number;
  readonly minVolume: number;
  readonly maxVolume: number;
  readonly volumeStep: number;
}

export interface PlanInputs {
  readonly symbol: SymbolLimits;
  readonly quote: { readonly bid: number; readonly ask: number };
  /** maxAllowedVolume as a number (null: no cap). */
  readonly cap: number | null;
  /** The account-level FeatureRiskPerTradeDTO, null when the account has none. */
  readonly riskPerTrade: RiskPerTradeSettings | null;
  readonly balance: number | null;
  /** The venue's value of one point of one lot in the account's currency, null when unknown. */
  readonly venuePointValue: number | null;
}

export interface LegOrder {
  /** 1, 2, ... in the order the take profits were given. */
  readonly leg: number;
  readonly orderType: OrderType;
  readonly volume: number;
  /** 0 for a market order. */
  readonly openPrice: number;
  /** 0 = none. */
  readonly stopLoss: number;
  readonly takeProfit: number;
}

export type Plan = { readonly ok: true; readonly legs: readonly LegOrder[] } | { readonly ok: false; readonly reason: string };

const ORDER_TYPES = {
  buy: { market: 'Buy', limit: 'BuyLimit', stop: 'BuyStop' },
  sell: { market: 'Sell', limit: 'SellLimit', stop: 'SellStop' },
} as const;

/** A level as a price: a distance goes `up` or down from the entry. */
export const priceOfLevel = (level: Level, entry: number, up: boolean, symbol: Pick<SymbolLimits, 'point' | 'digits'>): number =>
  level.kind === 'price' ? level.value : roundPrice(entry + (up ? 1 : -1) * level.value * symbol.point, symbol.digits);

/** The orders for an open alert, or why there are none. */
export const planOpen = (alert: OpenAlert, inputs: PlanInputs): Plan => {
  const { symbol, quote } = inputs;
  const buy = alert.side === 'buy';
  const entry = alert.entry.kind === 'market' ? (buy ? quote.ask : quote.bid) : alert.entry.price;
  if (!(entry > 0)) return { ok: false, reason: `no price for ${alert.side} at the broker` };
  const stopLoss = alert.stopLoss ? priceOfLevel(alert.stopLoss, entry, !buy, symbol) : 0;
  if (alert.stopLoss && (stopLoss <= 0 || (buy ? stopLoss >= entry : stopLoss <= entry))) {
    return { ok: false, reason: `the stop loss ${show(stopLoss)} is not ${buy ? 'below' : 'above'} the entry ${show(entry)} of a ${alert.side}` };
  }
  const takeProfits = alert.takeProfits.map((l) => priceOfLevel(l, entry, buy, symbol));
  for (const tp of takeProfits) {
    if (buy ? tp <= entry : tp <= 0 || tp >= entry) {
      return { ok: false, reason: `the take profit ${show(tp)} is not ${buy ? 'above' : 'below'} the entry ${show(entry)} of a ${alert.side}` };
    }
  }
  const total = totalVolume(alert, inputs, entry, stopLoss);
  if (typeof total === 'string') return { ok: false, reason: total };
  const legs = Math.max(1, takeProfits.length);
  const step = exact(symbol.volumeStep > 0 ? symbol.volumeStep : 0.01);
  let leg = floorToStep(exact(total).dividedBy(legs), step);
  const capped: string[] = [];
  if (inputs.cap !== null && leg.greaterThan(exact(inputs.cap))) {
    leg = floorToStep(exact(inputs.cap), step);
    capped.push(`maxAllowedVolume ${show(inputs.cap)}`);
  }
  if (symbol.maxVolume > 0 && leg.greaterThan(exact(symbol.maxVolume))) leg = floorToStep(exact(symbol.maxVolume), step);
  const volume = toNumber(leg);
  if (!(volume > 0) || volume < symbol.minVolume) {
    const split = legs > 1 ? ` over ${legs} take profits` : '';
    return {
      ok: false,
      reason: `${show(total)} lots${split}${capped.length ? ` capped by ${capped.join(', ')}` : ''} gives ${show(volume)} lots a position, below the symbol's minimum ${show(symbol.minVolume)}`,
    };
  }
  const orderType = ORDER_TYPES[alert.side][alert.entry.kind];
  const openPrice = alert.entry.kind === 'market' ? 0 : alert.entry.price;
  return {
    ok: true,
    legs: Array.from({ length: legs }, (_, i) => ({ leg: i + 1, orderType, volume, openPrice, stopLoss, takeProfit: takeProfits[i] ?? 0 })),
  };
};

/** The lots of the whole trade, or why it cannot be sized. */
const totalVolume = (alert: OpenAlert, inputs: PlanInputs, entry: number, stopLoss: number): number | string => {
  const { sizing } = alert;
  if (sizing.kind === 'volume') return sizing.value;
  const rpt = inputs.riskPerTrade;
  if (!rpt) return `${sizing.kind} sizes with the account's FeatureRiskPerTradeDTO: the account has none`;
  const risk = riskOf(
    { ...rpt, absoluteRisk: sizing.kind === 'riskAmount' ? sizing.value : 0, relativeRisk: sizing.kind === 'riskPercent' ? sizing.value : 0 },
    inputs.balance,
  );
  if (risk === null) return "the account's balance is not available to size riskPercent";
  const pointValue = pointValueOf(rpt, inputs.venuePointValue);
  if (!(pointValue && pointValue > 0)) return `no value of a point of ${alert.symbol} to size the trade by its stop loss`;
  const points = Math.round(Math.abs(entry - stopLoss) / inputs.symbol.point);
  if (!(points > 0)) return 'the stop loss is at the entry';
  return toNumber(risk.dividedBy(exact(points).times(exact(pointValue))));
};
