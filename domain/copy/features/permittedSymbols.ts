// FeaturePermittedSymbolsDTO (the spec names it only). Our reading: only master trades on permitted
// symbols are copied, and never those on a blocked symbol.
//   - Entries are the master's symbols, compared without case; `*` stands for any run of characters
//     (none included) and `?` for one character: `EUR*`, `*USD`, `XAU???`.
//   - permittedSymbols empty: every symbol not blocked is copied; blockedSymbols wins over
//     permittedSymbols (`*` permitted, `BTC*` blocked: everything but the BTC symbols).
//   - Only opens are filtered (market and pending); closes and changes of copies that exist are not.
// Matching is picomatch's glob, bounded so a pattern cannot stall the engine: at most three `*` per
// entry (picomatch's regular expressions backtrack polynomially in the stars: 3 stars on a 64
// character symbol take about a millisecond, 5 take a tenth of a second), only characters that occur
// in symbols besides `*` and `?` (no brackets, braces, parentheses, escapes or negation), and symbols
// longer than 64 characters match no entry.
import { type Static, Type } from '@sinclair/typebox';
import picomatch from 'picomatch';
import { type CopierFeature, skip } from './rules.js';

const MAX_STARS = 3;
const MAX_SYMBOL_LENGTH = 64;
/** picomatch reads `/` as a path separator that `*` does not cross; symbols such as BTC/USD are one name. */
const SLASH = '\u2215';

/** A symbol pattern: the characters of symbols, `*` and `?`. */
export const SymbolPattern = Type.String({
  minLength: 1,
  maxLength: MAX_SYMBOL_LENGTH,
  pattern: '^[A-Za-z0-9._#/+$%&@^~:= *?-]+$',
  description: 'a symbol, or a pattern: `*` any characters (at most 3 per entry), `?` one character; without case',
});

const members = Type.Object({
  permittedSymbols: Type.Array(SymbolPattern, {
    maxItems: 500,
    description: 'the master symbols that are copied (patterns); empty = every symbol that is not blocked',
  }),
  blockedSymbols: Type.Array(SymbolPattern, { maxItems: 500, description: 'master symbols that are never copied (patterns); they win over permittedSymbols' }),
});
export type PermittedSymbolsSettings = Static<typeof members>;

/** Why a list of symbol patterns cannot be used, or null. */
export const symbolPatternsProblem = (patterns: readonly string[], member: string): string | null => {
  const wild = patterns.find((p) => (p.match(/\*/g)?.length ?? 0) > MAX_STARS);
  return wild === undefined ? null : `${member}: '${wild}' has more than ${MAX_STARS} '*'`;
};

/** Whether a symbol matches one of the patterns (without case); none match a symbol over 64 characters. */
export const symbolMatcher = (patterns: readonly string[]): ((symbol: string) => boolean) => {
  if (patterns.length === 0) return () => false;
  const matches = picomatch(
    patterns.map((p) => p.replaceAll('/', SLASH)),
    { nocase: true, dot: true, nobrace: true, noextglob: true, nonegate: true, noglobstar: true },
  );
  return (symbol) => symbol.length <= MAX_SYMBOL_LENGTH && matches(symbol.replaceAll('/', SLASH));
};

export const permittedSymbols: CopierFeature<PermittedSymbolsSettings> = {
  type: 'FeaturePermittedSymbolsDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { permittedSymbols: [], blockedSymbols: [] },
  description:
    'Copies only master trades on permitted symbols: an open (market or pending) on a master symbol that matches no entry of permittedSymbols (when it has any), or that matches an entry of blockedSymbols, is not copied (skip reason SYMBOL_NOT_PERMITTED). Entries are master symbols compared without case; `*` stands for any characters (at most 3 per entry) and `?` for one. blockedSymbols wins. Closes and stop changes of existing copies are not filtered.',
  check: (s) => {
    if (s.permittedSymbols.length === 0 && s.blockedSymbols.length === 0) return 'give at least one entry in permittedSymbols or blockedSymbols';
    return symbolPatternsProblem(s.permittedSymbols, 'permittedSymbols') ?? symbolPatternsProblem(s.blockedSymbols, 'blockedSymbols');
  },
  rules: {
    filterOpen: (s, { trade }) => {
      if (symbolMatcher(s.blockedSymbols)(trade.symbol))
        return skip('SYMBOL_NOT_PERMITTED', `${trade.symbol} matches the blocked symbols ${s.blockedSymbols.join(', ')}`);
      if (s.permittedSymbols.length > 0 && !symbolMatcher(s.permittedSymbols)(trade.symbol)) {
        return skip('SYMBOL_NOT_PERMITTED', `${trade.symbol} is not among the permitted symbols ${s.permittedSymbols.join(', ')}`);
      }
      return null;
    },
  },
};
