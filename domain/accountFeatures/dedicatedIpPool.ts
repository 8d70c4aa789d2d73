// FeatureDedicatedIpPoolDTO (the reference: "a pool of dedicated IPs feature (project)": `poolSize`, the
// number of dedicated proxy servers wanted per region, and the read-only `dedicatedProxyServerIds`,
// the proxy servers the system reserved per region, which FeatureDedicatedIpDTO picks from; the spec
// lists it as an account feature: it attaches to both). Configuration only here: this self-hosted
// service has no proxy servers to reserve (broker sessions run in-process and leave from the host's
// address), so poolSize is validated, stored and returned, and dedicatedProxyServerIds is always
// empty: that is the truth of what is reserved.
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';
import { proxyRegions } from '../account/enums.js';

/** A region as map key: the ProxyRegionDTO id in decimal ("2" for London). */
const REGION_KEYS = proxyRegions.map((r) => String(r.id));
const regionWords = proxyRegions.map((r) => `"${r.id}" ${r.name}`).join(', ');

const ProxyDTO = Type.Object(
  {
    id: Type.Optional(Type.Integer({ readOnly: true })),
    ipAddress: Type.Optional(Type.String({ readOnly: true })),
    region: Type.Optional(Type.Object({ id: Type.Integer(), name: Type.Optional(Type.String({ readOnly: true })) })),
    usedByAccounts: Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { readOnly: true })),
  },
  { readOnly: true, description: 'a reserved proxy server (the reference ProxyDTO)' },
);

const members = Type.Object({
  poolSize: Type.Record(Type.String(), Type.Integer({ minimum: 0, maximum: 100 }), {
    propertyNames: { enum: REGION_KEYS },
    description: `the number of dedicated proxy servers (IPs) wanted per region (0 to 100), keyed by ProxyRegionDTO id: ${regionWords} (GET /types/proxyRegions); required. Another key gives 400 [VALIDATION_FAILED]`,
  }),
  dedicatedProxyServerIds: Type.Record(Type.String(), Type.Array(ProxyDTO), {
    readOnly: true,
    description:
      'read-only: the proxy servers reserved per region. Always {} here: this self-hosted service has no proxy servers to reserve (its broker sessions leave from the host address); values sent are ignored',
  }),
});
export type DedicatedIpPoolSettings = Static<typeof members>;

export const dedicatedIpPoolFeature: FeatureDefinition<DedicatedIpPoolSettings> = {
  type: 'FeatureDedicatedIpPoolDTO',
  scopes: ['account', 'project'],
  multiple: false,
  members,
  defaults: { dedicatedProxyServerIds: {} },
  stateMembers: ['dedicatedProxyServerIds'],
  description:
    "A pool of dedicated proxy servers (IPs) per region for the broker connections, attached to a project (the reference) or an account (the spec): configuration only on this self-hosted service, whose broker sessions run in-process (the simulated venue) and leave from the host's own address. poolSize (servers wanted per region, keyed by ProxyRegionDTO id) is validated, stored and returned; it changes no behaviour, and dedicatedProxyServerIds (read-only) stays {}: no proxy server is ever reserved.",
};
