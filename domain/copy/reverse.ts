// Reverse (CopierSettings.reverse): the slave takes the opposite side of every master trade.
//
// A reversed pending order must trigger at the same price, at the same moment, as the master's, and
// be a valid order at the slave's broker. A BuyLimit waits below the market for the price to FALL to
// it; the trade that profits from the master's loss sells when the price falls to that level, and a
// sell order below the market is a SellStop (a SellLimit below the market would be rejected, or fill
// at once). So Limit and Stop swap along with the side:
//   BuyLimit <-> SellStop   (below the market)
//   SellLimit <-> BuyStop   (above the market)
// The trigger price stays; stop loss and take profit swap, which puts each on the correct side for
// the reversed direction (a buy's stop loss below the entry is a sell's take profit).
import type { CopierSettings } from '../copier/settings.js';
import type { OrderType } from './types.js';

const REVERSED: Readonly<Record<OrderType, OrderType>> = {
  Buy: 'Sell',
  Sell: 'Buy',
  BuyLimit: 'SellStop',
  SellStop: 'BuyLimit',
  SellLimit: 'BuyStop',
  BuyStop: 'SellLimit',
};

export const slaveOrderType = (type: OrderType, reverse: boolean): OrderType => (reverse ? REVERSED[type] : type);

export interface Stops {
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
}

export const slaveStops = (master: Stops, reverse: boolean): Stops =>
  reverse ? { stopLoss: master.takeProfit, takeProfit: master.stopLoss } : { stopLoss: master.stopLoss, takeProfit: master.takeProfit };

/**
 * The stops a copy takes from the master (CopierDTO copyStopLoss, copyTakeProfit): reversed first, then
 * each flag decides about the copy's own stop loss and take profit (under reverse the copy's stop loss
 * is the master's take profit). A stop not copied is none.
 */
export const copiedStops = (master: Stops, copier: Pick<CopierSettings, 'reverse' | 'copyStopLoss' | 'copyTakeProfit'>): Stops => {
  const stops = slaveStops(master, copier.reverse);
  return { stopLoss: copier.copyStopLoss ? stops.stopLoss : null, takeProfit: copier.copyTakeProfit ? stops.takeProfit : null };
};
