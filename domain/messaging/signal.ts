// What a chat message asks for (the messaging connector), and the BASIC tier's parser: a grammar of the
// common signal formats, no model. The README ("Messaging connector") lists the formats with examples:
//   BUY EURUSD @ 1.0850  SL 1.0800  TP1 1.0900 TP2 1.0950     (one position per take profit)
//   🟢 Gold buy now 1920-1915, sl: 1910, tp: 1925 / 1930       (an entry range: market entry)
//   SELL LIMIT GBP/USD 1,2650 stop loss 1,2700 take profit 1,2600 lot 0.05
//   close half      close 50%      close all      close EURUSD      (a reply closes its signal's trade)
//   move SL to entry      SL to BE      breakeven      SL 1.0820 (a reply modifies its signal's trade)
// Numbers are read as the charting webhook reads them (domain/chartingWebhook/numbers.ts: decimal
// commas, thousands separators, no exponents) and bounded as its alerts are (ALERT_LIMITS). A message
// is data, never instructions: whatever it says, it can only yield one of the signals below, which the
// connector's sizing and caps then bound.
import { ALERT_LIMITS } from '../chartingWebhook/message.js';
import { parseAlertNumber } from '../chartingWebhook/numbers.js';

export type SignalSide = 'buy' | 'sell';

export interface OpenSignal {
  readonly action: 'open';
  readonly symbol: string;
  readonly side: SignalSide;
  /** market, or a pending order at `price`. */
  readonly orderType: 'market' | 'limit' | 'stop';
  /** The entry price written (a range's first bound, a pending order's price), null when none. */
  readonly entry: number | null;
  readonly stopLoss: number | null;
  readonly takeProfits: readonly number[];
  /** Lots the message names ("0.1 lot"), read by volumeMode AI only. */
  readonly volume: number | null;
}

export interface CloseSignal {
  readonly action: 'close';
  /** null: the trade of the message replied to. */
  readonly symbol: string | null;
  /** Part of the volume to close: 1 = all, 0.5 = half. */
  readonly fraction: number;
}

export interface ModifySignal {
  readonly action: 'modify';
  readonly symbol: string | null;
  /** true: the stop loss to each position's open price (break even). */
  readonly stopLossToEntry: boolean;
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
}

export type ChatSignal = OpenSignal | CloseSignal | ModifySignal;

export type ParsedSignal = { readonly ok: true; readonly signal: ChatSignal } | { readonly ok: false; readonly reason: string };

/** The most take profits a signal may have (as an alert). */
export const MAX_TAKE_PROFITS = ALERT_LIMITS.takeProfits;

/** Names traders write for instruments, as the venue names them. */
const ALIASES: Readonly<Record<string, string>> = {
  GOLD: 'XAUUSD',
  XAU: 'XAUUSD',
  SILVER: 'XAGUSD',
  XAG: 'XAGUSD',
  BTC: 'BTCUSD',
  BITCOIN: 'BTCUSD',
  ETH: 'ETHUSD',
  SPX: 'US500',
  SP500: 'US500',
  'S&P500': 'US500',
  NAS100: 'US100',
  NASDAQ: 'US100',
  DOW: 'US30',
  DJ30: 'US30',
};

const CURRENCIES = new Set(['EUR', 'USD', 'GBP', 'JPY', 'CHF', 'AUD', 'NZD', 'CAD', 'XAU', 'XAG', 'BTC', 'ETH']);
const INDICES = new Set(['US500', 'US100', 'US30', 'GER40', 'UK100', 'JP225']);

/** Words that are never a symbol, however they look. */
const NOT_SYMBOLS = new Set([
  'BUY', 'SELL', 'LONG', 'SHORT', 'LIMIT', 'STOP', 'NOW', 'ENTRY', 'CLOSE', 'HALF', 'MOVE', 'TAKE', 'PROFIT', 'LOSS', 'LOT', 'LOTS', 'SL', 'TP',
  'BE', 'THE', 'AND', 'ALL', 'PRICE', 'ZONE', 'AT', 'TO', 'VOL', 'VOLUME', 'MARKET', 'SIGNAL', 'PARTIAL', 'BREAKEVEN', 'PIPS', 'NEW', 'TRADE',
  'ORDER', 'OPEN', 'IGNORE', 'PREVIOUS', 'INSTRUCTIONS', 'SYSTEM', 'RISK', 'FREE',
]); // prettier-ignore

/** A token as a symbol, or null. */
const symbolOf = (token: string): string | null => {
  const upper = token.toUpperCase().replace(/[^A-Z0-9/&.]/g, '');
  if (upper === '' || NOT_SYMBOLS.has(upper)) return null;
  if (ALIASES[upper]) return ALIASES[upper];
  const pair = /^([A-Z]{3})\/?([A-Z]{3})(\.[A-Z]{1,4})?$/.exec(upper);
  if (pair && CURRENCIES.has(pair[1]!) && CURRENCIES.has(pair[2]!)) return `${pair[1]}${pair[2]}`;
  if (INDICES.has(upper)) return upper;
  return null;
};

/** A token that is a number, a range "1920-1915" (its first bound) or a list "1.09/1.095" (its first). */
const NUMERIC = /^[+-]?[\d.,]*\d(?:[-–/][\d.,]*\d)*$/;

/** The number of a numeric token, or null when it is none. */
const numberIn = (token: string): number | null => {
  if (!NUMERIC.test(token)) return null;
  const first = /^[+-]?[\d.,]*\d/.exec(token)![0];
  const parsed = parseAlertNumber(first.startsWith('+') ? first.slice(1) : first);
  return parsed.ok ? parsed.value : null;
};

/** A token that looks like a number ("1e308", "99999999999999999999", "-0.5") but does not read as one. */
const badNumber = (token: string): boolean => /^[+-]?\d/.test(token) && numberIn(token) === null;

class Unreadable extends Error {}
const fail = (reason: string): never => {
  throw new Unreadable(reason);
};

const price = (value: number | null, what: string): number => {
  if (value === null) return fail(`${what} has no number`);
  if (!(value > 0)) return fail(`${what} ${value} is not above 0`);
  if (value > ALERT_LIMITS.price) return fail(`${what} ${value} is out of range (at most ${ALERT_LIMITS.price})`);
  return value;
};

/** The message cut into lower-case words: punctuation that separates ("," between words, ":", "|", emoji) becomes space. */
const wordsOf = (text: string): string[] =>
  text
    .toLowerCase()
    .replace(/\bs\s*\/\s*l\b/g, 'sl')
    .replace(/\bt\s*\/\s*p\b/g, 'tp')
    .replace(/stop\s*-?\s*loss/g, 'sl')
    .replace(/take\s*-?\s*profit(?:\s*(\d)(?![\d.,]))?/g, (_m, n: string | undefined) => `tp${n ?? ''} `)
    .replace(/break\s*-?\s*even/g, 'be')
    .replace(/\b(tp|sl)\s+([1-9])\s*[:=)]/g, '$1$2 ')
    .replace(/[:=|@!?*()[\]{}"'`~<>#]/g, ' ')
    .replace(/,(\s|$)/g, ' ')
    .replace(/\s\/\s/g, ' ')
    .replace(/[^\p{L}\p{N}\s.,/%&+-]/gu, ' ')
    .split(/\s+/)
    .filter((w) => w !== '' && w !== '-');

const isSlWord = (w: string) => w === 'sl' || w === 'stop' || w === 'stoploss';
const tpWord = (w: string) => /^tp\d?$/.test(w) || w === 'target' || /^target\d$/.test(w);

/** Reads a message; a reply's words may name no symbol (the trade replied to is meant). */
export const parseBasicSignal = (text: string): ParsedSignal => {
  try {
    if (text.length > ALERT_LIMITS.text) fail(`the message is longer than ${ALERT_LIMITS.text} characters`);
    return { ok: true, signal: readSignal(text) };
  } catch (error) {
    if (error instanceof Unreadable) return { ok: false, reason: error.message };
    throw error;
  }
};

const readSignal = (text: string): ChatSignal => {
  const words = wordsOf(text);
  if (words.length === 0) fail('no words');
  const joined = ` ${words.join(' ')} `;
  let symbol: string | null = null;
  for (const w of words) {
    const s = symbolOf(w);
    if (s) {
      if (symbol && symbol !== s) fail(`two symbols: ${symbol} and ${s}`);
      symbol = s;
    }
  }
  // Management first: "close half", "move sl to entry", "sl to be".
  if (/ (close|exit|cerrar|schließen|fermer)\b/.test(joined) || /^ (close|exit)/.test(joined)) {
    const percent = /(\d{1,3}(?:[.,]\d+)?)\s?%/.exec(joined);
    let fraction = 1;
    if (/\b(half|partial|50 ?%)/.test(joined)) fraction = 0.5;
    else if (percent) {
      const value = numberIn(percent[1]!);
      if (value === null || !(value > 0) || value > 100) fail(`close ${percent[1]}% is not a part from 0 to 100`);
      fraction = value! / 100;
    }
    return { action: 'close', symbol, fraction };
  }
  if (/ (sl|stop) (to|at|on) (entry|be|open|breakeven)\b/.test(joined) || / be (now|reached)?\s*$/.test(joined) || /^ (move )?(to )?be /.test(joined)) {
    return { action: 'modify', symbol, stopLossToEntry: true, stopLoss: null, takeProfit: null };
  }
  let side: SignalSide | null = null;
  let orderType: OpenSignal['orderType'] = 'market';
  let entry: number | null = null;
  let stopLoss: number | null = null;
  const takeProfits: number[] = [];
  let volume: number | null = null;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const next = words[i + 1] ?? '';
    if (w === 'buy' || w === 'long' || w === 'compra' || w === 'kaufen' || w === 'achat') {
      if (side && side !== 'buy') fail('both buy and sell');
      side = 'buy';
      if (next === 'limit' || next === 'stop') {
        orderType = next;
        i++;
      }
      continue;
    }
    if (w === 'sell' || w === 'short' || w === 'venta' || w === 'verkaufen' || w === 'vente') {
      if (side && side !== 'sell') fail('both buy and sell');
      side = 'sell';
      if (next === 'limit' || next === 'stop') {
        orderType = next;
        i++;
      }
      continue;
    }
    if (isSlWord(w) && !(w === 'stop' && side && words[i - 1] && (words[i - 1] === 'buy' || words[i - 1] === 'sell'))) {
      if (badNumber(next)) fail(`the stop loss "${next.slice(0, 30)}" is not a number`);
      const value = numberIn(next);
      if (value === null) continue;
      if (stopLoss !== null && stopLoss !== value) fail('the stop loss is given twice');
      stopLoss = price(value, 'the stop loss');
      i++;
      continue;
    }
    if (tpWord(w)) {
      // "tp 1.09 / 1.095 1.1": every number up to the next keyword.
      let j = i + 1;
      let read = 0;
      while (j < words.length) {
        if (badNumber(words[j]!)) fail(`the take profit "${words[j]!.slice(0, 30)}" is not a number`);
        const parts = words[j]!.split('/').filter(Boolean);
        const values = parts.map(numberIn);
        if (values.length === 0 || values.some((v) => v === null)) break;
        for (const v of values) takeProfits.push(price(v, 'a take profit'));
        read++;
        j++;
        if (!/^tp\d?$/.test(w)) break;
        if (/^tp\d$/.test(w)) break;
      }
      if (read === 0 && !/^target/.test(w)) fail(`"${w}" has no number`);
      i = j - 1;
      continue;
    }
    if (w === 'lot' || w === 'lots' || w === 'vol' || w === 'volume' || w === 'size') {
      if (badNumber(next)) fail(`the volume "${next.slice(0, 30)}" is not a number`);
      const after = numberIn(next);
      const before = numberIn(words[i - 1] ?? '');
      const value = after ?? before;
      if (value === null) continue;
      if (value <= 0) fail(`volume ${value} is not above 0`);
      if (value > ALERT_LIMITS.volume) fail(`volume ${value} is out of range (at most ${ALERT_LIMITS.volume})`);
      volume = value;
      if (after !== null) i++;
      continue;
    }
    if ((w === 'entry' || w === 'price' || w === 'at' || w === 'now' || w === 'zone') && entry === null) {
      if (badNumber(next)) fail(`the entry "${next.slice(0, 30)}" is not a number`);
      const value = numberIn(next);
      if (value !== null) {
        entry = price(value, 'the entry');
        i++;
      }
      continue;
    }
    // A bare number after the side (and symbol): the entry, or the first bound of a range "1920-1915".
    if (entry === null && side !== null && numberIn(w) !== null && !/%$/.test(w) && stopLoss === null && takeProfits.length === 0) {
      const value = numberIn(w)!;
      if (value < 0) fail(`the entry ${value} is not above 0`);
      const following = words[i + 1] ?? '';
      if (following === 'lot' || following === 'lots') continue;
      entry = price(value, 'the entry');
    }
  }
  if (side === null) {
    if (stopLoss !== null || takeProfits.length > 0) {
      return { action: 'modify', symbol, stopLossToEntry: false, stopLoss, takeProfit: takeProfits[0] ?? null };
    }
    return fail('no buy or sell, close, or stop loss / take profit change');
  }
  if (symbol === null) return fail('no symbol (EURUSD, EUR/USD, XAUUSD, GOLD, BTCUSD, US500, ...)');
  if (takeProfits.length > MAX_TAKE_PROFITS) fail(`more than ${MAX_TAKE_PROFITS} take profits`);
  if (orderType !== 'market' && entry === null) fail(`a ${side} ${orderType} needs its price`);
  const reference = entry;
  if (reference !== null) {
    const buy = side === 'buy';
    if (stopLoss !== null && (buy ? stopLoss >= reference : stopLoss <= reference)) {
      fail(`the stop loss ${stopLoss} is not ${buy ? 'below' : 'above'} the entry ${reference} of a ${side}`);
    }
    for (const tp of takeProfits) {
      if (buy ? tp <= reference : tp >= reference) fail(`the take profit ${tp} is not ${buy ? 'above' : 'below'} the entry ${reference} of a ${side}`);
    }
  }
  return { action: 'open', symbol, side, orderType, entry, stopLoss, takeProfits, volume };
};

/** A signal in words, for the log. */
export const describeSignal = (signal: ChatSignal): string => {
  switch (signal.action) {
    case 'open': {
      const parts = [
        `${signal.side}${signal.orderType === 'market' ? '' : ` ${signal.orderType}`} ${signal.symbol}`,
        signal.entry !== null ? `entry ${signal.entry}` : null,
        signal.stopLoss !== null ? `sl ${signal.stopLoss}` : null,
        signal.takeProfits.length ? `tp ${signal.takeProfits.join('/')}` : null,
        signal.volume !== null ? `${signal.volume} lots` : null,
      ];
      return parts.filter(Boolean).join(', ');
    }
    case 'close':
      return `close ${signal.fraction === 1 ? 'all' : `${Math.round(signal.fraction * 100)}%`}${signal.symbol ? ` of ${signal.symbol}` : ''}`;
    case 'modify':
      return signal.stopLossToEntry
        ? `stop loss to entry${signal.symbol ? ` of ${signal.symbol}` : ''}`
        : [signal.stopLoss !== null ? `sl ${signal.stopLoss}` : null, signal.takeProfit !== null ? `tp ${signal.takeProfit}` : null].filter(Boolean).join(', ');
  }
};
