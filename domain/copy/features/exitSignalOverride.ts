// FeatureExitSignalOverrideDTO (the spec names it only). Our reading: the master's exit signals are not
// copied. The slave's copy leaves only by its own stop loss or take profit, by the management features
// (break-even, trailing stop, keep-alive, scheduled close), or by hand.
//   - ignoreCloses: the master's full closes are not copied.
//   - ignorePartialCloses: the master's partial closes are not copied.
//   - Applies to positions. A slave pending order still waiting when the master's order is gone is
//     cancelled as always, and the master's stop changes are copied as always.
import { type Static, Type } from '@sinclair/typebox';
import { type CopierFeature, skip } from './rules.js';

const members = Type.Object({
  ignoreCloses: Type.Boolean({ description: "true (default): the master's closes are not copied" }),
  ignorePartialCloses: Type.Boolean({ description: "true (default): the master's partial closes are not copied" }),
});
export type ExitSignalOverrideSettings = Static<typeof members>;

export const exitSignalOverride: CopierFeature<ExitSignalOverrideSettings> = {
  type: 'FeatureExitSignalOverrideDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { ignoreCloses: true, ignorePartialCloses: true },
  description:
    "The master's exit signals are not copied: with ignoreCloses (default true) its closes, with ignorePartialCloses (default true) its partial closes. The slave's copy then leaves only by its own stop loss or take profit, a management feature (break-even, trailing stop, keep-alive, scheduled close) or by hand. Skip reason EXIT_SIGNAL_OVERRIDDEN. Stop changes are copied as always; a slave pending order whose master order is gone is cancelled as always.",
  check: (s) => (!s.ignoreCloses && !s.ignorePartialCloses ? 'ignoreCloses and ignorePartialCloses are both false: the feature would do nothing' : null),
  rules: {
    onClose: (s, { event }) => {
      if (event.type === 'MasterPositionClosed' && s.ignoreCloses)
        return skip('EXIT_SIGNAL_OVERRIDDEN', "the master's closes are not copied (exit signal override); the copy stays open");
      if (event.type === 'MasterPositionPartiallyClosed' && s.ignorePartialCloses) {
        return skip('EXIT_SIGNAL_OVERRIDDEN', "the master's partial closes are not copied (exit signal override)");
      }
      return null;
    },
  },
};
