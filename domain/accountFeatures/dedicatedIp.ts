// FeatureDedicatedIpDTO (spec: account feature, named only; AccountDTO has `dedicatedIp` too). In the
// field: the account's broker connection leaves from an IP address of its own (brokers and prop firms
// match accounts by IP). On this self-hosted service broker sessions run in-process against the
// simulated venue and leave from whatever address the host has: no address is chosen per account. So
// the feature is configuration only: the address is validated, stored and returned, and changes nothing.
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';

export const IpAddress = Type.String({ anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }], description: 'an IPv4 or IPv6 address' });

const members = Type.Object({
  ipAddress: IpAddress,
});
export type DedicatedIpSettings = Static<typeof members>;

export const dedicatedIpFeature: FeatureDefinition<DedicatedIpSettings> = {
  type: 'FeatureDedicatedIpDTO',
  scopes: ['account'],
  multiple: false,
  members,
  defaults: {},
  description:
    "A dedicated outbound IP address for the account's broker connection: configuration only on this self-hosted service, whose broker sessions run in-process (the simulated venue) and leave from the host's own address. ipAddress (IPv4 or IPv6) is validated, stored and returned; it changes no behaviour.",
};
