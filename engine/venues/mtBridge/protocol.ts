// The MetaTrader bridge protocol, version 1 (PROTOCOL.md beside this file is its documentation): the
// Expert Advisor in the user's terminal connects out to the service over WebSocket (ws:// or wss://),
// and both sides send newline-delimited JSON, one or more lines per text frame. These types are the
// one description of the messages: the server (server.ts), the fake terminal of the tests and the
// EAs (ea/*.mq4, ea/*.mq5) follow them.
import { createHash } from 'node:crypto';
import type { CloseReason, MarginMode, PendingOrderType, Side, SymbolInfo } from '../port.js';

export const MT_BRIDGE_PROTOCOL = 1;
/** WebSocket close codes of the bridge (4000-4999 are the application's). */
export const CLOSE_INVALID_CREDENTIALS = 4001;
export const CLOSE_PROTOCOL_ERROR = 4002;
export const CLOSE_REPLACED = 4003;
export const CLOSE_SERVER_STOPPING = 4004;

/** The prefix of an order comment that carries the engine's client order id (ct: + 22 base64url characters = 25 ≤ MT's 31). */
export const TAG_PREFIX = 'ct:';

// ------------------------------------------------------------------ what the terminal reports

export interface MtPosition {
  /** MT5 position ticket, MT4 order ticket. */
  readonly id: string;
  readonly symbol: string;
  readonly side: Side;
  readonly volume: number;
  readonly openPrice: number;
  /** ISO 8601 UTC (the EA converts from the server time with its offset). */
  readonly openTime: string;
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  readonly currentPrice: number;
  readonly profit: number;
  readonly swap: number;
  readonly commission: number;
  readonly comment: string | null;
  readonly magic: number | null;
}

export interface MtOrder {
  readonly id: string;
  readonly symbol: string;
  readonly type: PendingOrderType;
  readonly volume: number;
  readonly openPrice: number;
  readonly openTime: string;
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  readonly expiry: string | null;
  readonly currentPrice: number;
  readonly comment: string | null;
  readonly magic: number | null;
}

/** One closed volume: MT5 an exit deal with its position's entry, MT4 a closed order of the history. */
export interface MtTrade {
  readonly id: string;
  readonly positionId: string;
  readonly symbol: string;
  readonly side: Side;
  readonly volume: number;
  readonly openPrice: number;
  readonly openTime: string;
  readonly closePrice: number;
  readonly closeTime: string;
  readonly profit: number;
  readonly swap: number;
  readonly commission: number;
  readonly reason: CloseReason;
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  /** The comment of the position that closed (its tag, when the service opened it). */
  readonly comment: string | null;
  readonly magic: number | null;
}

export interface MtBalance {
  readonly id: string;
  readonly time: string;
  readonly amount: number;
  readonly comment: string | null;
}

export interface MtAccount {
  readonly balance: number;
  readonly credit: number;
  readonly equity: number;
  readonly margin: number;
  readonly freeMargin: number;
  readonly marginLevel: number | null;
  readonly stopOutLevel: number;
  readonly profit: number;
}

/** A symbol as the terminal describes it: the port's SymbolInfo, member for member (MQL's SymbolInfo* values). */
export type MtSymbol = SymbolInfo;

export interface MtQuote {
  readonly symbol: string;
  readonly bid: number;
  readonly ask: number;
  readonly time: string;
}

export interface HelloMessage {
  readonly type: 'hello';
  readonly protocol: number;
  /** An account-level API key of the service account this terminal trades for. */
  readonly token: string;
  readonly platform: 'MT4' | 'MT5';
  readonly login: string;
  readonly server: string;
  readonly company?: string;
  readonly currency: string;
  readonly leverage: number;
  readonly marginMode: MarginMode;
  /** ACCOUNT_TRADE_MODE: demo, contest or real. */
  readonly tradeMode: 'demo' | 'contest' | 'real';
  readonly build?: number;
}

/**
 * The terminal's book after a change (and once right after welcome): every open position and pending
 * order, with the closed trades and balance operations that happened since the previous book. Trades
 * come in the same message as the book that no longer holds their volume.
 */
export interface BookMessage {
  readonly type: 'book';
  readonly positions: readonly MtPosition[];
  readonly orders: readonly MtOrder[];
  readonly trades: readonly MtTrade[];
  readonly balances: readonly MtBalance[];
  readonly account: MtAccount;
}

export interface ReplyMessage {
  readonly type: 'reply';
  readonly id: string;
  readonly ok: boolean;
  readonly result?: unknown;
  /** MT5 TRADE_RETCODE_* or MT4 error number of a refusal. */
  readonly retcode?: number;
  readonly message?: string;
}

export interface PongMessage {
  readonly type: 'pong';
}

export type TerminalMessage = HelloMessage | BookMessage | ReplyMessage | PongMessage;

// ------------------------------------------------------------------ what the service sends

export interface WelcomeMessage {
  readonly type: 'welcome';
  readonly protocol: number;
  readonly accountId: string;
  /** The terminal sends `pong` to every `ping`; the service pings this often and drops a silent terminal after three. */
  readonly heartbeatSeconds: number;
}

export interface ErrorMessage {
  readonly type: 'error';
  readonly code: string;
  readonly message: string;
}

export interface PingMessage {
  readonly type: 'ping';
}

export type Command =
  | { readonly op: 'account' }
  | { readonly op: 'book' }
  | { readonly op: 'history'; readonly from: string; readonly to: string }
  | {
      readonly op: 'open';
      /** TAG_PREFIX + the client order id: the EA places nothing when a position, order or deal carries it already. */
      readonly tag: string;
      readonly symbol: string;
      readonly orderType: Side | PendingOrderType;
      readonly volume: number;
      /** Pending orders only. */
      readonly price?: number;
      readonly stopLoss: number | null;
      readonly takeProfit: number | null;
      readonly expiry: string | null;
      readonly magic: number | null;
    }
  | {
      readonly op: 'modify';
      readonly tag: string | null;
      readonly id: string;
      readonly volume?: number;
      readonly price?: number;
      readonly stopLoss?: number | null;
      readonly takeProfit?: number | null;
    }
  | { readonly op: 'close'; readonly tag: string | null; readonly id: string; readonly volume: number | null }
  | { readonly op: 'cancel'; readonly tag: string | null; readonly id: string }
  | { readonly op: 'symbols' }
  | { readonly op: 'quote'; readonly symbol: string }
  | { readonly op: 'margin'; readonly symbol: string; readonly side: Side; readonly volume: number };

export type RequestMessage = { readonly type: 'request'; readonly id: string } & Command;

export type ServiceMessage = WelcomeMessage | ErrorMessage | PingMessage | RequestMessage;

// ------------------------------------------------------------------ replies by op

/** `open`: what the order did. `existing` says the tag was found and nothing was placed. */
export type OpenResult =
  | {
      readonly status: 'filled';
      readonly order: string;
      readonly position: string | null;
      readonly price: number;
      readonly volume: number;
      readonly time: string;
      readonly existing?: boolean;
    }
  | { readonly status: 'placed'; readonly order: string; readonly price: number; readonly volume: number; readonly time: string; readonly existing?: boolean };

export interface HistoryResult {
  readonly trades: readonly MtTrade[];
  readonly balances: readonly MtBalance[];
}

export interface BookResult {
  readonly positions: readonly MtPosition[];
  readonly orders: readonly MtOrder[];
}

// ------------------------------------------------------------------ framing

/** Splits a frame into its JSON lines; a line that is not a JSON object throws. */
export const parseLines = (frame: string): Record<string, unknown>[] =>
  frame
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => {
      const value: unknown = JSON.parse(line);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('a protocol line must be a JSON object');
      return value as Record<string, unknown>;
    });

export const line = (message: object): string => `${JSON.stringify(message)}\n`;

// ------------------------------------------------------------------ the client order id in a comment

/** `ct:` + the 16 bytes of the UUID in base64url (22 characters). */
export const tagOf = (clientOrderId: string): string => {
  const hex = clientOrderId.replace(/-/g, '');
  if (/^[0-9a-f]{32}$/i.test(hex)) return TAG_PREFIX + Buffer.from(hex, 'hex').toString('base64url');
  // Not a UUID (the engine's ids are): the id itself when it fits the 31 characters of an MT comment,
  // else 21 bytes of its SHA-256 (the ledger maps the tags it sent back to their ids).
  return TAG_PREFIX + (clientOrderId.length <= 28 ? clientOrderId : createHash('sha256').update(clientOrderId).digest('base64url').slice(0, 28));
};

/** The client order id a tagged comment carries (UUID tags only), or null. */
export const clientOrderIdOf = (comment: string | null): string | null => {
  if (!comment?.startsWith(TAG_PREFIX)) return null;
  const body = comment.slice(TAG_PREFIX.length);
  if (!/^[A-Za-z0-9_-]{22}$/.test(body)) return null;
  const hex = Buffer.from(body, 'base64url').toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** MT5 TRADE_RETCODE_* and MT4 error numbers, as the Trading API's codes. */
export const retcodeError = (retcode: number | undefined): import('../port.js').VenueErrorCode => {
  switch (retcode) {
    case 10013: // TRADE_RETCODE_INVALID
    case 3: // ERR_INVALID_TRADE_PARAMETERS
      return '[INVALID_REQUEST]';
    case 10014: // TRADE_RETCODE_INVALID_VOLUME
    case 131: // ERR_INVALID_TRADE_VOLUME
      return '[INVALID_VOLUME]';
    case 10015: // TRADE_RETCODE_INVALID_PRICE
    case 129: // ERR_INVALID_PRICE
    case 138: // ERR_REQUOTE
    case 10004: // TRADE_RETCODE_REQUOTE
    case 10021: // TRADE_RETCODE_PRICE_OFF
      return '[INVALID_PRICE]';
    case 10016: // TRADE_RETCODE_INVALID_STOPS
    case 130: // ERR_INVALID_STOPS
      return '[INVALID_STOPS]';
    case 10022: // TRADE_RETCODE_INVALID_EXPIRATION
    case 147: // ERR_TRADE_EXPIRATION_DENIED
      return '[INVALID_EXPIRATION]';
    case 10019: // TRADE_RETCODE_NO_MONEY
    case 134: // ERR_NOT_ENOUGH_MONEY
      return '[NOT_ENOUGH_MONEY]';
    case 10018: // TRADE_RETCODE_MARKET_CLOSED
    case 132: // ERR_MARKET_CLOSED
      return '[MARKET_CLOSED]';
    case 10036: // TRADE_RETCODE_POSITION_CLOSED
    case 4108: // ERR_INVALID_TICKET
      return '[POSITION_NOT_FOUND]';
    case 4106: // ERR_UNKNOWN_SYMBOL
    case 4301: // ERR_MARKET_UNKNOWN_SYMBOL (MT5)
      return '[SYMBOL_NOT_FOUND]';
    case 10031: // TRADE_RETCODE_CONNECTION
    case 6: // ERR_NO_CONNECTION
      return '[NOT_CONNECTED]';
    default:
      return '[INVALID_REQUEST]';
  }
};
