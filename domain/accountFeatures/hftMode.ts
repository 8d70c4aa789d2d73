// FeatureHftModeDTO (spec: account feature, named only). In the field, "HFT mode" buys lower copy
// latency from a hosted copier (a shorter polling loop, a faster terminal). This service has no polling
// loop to shorten: the engine learns of a master's trades when they are committed (LISTEN/NOTIFY on the
// event store) and decides at once, for every account alike. So the feature is configuration only: it
// is stored, validated and returned, and changes nothing. Documented as such.
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';

const members = Type.Object({
  activateHftMode: Type.Boolean({
    description: 'whether HFT mode is asked for; default true (the reference: always true). Changes nothing on this service (see the feature description)',
  }),
});
export type HftModeSettings = Static<typeof members>;

export const hftModeFeature: FeatureDefinition<HftModeSettings> = {
  type: 'FeatureHftModeDTO',
  scopes: ['account'],
  multiple: false,
  members,
  defaults: { activateHftMode: true },
  description:
    "HFT mode: configuration only on this service. Hosted copiers sell it as a shorter polling loop; this service polls nothing: the copy engine is woken by the event store when a master's trade is committed and decides at once, for every account the same. The setting is stored, validated and returned (so configurations carry over) and changes no behaviour.",
};
