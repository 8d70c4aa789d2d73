// The asset class of a symbol, for the diversification part of the performance score
// (ScoreBreakdownDTO.uniqueAssetClasses). Symbols are told by name, the way brokers write them: a
// broker suffix (`EURUSD.m`, `EURUSDm`, `US500.cash`) does not change the class.

export type AssetClass = 'forex' | 'metals' | 'energies' | 'crypto' | 'indices' | 'other';

const CURRENCIES = new Set([
  'AUD',
  'CAD',
  'CHF',
  'CNH',
  'CZK',
  'DKK',
  'EUR',
  'GBP',
  'HKD',
  'HUF',
  'JPY',
  'MXN',
  'NOK',
  'NZD',
  'PLN',
  'SEK',
  'SGD',
  'TRY',
  'USD',
  'ZAR',
]);
const METALS = ['XAU', 'XAG', 'XPT', 'XPD', 'GOLD', 'SILVER', 'COPPER'];
const ENERGIES = ['OIL', 'WTI', 'BRENT', 'NGAS', 'NATGAS', 'GASOLINE'];
const CRYPTO = ['BTC', 'ETH', 'LTC', 'XRP', 'BCH', 'ADA', 'DOGE', 'SOL', 'DOT', 'BNB', 'LINK', 'AVAX', 'MATIC', 'TRX', 'XLM', 'USDT', 'USDC'];
/** Index names as brokers write them: a region or index name with the index's size (US500, GER40, NAS100, JP225). */
const INDEX = /^(US|UK|GER|DE|FRA|FR|EU|ESP|IT|JP|JPN|HK|AUS|NAS|SPX|DJ|DAX|FTSE|NIKKEI|STOXX|CHINA|CN|SWI|NETH|USTEC|USTECH)\d{2,5}$/;

export const assetClassOf = (symbol: string): AssetClass => {
  const name = symbol.toUpperCase().split(/[.\-_#]/)[0]!;
  if (METALS.some((m) => name.startsWith(m))) return 'metals';
  if (ENERGIES.some((e) => name.includes(e))) return 'energies';
  if (CURRENCIES.has(name.slice(0, 3)) && CURRENCIES.has(name.slice(3, 6))) return 'forex';
  if (CRYPTO.some((c) => name.startsWith(c))) return 'crypto';
  if (INDEX.test(name)) return 'indices';
  return 'other';
};
