// Events of an account's keep-alive trades (stream `keepAlive-<accountId>`, FeatureKeepAliveTradeDTO
// set on the account; rules in domain/copy/features/keepAliveTrade.ts): what the keep-alive executor
// (engine/schedule/keepAliveTrades.ts) decided at each firing of the feature's cron expressions and what
// came of it. Each firing is decided once: a trade (recorded before its order is sent, with the client
// order id every attempt sends, so a crash between the order and its record places nothing twice) or a
// skip with its reason; the trade's open, its close closeAfterInSeconds later, and every refusal of the
// broker follow, each with its line in the account's log.

/** A firing of an account's keep-alive feature. */
export interface KeepAliveFiring {
  readonly accountId: string;
  readonly featureId: string;
  /** When the cron expressions fired (ISO, UTC). */
  readonly firing: string;
}

/** The trade decided for a firing. */
export interface KeepAliveOrder extends KeepAliveFiring {
  readonly symbol: string;
  readonly side: 'Buy' | 'Sell';
  readonly volume: number;
  readonly closeAfterInSeconds: number;
  /** Sent with every attempt at placing it: the broker answers a repeat with the first result. */
  readonly clientOrderId: string;
}

/** An open keep-alive trade. */
export interface KeepAliveTrade extends KeepAliveOrder {
  readonly positionId: string;
  readonly price: number;
  readonly openedAt: string;
}

export type KeepAliveSkipReason = 'PREVIOUS_STILL_OPEN' | 'ACCOUNT_ACTIVE' | 'SYMBOL_NOT_FOUND' | 'RISK_LIMIT_HIT' | 'PROFIT_TARGET_LOCKED';

export type KeepAliveEvent =
  /** The firing's trade, decided before its order is sent. */
  | { type: 'KeepAliveTradeDecided'; data: KeepAliveOrder & { readonly at: string } }
  | { type: 'KeepAliveTradeOpened'; data: KeepAliveTrade & { readonly at: string } }
  /** The firing places no trade, and why. */
  | { type: 'KeepAliveTradeSkipped'; data: KeepAliveFiring & { readonly reason: KeepAliveSkipReason; readonly message: string; readonly at: string } }
  /**
   * The broker refused the open (stage 'open': tried again every second until the next firing; final:
   * the next firing came, not tried again) or the close (stage 'close': tried again every second).
   * Recorded once per code and stage.
   */
  | {
      type: 'KeepAliveTradeRefused';
      data: KeepAliveOrder & {
        readonly stage: 'open' | 'close';
        readonly positionId: string | null;
        readonly code: string;
        readonly message: string;
        readonly final: boolean;
        readonly at: string;
      };
    }
  /** Closed closeAfterInSeconds after it opened (gone: no longer open at the venue, closed by hand or by its broker). */
  | {
      type: 'KeepAliveTradeClosed';
      data: KeepAliveTrade & { readonly closePrice: number | null; readonly result: number | null; readonly gone: boolean; readonly at: string };
    };

export type KeepAliveEventType = KeepAliveEvent['type'];
export const keepAliveEventTypes: readonly KeepAliveEventType[] = [
  'KeepAliveTradeDecided',
  'KeepAliveTradeOpened',
  'KeepAliveTradeSkipped',
  'KeepAliveTradeRefused',
  'KeepAliveTradeClosed',
];

export const KEEP_ALIVE_STREAM_PREFIX = 'keepAlive-';
export const keepAliveStream = (accountId: string): string => `${KEEP_ALIVE_STREAM_PREFIX}${accountId}`;

/** What makes an event the same event: the executor's event ids derive from it (uuid v5). */
export const keepAliveEventKey = (event: KeepAliveEvent): string => {
  const d = event.data;
  const firing = `${d.accountId}/${d.featureId}/${d.firing}`;
  switch (event.type) {
    case 'KeepAliveTradeDecided':
      return `decided/${firing}`;
    case 'KeepAliveTradeOpened':
      return `opened/${firing}`;
    case 'KeepAliveTradeSkipped':
      return `skipped/${firing}`;
    case 'KeepAliveTradeRefused':
      return `refused/${firing}/${event.data.stage}/${event.data.code}/${event.data.final}/${event.data.at}`;
    case 'KeepAliveTradeClosed':
      return `closed/${firing}`;
  }
};

/**
 * What the client order id of every keep-alive trade begins with: the positions read model and the copy
 * rules tell them apart by it (a master's keep-alive trade is its own, never copied).
 */
export const KEEP_ALIVE_ORDER_PREFIX = 'keepalive-';

/** Whether a client order id is a keep-alive trade's. */
export const isKeepAliveOrder = (clientOrderId: string | null | undefined): boolean => clientOrderId?.startsWith(KEEP_ALIVE_ORDER_PREFIX) ?? false;
