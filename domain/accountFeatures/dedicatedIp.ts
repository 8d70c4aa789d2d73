// FeatureDedicatedIpDTO (the reference: "assigning a dedicated IP feature (account)": the id of a
// dedicated proxy server of the project's pool, FeatureDedicatedIpPoolDTO; AccountDTO.dedicatedIp has
// the same shape). In the field the account's broker connection leaves through that proxy server
// (brokers and prop firms match accounts by IP). On this self-hosted service broker sessions run
// in-process against the simulated venue and leave from the host's own address, and the pool reserves
// no proxy servers (see dedicatedIpPool.ts). So the feature is configuration only: the id is
// validated, stored and returned, and changes nothing.
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';

const members = Type.Object({
  dedicatedProxyServerId: Type.Integer({
    minimum: 1,
    maximum: 2147483647,
    description: 'the id of a dedicated proxy server (ProxyDTO.id of FeatureDedicatedIpPoolDTO.dedicatedProxyServerIds); required',
  }),
});
export type DedicatedIpSettings = Static<typeof members>;

export const dedicatedIpFeature: FeatureDefinition<DedicatedIpSettings> = {
  type: 'FeatureDedicatedIpDTO',
  scopes: ['account'],
  multiple: false,
  members,
  defaults: {},
  description:
    "A dedicated proxy server (IP address) for the account's broker connection, by dedicatedProxyServerId: configuration only on this self-hosted service, whose broker sessions run in-process (the simulated venue) and leave from the host's own address, and whose dedicated IP pool reserves no proxy servers. The id (a positive int32) is validated, stored and returned; it changes no behaviour and is not checked against a pool.",
};
