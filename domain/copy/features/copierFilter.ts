// FeatureCopierFilterDTO. The spec (1.2.6): minLotSize, maxLotSize: the master's lot below min or above
// max is not copied; null or 0 disables that bound. The reference (1.2.5): comment and magicNumber,
// regular expressions (regexPatterns.ts: case insensitive, several combined with OR) applied to the
// master trade's comment and magic number "to filter". Our reading: a filter keeps what matches, so
// with comment patterns only master trades whose comment matches one are copied, and likewise for
// magic numbers; every member given must let the trade through.
//   - The comment is the master's as its broker holds it: one opened through POST .../positions
//     carries the reference's 'API|<requestId>|' prefix (domain/positions/apiComment.ts).
//   - A trade without a comment or a magic number is matched as the empty text (`^$` keeps exactly
//     those); the magic number is matched as its decimal digits.
//   - Only opens are filtered (market and pending); closes and changes of copies that exist are not.
import { type Static, Type } from '@sinclair/typebox';
import { exact, show } from '../../shared/decimal.js';
import { RegexPattern, regexListProblem, regexMatcher } from './regexPatterns.js';
import { type CopierFeature, skip } from './rules.js';

const MAX_PATTERNS = 50;

const members = Type.Object({
  minLotSize: Type.Union([Type.Number({ minimum: 0, maximum: 1e6 }), Type.Null()], {
    description: 'master lots below are not copied; null or 0 = no lower bound (default)',
  }),
  maxLotSize: Type.Union([Type.Number({ minimum: 0, maximum: 1e6 }), Type.Null()], {
    description: 'master lots above are not copied; null or 0 = no upper bound (default)',
  }),
  comment: Type.Array(RegexPattern('a master comment that is copied'), {
    maxItems: MAX_PATTERNS,
    description:
      "Regex (case insensitive) applied to the comment field to filter. If multiple filters are specified, they are combined using an OR condition. Only master trades whose comment (as the master's broker holds it: a position opened through POST .../positions carries the 'API|<requestId>|' prefix) matches one are copied (a trade without a comment is matched as the empty text); empty (default) = no comment filter.",
  }),
  magicNumber: Type.Array(RegexPattern('a master magic number that is copied'), {
    maxItems: MAX_PATTERNS,
    description:
      'Regex (case insensitive) applied to magic number field (MetaTrader -> magic number, DXtrade/TradeLocker/MatchTrader/Binance/Bybit -> no field and CTrader -> label) to filter. If multiple filters are specified, they are combined using an OR condition. Only master trades whose magic number (its decimal digits; none = the empty text) matches one are copied; empty (default) = no magic number filter.',
  }),
});
export type CopierFilterSettings = Static<typeof members>;

const bound = (value: number | null): number | null => (value === null || value === 0 ? null : value);

export const copierFilter: CopierFeature<CopierFilterSettings> = {
  type: 'FeatureCopierFilterDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { minLotSize: null, maxLotSize: null, comment: [], magicNumber: [] },
  description:
    "Copies only the master trades (opens, market or pending) the filter lets through; every member given must: the master's lot (before any sizing) within [minLotSize, maxLotSize] (null or 0 = no bound; skip reason LOT_FILTERED); with comment patterns, a master comment that matches one (COMMENT_FILTERED); with magicNumber patterns, a master magic number that matches one (MAGIC_NUMBER_FILTERED). Patterns are regular expressions (ECMAScript syntax, case insensitive, found anywhere in the text unless anchored with ^ and $; several combined with OR); a trade without a comment or magic number is matched as the empty text, a magic number as its decimal digits. Closes and stop changes of existing copies are not filtered. Patterns that could stall the engine are refused with 400 [VALIDATION_FAILED] (ours, the reference is silent): longer than 100 characters, not a regular expression, backreferences, a repeated group holding a quantifier or an alternation ((a+)+, (a|ab)*), more than 3 quantifiers or more than 2 repeating ones (*, +, {n,m}); only the first 64 characters of a text are looked at.",
  check: (s) => {
    const min = bound(s.minLotSize);
    const max = bound(s.maxLotSize);
    if (min !== null && max !== null && min > max) return `minLotSize ${min} is above maxLotSize ${max}`;
    return regexListProblem(s.comment, 'comment') ?? regexListProblem(s.magicNumber, 'magicNumber');
  },
  rules: {
    filterOpen: (s, { trade }) => {
      const lot = exact(trade.volume);
      const min = bound(s.minLotSize);
      const max = bound(s.maxLotSize);
      if (min !== null && lot.lessThan(exact(min))) return skip('LOT_FILTERED', `the master lot ${show(lot)} is below the filter's minimum ${min}`);
      if (max !== null && lot.greaterThan(exact(max))) return skip('LOT_FILTERED', `the master lot ${show(lot)} is above the filter's maximum ${max}`);
      const comment = trade.comment ?? '';
      if (s.comment.length > 0 && !regexMatcher(s.comment)(comment))
        return skip('COMMENT_FILTERED', `the master comment '${comment}' matches none of the filter's comment patterns ${s.comment.join(', ')}`);
      const magic = trade.magicNumber === null ? '' : String(trade.magicNumber);
      if (s.magicNumber.length > 0 && !regexMatcher(s.magicNumber)(magic)) {
        return skip(
          'MAGIC_NUMBER_FILTERED',
          `the master magic number '${magic}' matches none of the filter's magicNumber patterns ${s.magicNumber.join(', ')}`,
        );
      }
      return null;
    },
  },
};
