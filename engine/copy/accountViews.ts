// What the account-scope risk rules read from the slave's venue (features/rules.ts needs 'positions',
// 'pointValue', 'margin'): its open positions, the value of a point of a symbol in its currency, its
// figures.
import type { AccountPosition, SlaveAccountView } from '../../domain/copy/features/rules.js';
import type { AccountInformation, OpenPosition, VenueConnection, VenuePosition } from '../venues/port.js';
import { pairConversion } from './currencyRate.js';

export const accountPositionsOf = (book: readonly VenuePosition[]): AccountPosition[] =>
  book
    .filter((p): p is OpenPosition => p.kind === 'position')
    .map((p) => ({
      positionId: p.id,
      symbol: p.symbol,
      side: p.orderType === 'buy' ? 'Buy' : 'Sell',
      volume: p.volume,
      openPrice: p.openPrice,
      stopLoss: p.stopLoss,
      takeProfit: p.takeProfit,
      result: p.profit + p.swap,
    }));

export const slaveAccountViewOf = (info: AccountInformation): SlaveAccountView => ({
  balance: info.balance,
  equity: info.equity,
  usedMargin: info.margin,
  freeMargin: info.freeMargin,
  leverage: info.leverage,
  currency: info.currency,
});

/**
 * The value, in the account's currency, of a one-point move of one lot of `symbol` now: contract size
 * x point in the symbol's profit currency, converted at the mid of the pair that links the two
 * currencies at the same venue (PROFITACCOUNT, or the inverse of ACCOUNTPROFIT), as a dealer converts
 * profit. Null when the venue offers no such pair or does not know the symbol.
 */
export const pointValueOf = async (connection: VenueConnection, symbol: string, accountCurrency: string): Promise<number | null> => {
  const info = await connection.symbolInfo(symbol).catch(() => null);
  if (!info || !(info.contractSize > 0) || !(info.point > 0)) return null;
  const inProfitCurrency = info.contractSize * info.point;
  const profit = info.profitCurrency.toUpperCase();
  const account = accountCurrency.toUpperCase();
  if (profit === account) return inProfitCurrency;
  const convert = await pairConversion(connection, profit, account);
  return convert ? convert(inProfitCurrency) : null;
};
