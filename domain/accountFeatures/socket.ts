// FeatureSocketDTO (spec: account feature, named only). In the field: a real-time socket stream
// (STOMP over WebSocket) of an account's events. This service offers no socket endpoint; pushed events
// are FeatureWebhookDTO's (HTTP callbacks). So the feature is configuration only: stored, validated and
// returned, changing nothing. Documented as such.
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';

const members = Type.Object({
  activateSocket: Type.Boolean({
    description:
      "whether the account's event stream is asked for; default true (the reference: always true). Changes nothing on this service (see the feature description)",
  }),
});
export type SocketSettings = Static<typeof members>;

export const socketFeature: FeatureDefinition<SocketSettings> = {
  type: 'FeatureSocketDTO',
  scopes: ['account'],
  multiple: false,
  members,
  defaults: { activateSocket: true },
  description:
    "Real-time socket stream of the account's events: configuration only on this service, which offers no socket endpoint. The setting is stored, validated and returned and changes no behaviour; for pushed events use FeatureWebhookDTO (POSITION_OPENED, POSITION_CLOSED, HISTORY_UPDATED by HTTP), or read GET .../logs and .../positions.",
};
