// FeaturePermittedSymbolsDTO (the reference, 1.2.5): only master trades on permitted symbols are copied.
//   - whitelist, blacklist: regular expressions (regexPatterns.ts: case insensitive, several combined
//     with OR, found anywhere in the name unless anchored) applied to the master symbol's name.
//   - "If both a whitelist and a blacklist are defined, the whitelist has priority over the blacklist":
//     with a whitelist, a symbol is copied exactly when it matches the whitelist (the blacklist is not
//     consulted); without one, when it matches no blacklist entry. Both empty: every symbol is copied.
//   - Only opens are filtered (market and pending); closes and changes of copies that exist are not.
// The glob patterns below (SymbolPattern, symbolMatcher) are another feature's dialect: the symbols of
// FeatureBlockHedgingDTO and of FeatureScheduledCloseReopenDTO's schedules, which we define.
// Globs: `*` stands for any run of characters (none included) and `?` for one, without case, matched
// by picomatch, bounded so a pattern cannot stall the engine: at most three `*` per entry (picomatch's
// regular expressions backtrack polynomially in the stars: 3 stars on a 64 character symbol take about
// a millisecond, 5 take a tenth of a second), only characters that occur in symbols besides `*` and
// `?` (no brackets, braces, parentheses, escapes or negation), and symbols longer than 64 characters
// match no entry.
import { type Static, Type } from '@sinclair/typebox';
import picomatch from 'picomatch';
import { RegexPattern, regexListProblem, regexMatcher } from './regexPatterns.js';
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

const MAX_PATTERNS = 50;
const members = Type.Object({
  whitelist: Type.Array(RegexPattern('a master symbol that is copied'), {
    maxItems: MAX_PATTERNS,
    description:
      "Whitelist regex (case insensitive). If multiple regex are specified, they are combined using an OR condition. The regex is applied to the master symbol's name. With a whitelist, only the symbols that match it are copied and the blacklist is not consulted (the whitelist has priority). Default empty.",
  }),
  blacklist: Type.Array(RegexPattern('a master symbol that is not copied'), {
    maxItems: MAX_PATTERNS,
    description:
      "Blacklist regex (case insensitive). If multiple regex are specified, they are combined using an OR condition. The regex is applied to the master symbol's name. Applies when the whitelist is empty. Default empty.",
  }),
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
  defaults: { whitelist: [], blacklist: [] },
  description:
    "Copies only master trades on permitted symbols. whitelist and blacklist are regular expressions (ECMAScript syntax, case insensitive, found anywhere in the master symbol's name unless anchored with ^ and $; several combined with OR). With a whitelist, an open (market or pending) is copied only when its master symbol matches it, and the blacklist is not consulted (the whitelist has priority); without one, an open whose symbol matches the blacklist is not copied. Skip reason SYMBOL_NOT_PERMITTED. Both empty: every symbol is copied. Closes and stop changes of existing copies are not filtered. Patterns that could stall the engine are refused with 400 [VALIDATION_FAILED] (ours, the reference is silent): longer than 100 characters, not a regular expression, backreferences, a repeated group holding a quantifier or an alternation ((a+)+, (a|ab)*), more than 3 quantifiers or more than 2 repeating ones (*, +, {n,m}); only the first 64 characters of a symbol are looked at.",
  check: (s) => regexListProblem(s.whitelist, 'whitelist') ?? regexListProblem(s.blacklist, 'blacklist'),
  rules: {
    filterOpen: (s, { trade }) => {
      if (s.whitelist.length > 0) {
        return regexMatcher(s.whitelist)(trade.symbol)
          ? null
          : skip('SYMBOL_NOT_PERMITTED', `${trade.symbol} matches none of the whitelist ${s.whitelist.join(', ')}`);
      }
      return regexMatcher(s.blacklist)(trade.symbol) ? skip('SYMBOL_NOT_PERMITTED', `${trade.symbol} matches the blacklist ${s.blacklist.join(', ')}`) : null;
    },
  },
};
