// A ccxt account's AccountInformation (connection.ts) from its balance in the account currency and its
// replayed book: on spot the coins bought are worth their cost plus their floating profit; on
// derivatives the balance is the margin wallet, the equity adds the floating profit.
import type { AccountInformation } from '../port.js';
import type { ReplayedBook } from './book.js';

export const round2 = (value: number): number => Math.round(value * 100) / 100;

/** OKX's cash balance of `currency` (cashBal of /api/v5/account/balance: its eq, ccxt's total, includes the swaps' floating profit). */
export const cashOf = (info: unknown, currency: string): number | undefined => {
  const data = (info as { data?: { details?: { ccy?: string; cashBal?: string }[] }[] } | undefined)?.data;
  const cash = Number(data?.[0]?.details?.find((d) => d.ccy === currency)?.cashBal);
  return Number.isFinite(cash) ? cash : undefined;
};

export interface AccountFacts {
  readonly login: string;
  readonly currency: string;
  readonly spot: boolean;
  /** The cash balance where the quote's total is the equity (OKX: its cashBal, cashOf); undefined: the total. */
  readonly cash?: number;
  readonly live: boolean;
  readonly connected: boolean;
  /** The balance of the account currency (ccxt's free, used, total). */
  readonly quote: { readonly free?: number; readonly used?: number; readonly total?: number };
  readonly book: ReplayedBook;
  readonly contractSize: (symbol: string) => number;
}

export const accountInformationOf = (a: AccountFacts): AccountInformation => {
  const open = a.book.positions;
  const unrealized = open.reduce((sum, p) => sum + p.profit, 0);
  const cash = a.cash ?? a.quote.total ?? 0;
  const cost = open.reduce((sum, p) => sum + p.volume * p.openPrice * a.contractSize(p.symbol), 0);
  const balance = a.spot ? cash + cost : cash;
  const equity = balance + unrealized;
  const margin = a.spot ? 0 : (a.quote.used ?? 0);
  return {
    login: a.login,
    currency: a.currency,
    leverage: 1,
    marginMode: 'netting',
    balance: round2(balance),
    credit: 0,
    equity: round2(equity),
    margin: round2(margin),
    freeMargin: round2(a.quote.free ?? 0),
    marginLevel: margin > 0 ? round2((equity / margin) * 100) : null,
    stopOutLevel: 0,
    unrealizedProfit: round2(unrealized),
    openPositionsCount: open.length,
    pendingOrdersCount: a.book.pending.length,
    connected: a.connected,
    environment: a.live ? 'LIVE' : 'DEMO',
  };
};
