// FeatureMyHomeIpDTO (spec: account feature, named only; AccountDTO has `myHomeIp` too). In the field:
// the broker connection is tunnelled through a proxy at the trader's home, so the broker sees the
// trader's own address. Configuration only on this self-hosted service: it already runs where its
// operator puts it (at home, if they like), and its broker sessions run in-process against the
// simulated venue. The proxy's address is validated, stored and returned, and changes nothing. No
// credentials are taken: there is nothing that would use them.
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';

const members = Type.Object({
  host: Type.String({
    anyOf: [{ format: 'hostname' }, { format: 'ipv4' }, { format: 'ipv6' }],
    maxLength: 253,
    description: "the home proxy's host name or IP address",
  }),
  port: Type.Integer({ minimum: 1, maximum: 65535, description: "the home proxy's port" }),
  protocol: Type.Union([Type.Literal('SOCKS5'), Type.Literal('HTTP')], { description: 'the proxy protocol; default SOCKS5' }),
});
export type MyHomeIpSettings = Static<typeof members>;

export const myHomeIpFeature: FeatureDefinition<MyHomeIpSettings> = {
  type: 'FeatureMyHomeIpDTO',
  scopes: ['account'],
  multiple: false,
  members,
  defaults: { protocol: 'SOCKS5' },
  description:
    "A proxy at the trader's home through which the broker connection would leave, so the broker sees the trader's own address: configuration only on this self-hosted service (it runs where its operator puts it; broker sessions run in-process against the simulated venue). host (a host name or an IP address), port and protocol (SOCKS5 default, or HTTP) are validated, stored and returned; they change no behaviour. No credentials are taken.",
};
