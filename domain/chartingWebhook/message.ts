// What a charting alert asks for, and how its text is read (the README, "Charting webhook", documents the
// grammar with examples). Two formats arrive at the same address:
//   - JSON: an object of the members below (numbers as JSON numbers or as strings, so platform
//     placeholders like "{{strategy.order.contracts}}" fill in); unknown members are refused;
//   - text: words and key=value pairs in any order, separated by spaces, new lines or ";":
//       buy EURUSD 0.1 sl=1.0850 tp=1.0950/1.1000 comment=breakout
//       close EURUSD            flat XAUUSD long            modify EURUSD sl=1.0870
//       sell limit US500 risk=1% price=5010 sl=30pts tp=60pts
// Refusals say what is wrong; nothing is traded for an alert that does not read.
import { parseAlertNumber } from './numbers.js';

export type AlertSide = 'buy' | 'sell';

/** A stop loss or take profit: a price, or a distance in points (the symbol's smallest price step) from the entry. */
export type Level = { readonly kind: 'price'; readonly value: number } | { readonly kind: 'points'; readonly value: number };

export type Sizing =
  | { readonly kind: 'volume'; readonly value: number }
  | { readonly kind: 'riskPercent'; readonly value: number }
  | { readonly kind: 'riskAmount'; readonly value: number };

export type Entry = { readonly kind: 'market' } | { readonly kind: 'limit' | 'stop'; readonly price: number };

export interface OpenAlert {
  readonly action: 'open';
  readonly symbol: string;
  readonly side: AlertSide;
  readonly entry: Entry;
  readonly sizing: Sizing;
  readonly stopLoss: Level | null;
  /** One position per take profit; none: one position without one. */
  readonly takeProfits: readonly Level[];
  readonly comment: string | null;
}

export interface CloseAlert {
  readonly action: 'close';
  readonly symbol: string;
  /** Only the positions of this side; null: every position of the symbol. */
  readonly side: AlertSide | null;
  readonly comment: string | null;
}

export interface ModifyAlert {
  readonly action: 'modify';
  readonly symbol: string;
  readonly side: AlertSide | null;
  readonly stopLoss: Level | null;
  readonly takeProfit: Level | null;
  readonly comment: string | null;
}

export type ChartingAlert = OpenAlert | CloseAlert | ModifyAlert;

export type AlertFormat = 'JSON' | 'TEXT';

export type ReadAlert =
  | { readonly ok: true; readonly format: AlertFormat; readonly alert: ChartingAlert }
  | { readonly ok: false; readonly format: AlertFormat; readonly reason: string };

/** Bounds past which a value is refused as out of range, whatever the account and symbol. */
export const ALERT_LIMITS = {
  volume: 1_000_000,
  price: 1_000_000_000,
  points: 10_000_000,
  riskPercent: 100,
  riskAmount: 1_000_000_000_000,
  takeProfits: 10,
  comment: 200,
  text: 4_000,
} as const;

const SYMBOL = /^[A-Z0-9][A-Z0-9._#-]{0,31}$/;

class Unreadable extends Error {}
const fail = (reason: string): never => {
  throw new Unreadable(reason);
};

const SIDES: Readonly<Record<string, AlertSide>> = { buy: 'buy', long: 'buy', sell: 'sell', short: 'sell' };
const CLOSES = new Set(['close', 'flat', 'exit']);

/** A symbol as the venue names it: upper case, an exchange prefix ("FX:EURUSD", "OANDA:XAUUSD") dropped. */
const symbolOf = (raw: unknown): string => {
  if (typeof raw !== 'string') return fail('symbol must be a string');
  const symbol = raw
    .trim()
    .toUpperCase()
    .replace(/^[A-Z0-9_]{1,20}:/, '');
  if (!SYMBOL.test(symbol)) return fail(`symbol "${raw.slice(0, 40)}" is not a symbol (letters, digits, ".", "_", "#", "-", at most 32)`);
  return symbol;
};

const numberOf = (raw: unknown, what: string, max: number, allowZero = false): number => {
  if (typeof raw !== 'number' && typeof raw !== 'string') return fail(`${what} must be a number`);
  const parsed = parseAlertNumber(raw);
  if (!parsed.ok) return fail(`${what}: ${parsed.reason}`);
  const { value } = parsed;
  if (value < 0 || (!allowZero && value === 0)) return fail(`${what} must be more than 0, not ${value}`);
  if (value > max) return fail(`${what} ${value} is out of range (at most ${max})`);
  return value;
};

/** "200pts", "200p", "200points", "200 pips" no (pips differ per symbol): points only. */
const levelOf = (raw: unknown, what: string): Level => {
  if (typeof raw === 'string') {
    const points = /^(.*?)\s*(pts|points|point|p)$/i.exec(raw.trim());
    if (points) return { kind: 'points', value: numberOf(points[1], `${what} distance`, ALERT_LIMITS.points) };
  }
  return { kind: 'price', value: numberOf(raw, what, ALERT_LIMITS.price) };
};

const commentOf = (raw: unknown): string | null => {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== 'string') return fail('comment must be a string');
  // Control characters are dropped: a comment travels to the broker and into logs.
  // eslint-disable-next-line no-control-regex
  const clean = raw.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  if (clean.length > ALERT_LIMITS.comment) return fail(`comment is longer than ${ALERT_LIMITS.comment} characters`);
  return clean === '' ? null : clean;
};

/** What both formats fill in before the alert is put together. */
interface Draft {
  symbol?: string;
  verb?: 'open' | 'close' | 'modify';
  side?: AlertSide;
  orderType?: 'market' | 'limit' | 'stop';
  price?: number;
  sizings: Sizing[];
  stopLoss?: Level;
  takeProfits: Level[];
  comment?: string | null;
}

const setOnce = <K extends keyof Draft>(draft: Draft, key: K, value: Draft[K], what: string): void => {
  if (draft[key] !== undefined && draft[key] !== value) fail(`${what} is given twice`);
  draft[key] = value;
};

const sideWord = (draft: Draft, word: string): boolean => {
  const lower = word.toLowerCase();
  if (SIDES[lower]) {
    if (draft.verb === 'close' || draft.verb === 'modify') setOnce(draft, 'side', SIDES[lower], 'the side');
    else {
      setOnce(draft, 'verb', 'open', 'the action');
      setOnce(draft, 'side', SIDES[lower], 'the side');
    }
    return true;
  }
  if (CLOSES.has(lower)) {
    // "buy ... close" makes no sense; "close long" narrows the close to one side.
    if (draft.verb === 'open') fail(`"${word}" and an open side are both given`);
    setOnce(draft, 'verb', 'close', 'the action');
    return true;
  }
  if (lower === 'modify') {
    if (draft.verb === 'open') fail('"modify" and an open side are both given');
    setOnce(draft, 'verb', 'modify', 'the action');
    return true;
  }
  return false;
};

const takeProfitsOf = (raw: unknown, what: string): Level[] => {
  const items = Array.isArray(raw) ? raw : typeof raw === 'string' && raw.includes('/') ? raw.split('/') : [raw];
  if (items.length === 0) return [];
  if (items.length > ALERT_LIMITS.takeProfits) fail(`at most ${ALERT_LIMITS.takeProfits} take profits`);
  return items.map((item, i) => levelOf(item, items.length > 1 ? `${what} ${i + 1}` : what));
};

/** stopLossPoints, takeProfitPoints: a number is a distance in points. */
const pointsOnly = (level: Level, what: string): Level =>
  level.kind === 'points' ? level : { kind: 'points', value: numberOf(level.value, what, ALERT_LIMITS.points) };

/** The draft as an alert, or why not. */
const complete = (draft: Draft): ChartingAlert => {
  if (draft.symbol === undefined) return fail('no symbol');
  if (draft.verb === undefined) return fail('no side or action (buy, sell, long, short, close, flat, exit, modify)');
  const comment = draft.comment ?? null;
  if (draft.verb === 'close') {
    if (draft.sizings.length || draft.stopLoss || draft.takeProfits.length || draft.price !== undefined)
      fail('a close takes no volume, risk, stop loss, take profit or price');
    return { action: 'close', symbol: draft.symbol, side: draft.side ?? null, comment };
  }
  if (draft.verb === 'modify') {
    if (draft.sizings.length || draft.price !== undefined) fail('a modify takes no volume, risk or price');
    if (draft.takeProfits.length > 1) fail('a modify takes one take profit');
    if (!draft.stopLoss && draft.takeProfits.length === 0) fail('a modify needs a stop loss or a take profit');
    return {
      action: 'modify',
      symbol: draft.symbol,
      side: draft.side ?? null,
      stopLoss: draft.stopLoss ?? null,
      takeProfit: draft.takeProfits[0] ?? null,
      comment,
    };
  }
  if (draft.sizings.length === 0) fail('no volume, riskPercent or riskAmount');
  if (draft.sizings.length > 1) fail('give one of volume, riskPercent and riskAmount');
  const sizing = draft.sizings[0]!;
  if (sizing.kind !== 'volume' && !draft.stopLoss) fail(`${sizing.kind} sizes by the stop loss: give one`);
  const orderType = draft.orderType ?? (draft.price !== undefined ? 'limit' : 'market');
  if (orderType !== 'market' && draft.price === undefined) fail(`a ${orderType} order needs a price`);
  if (orderType === 'market' && draft.price !== undefined) fail('a market order takes no price (say limit or stop)');
  const entry: Entry = orderType === 'market' ? { kind: 'market' } : { kind: orderType, price: draft.price! };
  return { action: 'open', symbol: draft.symbol, side: draft.side!, entry, sizing, stopLoss: draft.stopLoss ?? null, takeProfits: draft.takeProfits, comment };
};

// ------------------------------------------------------------------ JSON

const JSON_MEMBERS = new Set([
  'symbol',
  'ticker',
  'action',
  'side',
  'orderType',
  'price',
  'volume',
  'lots',
  'qty',
  'quantity',
  'contracts',
  'riskPercent',
  'riskAmount',
  'stopLoss',
  'sl',
  'stopLossPoints',
  'slPoints',
  'takeProfit',
  'tp',
  'takeProfitPoints',
  'tpPoints',
  'comment',
]);

const jsonAlert = (value: unknown): ChartingAlert => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail('a JSON alert is an object');
  const o = value as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !JSON_MEMBERS.has(k));
  if (unknown.length) fail(`unknown member${unknown.length > 1 ? 's' : ''} ${unknown.slice(0, 5).join(', ')}`);
  const draft: Draft = { sizings: [], takeProfits: [] };
  const one = (...names: string[]): [string, unknown] | undefined => {
    const given = names.filter((n) => o[n] !== undefined && o[n] !== null && o[n] !== '');
    if (given.length > 1) fail(`${given.join(' and ')} mean the same: give one`);
    return given.length ? [given[0]!, o[given[0]!]] : undefined;
  };
  const symbol = one('symbol', 'ticker');
  if (symbol) draft.symbol = symbolOf(symbol[1]);
  for (const name of ['action', 'side']) {
    const word = o[name];
    if (word === undefined || word === null || word === '') continue;
    if (typeof word !== 'string' || !sideWord(draft, word.trim()))
      fail(`${name} "${String(word).slice(0, 20)}" is none of buy, sell, long, short, close, flat, exit, modify`);
  }
  const orderType = o.orderType;
  if (orderType !== undefined && orderType !== null) {
    const t = typeof orderType === 'string' ? orderType.trim().toLowerCase() : '';
    if (t !== 'market' && t !== 'limit' && t !== 'stop') fail('orderType is one of market, limit, stop');
    draft.orderType = t as Draft['orderType'];
  }
  if (o.price !== undefined && o.price !== null && o.price !== '') draft.price = numberOf(o.price, 'price', ALERT_LIMITS.price);
  const volume = one('volume', 'lots', 'qty', 'quantity', 'contracts');
  if (volume) draft.sizings.push({ kind: 'volume', value: numberOf(volume[1], volume[0], ALERT_LIMITS.volume) });
  if (o.riskPercent !== undefined && o.riskPercent !== null)
    draft.sizings.push({ kind: 'riskPercent', value: numberOf(o.riskPercent, 'riskPercent', ALERT_LIMITS.riskPercent) });
  if (o.riskAmount !== undefined && o.riskAmount !== null)
    draft.sizings.push({ kind: 'riskAmount', value: numberOf(o.riskAmount, 'riskAmount', ALERT_LIMITS.riskAmount) });
  const sl = one('stopLoss', 'sl', 'stopLossPoints', 'slPoints');
  if (sl) draft.stopLoss = sl[0].endsWith('Points') ? pointsOnly(levelOf(sl[1], sl[0]), sl[0]) : levelOf(sl[1], sl[0]);
  const tp = one('takeProfit', 'tp', 'takeProfitPoints', 'tpPoints');
  if (tp) {
    const levels = takeProfitsOf(tp[1], tp[0]);
    draft.takeProfits = tp[0].endsWith('Points') ? levels.map((l) => pointsOnly(l, tp[0])) : levels;
  }
  draft.comment = commentOf(o.comment);
  return complete(draft);
};

// ------------------------------------------------------------------ text

const TEXT_KEYS: Readonly<Record<string, string>> = {
  symbol: 'symbol',
  ticker: 'symbol',
  side: 'side',
  action: 'side',
  vol: 'volume',
  volume: 'volume',
  lot: 'volume',
  lots: 'volume',
  qty: 'volume',
  size: 'volume',
  risk: 'risk',
  riskpercent: 'riskPercent',
  riskamount: 'riskAmount',
  sl: 'sl',
  stoploss: 'sl',
  tp: 'tp',
  takeprofit: 'tp',
  price: 'price',
  at: 'price',
  limit: 'limit',
  stop: 'stop',
  comment: 'comment',
  c: 'comment',
};

const textAlert = (text: string): ChartingAlert => {
  if (text.length > ALERT_LIMITS.text) fail(`a text alert is at most ${ALERT_LIMITS.text} characters`);
  const draft: Draft = { sizings: [], takeProfits: [] };
  // comment= takes the rest of its line (quoted or not): it may hold spaces and "=".
  let rest = text.replace(/\bcomment\s*[=:]\s*("([^"]*)"|'([^']*)'|[^\n;]*)/i, (_m, _all: string, dq?: string, sq?: string) => {
    draft.comment = commentOf(dq ?? sq ?? _all);
    return ' ';
  });
  // "sl = 1.08", "sl: 1.08" and "sl=1.08" read alike; "@1.08" is "price=1.08".
  rest = rest.replace(/\s*([=:])\s*/g, '$1').replace(/(^|\s)@\s*/g, '$1price=');
  const tps: Level[][] = [];
  let bareSymbol: string | undefined;
  const words = rest
    .split(/[\s;]+/)
    .map((w) => w.replace(/,$/, ''))
    .filter((w) => w !== '');
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const pair = /^([A-Za-z][A-Za-z0-9]*)[=:](.*)$/.exec(word);
    // "FX:EURUSD" is a symbol with its exchange, not a key.
    if (pair && (TEXT_KEYS[pair[1]!.toLowerCase()] !== undefined || /^tp\d$/i.test(pair[1]!) || word.includes('='))) {
      let key = pair[1]!.toLowerCase();
      const value = pair[2]!;
      const tpLeg = /^tp(\d)$/.exec(key);
      if (tpLeg) {
        tps[Number(tpLeg[1])] = takeProfitsOf(value, `tp${tpLeg[1]}`);
        continue;
      }
      key = TEXT_KEYS[key] ?? fail(`unknown key "${pair[1]!.slice(0, 20)}"`);
      if (value === '') fail(`${pair[1]} has no value`);
      switch (key) {
        case 'symbol':
          setOnce(draft, 'symbol', symbolOf(value), 'the symbol');
          break;
        case 'side':
          if (!sideWord(draft, value)) fail(`"${value.slice(0, 20)}" is none of buy, sell, long, short, close, flat, exit, modify`);
          break;
        case 'volume':
          draft.sizings.push({ kind: 'volume', value: numberOf(value, 'volume', ALERT_LIMITS.volume) });
          break;
        case 'risk':
          draft.sizings.push(
            value.endsWith('%')
              ? { kind: 'riskPercent', value: numberOf(value.slice(0, -1), 'risk', ALERT_LIMITS.riskPercent) }
              : { kind: 'riskAmount', value: numberOf(value, 'risk', ALERT_LIMITS.riskAmount) },
          );
          break;
        case 'riskPercent':
          draft.sizings.push({ kind: 'riskPercent', value: numberOf(value.replace(/%$/, ''), 'riskPercent', ALERT_LIMITS.riskPercent) });
          break;
        case 'riskAmount':
          draft.sizings.push({ kind: 'riskAmount', value: numberOf(value, 'riskAmount', ALERT_LIMITS.riskAmount) });
          break;
        case 'sl':
          if (draft.stopLoss) fail('the stop loss is given twice');
          draft.stopLoss = levelOf(value, 'sl');
          break;
        case 'tp':
          tps[0] = takeProfitsOf(value, 'tp');
          break;
        case 'price':
          setOnce(draft, 'price', numberOf(value, 'price', ALERT_LIMITS.price), 'the price');
          break;
        case 'limit':
        case 'stop':
          setOnce(draft, 'orderType', key, 'the order type');
          setOnce(draft, 'price', numberOf(value, `${key} price`, ALERT_LIMITS.price), 'the price');
          break;
      }
      continue;
    }
    if (sideWord(draft, word)) continue;
    const lower = word.toLowerCase();
    if (lower === 'limit' || lower === 'stop' || lower === 'market') {
      setOnce(draft, 'orderType', lower, 'the order type');
      continue;
    }
    if (/^[+-]?[\d.,]+$/.test(word)) {
      // A bare number is the volume ("buy EURUSD 0.1", "buy EURUSD 0.1 lots").
      if (words[i + 1] && /^lots?$/i.test(words[i + 1]!)) i += 1;
      draft.sizings.push({ kind: 'volume', value: numberOf(word, 'volume', ALERT_LIMITS.volume) });
      continue;
    }
    if (/^[+-]?[\d.,]+e[+-]?\d+$/i.test(word)) fail(`"${word.slice(0, 20)}": exponents are not allowed in numbers`);
    if (/^[A-Za-z0-9_]{1,20}:?[A-Za-z0-9._#-]+$/.test(word) && /[A-Za-z]/.test(word)) {
      // A misspelt side reads like a symbol: two such words are refused, naming both.
      if (bareSymbol !== undefined) fail(`two words could be the symbol: "${bareSymbol.slice(0, 20)}" and "${word.slice(0, 20)}" (a misspelt word?)`);
      bareSymbol = word;
      if (draft.symbol === undefined) draft.symbol = symbolOf(word);
      else fail(`unknown word "${word.slice(0, 20)}"`);
      continue;
    }
    fail(`unknown word "${word.slice(0, 20)}"`);
  }
  const legs = tps.filter((l) => l !== undefined);
  if (legs.length) {
    draft.takeProfits = legs.flat();
    if (draft.takeProfits.length > ALERT_LIMITS.takeProfits) fail(`at most ${ALERT_LIMITS.takeProfits} take profits`);
  }
  return complete(draft);
};

/** The alert in a body: JSON when it parses as JSON (or is sent as application/json), else text. */
export const readAlert = (body: string, declaredJson: boolean): ReadAlert => {
  const trimmed = body.trim();
  const looksJson = declaredJson || trimmed.startsWith('{') || trimmed.startsWith('[');
  const format: AlertFormat = looksJson ? 'JSON' : 'TEXT';
  try {
    if (trimmed === '') return fail('the alert is empty');
    if (looksJson) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(trimmed);
      } catch {
        return fail('the body is not valid JSON');
      }
      return { ok: true, format, alert: jsonAlert(parsed) };
    }
    return { ok: true, format, alert: textAlert(trimmed) };
  } catch (error) {
    if (error instanceof Unreadable) return { ok: false, format, reason: error.message };
    throw error;
  }
};
