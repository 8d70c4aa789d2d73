// FeatureSkipPositionDTO (the spec names it only). Our reading: master trades are not copied when
// they carry one of the listed magic numbers, or a comment that contains one of the listed texts.
//   - magicNumbers: the master's magic number, exactly.
//   - commentContains: plain text, found anywhere in the master's comment, without case. Plain text
//     rather than regular expressions on purpose: a user's expression can backtrack for minutes on
//     one comment and stall the engine's copying for every account of the master.
//   - Only opens are filtered (market and pending); the master's later closes and stop changes find
//     no copy and are logged as such.
import { type Static, Type } from '@sinclair/typebox';
import { type CopierFeature, skip } from './rules.js';

const members = Type.Object({
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
export type SkipPositionSettings = Static<typeof members>;

export const skipPosition: CopierFeature<SkipPositionSettings> = {
  type: 'FeatureSkipPositionDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { magicNumbers: [], commentContains: [] },
  description:
    "Does not copy a master open (market or pending) whose magic number is one of magicNumbers, or whose comment contains one of the texts of commentContains (plain text, anywhere in the comment, without case; no regular expressions). Skip reason POSITION_SKIPPED. The master's later changes of a skipped trade find no copy.",
  check: (s) => (s.magicNumbers.length === 0 && s.commentContains.length === 0 ? 'give at least one magic number or comment text' : null),
  rules: {
    filterOpen: (s, { trade }) => {
      if (trade.magicNumber !== null && s.magicNumbers.includes(trade.magicNumber))
        return skip('POSITION_SKIPPED', `its magic number ${trade.magicNumber} is one of the skipped magic numbers`);
      const comment = trade.comment?.toLowerCase() ?? '';
      const text = comment === '' ? undefined : s.commentContains.find((t) => comment.includes(t.toLowerCase()));
      return text === undefined ? null : skip('POSITION_SKIPPED', `its comment '${trade.comment}' contains '${text}'`);
    },
  },
};
