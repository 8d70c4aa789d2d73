// FeatureMyHomeIpDTO (the reference: "my home ip feature (project) (PRO)": host, httpPort, socksPort,
// username, password; AccountDTO.myHomeIp has the same shape; the spec lists it as an account
// feature: it attaches to both). In the field the broker connection is tunnelled through a proxy at
// the trader's home, so the broker sees the trader's own address. Configuration only on this
// self-hosted service: it already runs where its operator puts it (at home, if they like), and its
// broker sessions run in-process against the simulated venue. The members are validated, stored and
// returned, and change nothing.
//   The password is a secret like a webhook's: sealed by the credential key before it reaches an event
// (so the events, the read model and the audit log never hold it in clear), answered as
// MY_HOME_IP_PASSWORD_MASK; a PUT that sends the mask (or "") keeps the stored one.
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';
import type { FeatureSetting } from '../feature/events.js';
import type { Sealer } from '../webhook/secrets.js';
import { maskSecretMembers, type SealResult, SECRET_MEMBER_MASK, sealSecretMembers } from '../feature/secretMembers.js';

export const MY_HOME_IP = 'FeatureMyHomeIpDTO';
export const MY_HOME_IP_PASSWORD_MASK = SECRET_MEMBER_MASK;

const Port = (what: string) => Type.Integer({ minimum: 1, maximum: 65535, description: `the port of the ${what} proxy at home (1 to 65535); optional` });

const members = Type.Object({
  host: Type.String({
    anyOf: [{ format: 'hostname' }, { format: 'ipv4' }, { format: 'ipv6' }],
    maxLength: 253,
    description: 'your IP address or DNS host name; required',
  }),
  httpPort: Type.Optional(Port('HTTP')),
  socksPort: Type.Optional(Port('SOCKS')),
  username: Type.String({ minLength: 1, maxLength: 255, description: 'the user name for SOCKS/HTTP authentication; required' }),
  password: Type.String({
    maxLength: 255,
    description: `the password for SOCKS/HTTP authentication; required when the feature is added. Stored encrypted, answered as "${MY_HOME_IP_PASSWORD_MASK}" (also in the audit log); on PUT, "${MY_HOME_IP_PASSWORD_MASK}" or "" keeps the stored one`,
  }),
});
export type MyHomeIpSettings = Static<typeof members>;

export const myHomeIpFeature: FeatureDefinition<MyHomeIpSettings> = {
  type: MY_HOME_IP,
  scopes: ['account', 'project'],
  multiple: false,
  members,
  defaults: {},
  description: `A proxy at the trader's home through which the broker connection would leave, so the broker sees the trader's own address; attached to a project (the reference) or an account (the spec). Configuration only on this self-hosted service (it runs where its operator puts it; broker sessions run in-process against the simulated venue): host (a host name or an IP address), httpPort, socksPort, username and password are validated, stored and returned; they change no behaviour. The password is stored encrypted and answered as "${MY_HOME_IP_PASSWORD_MASK}"; a PUT with "${MY_HOME_IP_PASSWORD_MASK}" or "" keeps it.`,
};

/** The setting as answered (and as the audit log shows it): the password replaced by the mask. */
export const maskMyHomeIpPassword = (setting: FeatureSetting): FeatureSetting =>
  setting.type === MY_HOME_IP ? maskSecretMembers(setting, ['password']) : setting;

/**
 * The setting to store, or the problem: a password sent in clear is sealed (kept as stored when it did
 * not change, so an unchanged PUT records nothing); the mask or "" keeps the stored one, which must
 * exist then.
 */
export const sealMyHomeIpPassword = (sent: FeatureSetting, previous: FeatureSetting | null, sealer: Sealer): SealResult =>
  sealSecretMembers(sent, previous, ['password'], sealer, ['password']);
