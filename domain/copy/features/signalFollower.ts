// FeatureSignalFollowerDTO (spec: account scope; monitorOnly, disableMinVolumeSafetySkip). Attached to a
// slave account, it changes the settings of every copier of that account, for every decision:
//   - monitorOnly: the copiers are monitor-only (no new copy is placed, the log says what would have been; the copies held are still managed);
//   - disableMinVolumeSafetySkip: the copiers' minVolumeSafetySkipThresholdMultiplier is 0, so a lot
//     forced up to the slave's minimum is never skipped by that rule (spec, CopierDTO).
// false leaves the copier's own setting as it is.
import { type Static, Type } from '@sinclair/typebox';
import type { CopierSettings } from '../../copier/settings.js';
import type { CopierFeature } from './rules.js';

const members = Type.Object({
  monitorOnly: Type.Boolean({ description: "true: every copier of the account is monitor-only; false (default): the copiers' own setting" }),
  disableMinVolumeSafetySkip: Type.Boolean({
    description: "true: the copiers' minVolumeSafetySkipThresholdMultiplier is taken as 0 (deactivated); false (default): their own value",
  }),
});
export type SignalFollowerSettings = Static<typeof members>;

export const signalFollower: CopierFeature<SignalFollowerSettings> = {
  type: 'FeatureSignalFollowerDTO',
  scopes: ['account'],
  multiple: false,
  members,
  defaults: { monitorOnly: false, disableMinVolumeSafetySkip: false },
  description:
    "A signal follower's settings on its (slave) account, applied to every copier of the account for every decision: monitorOnly makes them monitor-only (no new copy is placed, the log says what would have been; the copies they hold are still managed, as CopierDTO monitorOnly); disableMinVolumeSafetySkip takes their minVolumeSafetySkipThresholdMultiplier as 0 (deactivated). false leaves the copier's own setting.",
  rules: {
    adjustSettings: (s, copier): CopierSettings => {
      if (!s.monitorOnly && !s.disableMinVolumeSafetySkip) return copier;
      return {
        ...copier,
        ...(s.monitorOnly ? { monitorOnly: true } : {}),
        ...(s.disableMinVolumeSafetySkip ? { minVolumeSafetySkipThresholdMultiplier: 0 } : {}),
      };
    },
  },
};
