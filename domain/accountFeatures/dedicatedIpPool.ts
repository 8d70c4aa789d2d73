// FeatureDedicatedIpPoolDTO (spec: account feature, named only). In the field: the account's broker
// connection leaves from one address of a pool reserved for the customer. Like FeatureDedicatedIpDTO,
// configuration only here: broker sessions run in-process and leave from the host's address. The pool
// is validated, stored and returned, and changes nothing.
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';
import { IpAddress } from './dedicatedIp.js';

const members = Type.Object({
  ipAddresses: Type.Array(IpAddress, { minItems: 1, maxItems: 32, uniqueItems: true, description: 'the addresses of the pool, IPv4 or IPv6, each once' }),
});
export type DedicatedIpPoolSettings = Static<typeof members>;

export const dedicatedIpPoolFeature: FeatureDefinition<DedicatedIpPoolSettings> = {
  type: 'FeatureDedicatedIpPoolDTO',
  scopes: ['account'],
  multiple: false,
  members,
  defaults: {},
  description:
    "A pool of outbound IP addresses for the account's broker connection: configuration only on this self-hosted service, whose broker sessions run in-process (the simulated venue) and leave from the host's own address. ipAddresses (1 to 32 distinct IPv4 or IPv6 addresses) are validated, stored and returned; they change no behaviour.",
};
