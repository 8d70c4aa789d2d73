// FeatureSkipPositionDTO. The reference's members: ifSlNotDefined, ifTpNotDefined (skip a master trade
// without a stop loss, without a take profit; a level of 0 is none), joined by logicOperatorTpSl (OR,
// the default: either missing level skips; AND: only both missing). Ours beside them: master trades
// are not copied when they carry one of the listed magic numbers, or a comment that contains one of the
// listed texts.
//   - magicNumbers: the master's magic number, exactly.
//   - commentContains: plain text, found anywhere in the master's comment, without case. Plain text
//     rather than regular expressions on purpose: a user's expression can backtrack for minutes on
//     one comment and stall the engine's copying for every account of the master.
//   - Only opens are filtered (market and pending); the master's later closes and stop changes find
//     no copy and are logged as such.
//   - symbolsConfiguration (perSymbol.ts): a slave symbol's own members, which take priority over the
//     general ones for its trades (the reference); the feature must skip something somewhere.
import { type Static, Type } from '@sinclair/typebox';
import { checkSymbolsConfiguration, generalSettings, perSymbolRules, settingsFor, withSymbolsConfiguration } from './perSymbol.js';
import { type CopierFeature, skip } from './rules.js';

const general = Type.Object({
  ifSlNotDefined: Type.Boolean({ description: 'true: a master trade without a stop loss (none or 0) is not copied; default false' }),
  ifTpNotDefined: Type.Boolean({ description: 'true: a master trade without a take profit (none or 0) is not copied; default false' }),
  logicOperatorTpSl: Type.Union([Type.Literal('AND'), Type.Literal('OR')], {
    description: 'with both of the above: OR (default) skips when either level is missing, AND only when both are',
  }),
  magicNumbers: Type.Array(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), {
    maxItems: 500,
    uniqueItems: true,
    description: 'master trades with one of these magic numbers are not copied',
  }),
  commentContains: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
    maxItems: 100,
    description: 'master trades whose comment contains one of these texts (plain text, without case) are not copied',
  }),
});
type General = Static<typeof general>;
const members = withSymbolsConfiguration(
  general,
  'Skip position per symbol, with priority over the general members: e.g. {"EURUSD": {"ifSlNotDefined": true}}.',
);
export type SkipPositionSettings = Static<typeof members>;

const skipsNothing = (s: General): boolean => !s.ifSlNotDefined && !s.ifTpNotDefined && s.magicNumbers.length === 0 && s.commentContains.length === 0;

export const skipPosition: CopierFeature<SkipPositionSettings> = {
  type: 'FeatureSkipPositionDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { ifSlNotDefined: false, ifTpNotDefined: false, logicOperatorTpSl: 'OR', magicNumbers: [], commentContains: [], symbolsConfiguration: {} },
  description:
    "Does not copy a master open (market or pending) without a stop loss (ifSlNotDefined) or without a take profit (ifTpNotDefined; with both, logicOperatorTpSl OR, the default, skips when either is missing and AND only when both are; a level of 0 is none), or whose magic number is one of magicNumbers, or whose comment contains one of the texts of commentContains (plain text, anywhere in the comment, without case; no regular expressions). Skip reason POSITION_SKIPPED. The master's later changes of a skipped trade find no copy. symbolsConfiguration gives a slave symbol its own members, which take priority over the general ones for its trades.",
  check: (s) =>
    checkSymbolsConfiguration(s) ??
    ([generalSettings(s), ...Object.keys(s.symbolsConfiguration ?? {}).map((symbol) => settingsFor(s, symbol))].every(skipsNothing)
      ? 'set ifSlNotDefined or ifTpNotDefined, or give at least one magic number or comment text (in general or for a symbol)'
      : null),
  rules: perSymbolRules<General>({
    filterOpen: (s, { trade }) => {
      const noSl = s.ifSlNotDefined && !trade.stopLoss;
      const noTp = s.ifTpNotDefined && !trade.takeProfit;
      const both = s.ifSlNotDefined && s.ifTpNotDefined;
      if (both && s.logicOperatorTpSl === 'AND' ? noSl && noTp : noSl || noTp) {
        const missing = [noSl && 'stop loss', noTp && 'take profit'].filter(Boolean).join(' and ');
        return skip('POSITION_SKIPPED', `it has no ${missing}`);
      }
      if (trade.magicNumber !== null && s.magicNumbers.includes(trade.magicNumber))
        return skip('POSITION_SKIPPED', `its magic number ${trade.magicNumber} is one of the skipped magic numbers`);
      const comment = trade.comment?.toLowerCase() ?? '';
      const text = comment === '' ? undefined : s.commentContains.find((t) => comment.includes(t.toLowerCase()));
      return text === undefined ? null : skip('POSITION_SKIPPED', `its comment '${trade.comment}' contains '${text}'`);
    },
  }),
};
