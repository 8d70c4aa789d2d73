// The currencies a trading symbol is exposed to, for the calendar's exposure and the news rules: the
// two ISO currencies of a currency pair (EURUSD, eur/usd, EURUSD.m, EURUSDpro), a metal or crypto
// quoted in a currency (XAUUSD: USD; BTCUSD: USD), and the home currency of common index and oil
// names (US500, GER40, UK100, JP225, USOIL ...). A symbol we cannot tell has none: no calendar event
// affects it (the news filter's symbol mapping shows that, so a per-symbol override can say otherwise).
const CURRENCIES = [
  'USD',
  'EUR',
  'GBP',
  'JPY',
  'CHF',
  'CAD',
  'AUD',
  'NZD',
  'CNY',
  'CNH',
  'HKD',
  'SGD',
  'SEK',
  'NOK',
  'DKK',
  'PLN',
  'MXN',
  'ZAR',
  'TRY',
  'HUF',
  'CZK',
  'INR',
  'BRL',
  'KRW',
  'RUB',
];
const NOT_CALENDAR = ['XAU', 'XAG', 'XPT', 'XPD', 'BTC', 'ETH', 'LTC', 'XRP', 'SOL', 'ADA', 'DOGE', 'USDT', 'USDC'];

const INDICES: readonly [RegExp, string][] = [
  [/^(US30|US500|US100|USTEC|NAS100|NDX|SPX500?|SP500|DJ30|DJI|WS30|US2000|RUSSELL|USOIL|WTI|CL|XTIUSD|BRENT|UKOIL|XBRUSD|NATGAS|XNGUSD|DXY|USDX)/, 'USD'],
  [/^(GER30|GER40|DE30|DE40|DAX|EU50|EUSTX50|STOXX50|FRA40|FR40|CAC|ESP35|IT40|NETH25)/, 'EUR'],
  [/^(UK100|FTSE)/, 'GBP'],
  [/^(JP225|JPN225|NIKKEI|NI225)/, 'JPY'],
  [/^(AUS200|AU200|ASX)/, 'AUD'],
  [/^(SWI20|CH20|SMI)/, 'CHF'],
  [/^(HK50|HSI)/, 'HKD'],
  [/^(CHINA50|CN50|CHINAH)/, 'CNY'],
];

/** The calendar currencies of `symbol`, base first; [] when it cannot be told. */
export const currenciesOfSymbol = (symbol: string): string[] => {
  const s = symbol.toUpperCase().replace(/[^A-Z0-9]/g, '');
  for (const [pattern, currency] of INDICES) if (pattern.test(s)) return [currency];
  const letters = s.replace(/[0-9]/g, '');
  for (const base of [...CURRENCIES, ...NOT_CALENDAR].filter((c) => letters.startsWith(c))) {
    const rest = letters.slice(base.length);
    const quote = CURRENCIES.find((c) => rest.startsWith(c));
    if (quote) return [...new Set([base, quote].filter((c) => CURRENCIES.includes(c)).map((c) => (c === 'CNH' ? 'CNY' : c)))];
  }
  return [];
};

/** Whether a calendar event of `currency` affects a symbol of `currencies` (a release of no one currency, ALL, affects every symbol only when `global`). */
export const affects = (currency: string, currencies: readonly string[], global: boolean): boolean =>
  currency === 'ALL' ? global && currencies.length > 0 : currencies.includes(currency);
