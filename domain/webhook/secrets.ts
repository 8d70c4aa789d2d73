// The webhook's secrets (the HMAC secret, the bearer token) are write-only. A setting is stored with
// the secret sealed (encrypted by the service's credential key: the events, the read model and the
// audit log never hold it in clear) and answered with SECRET_MASK in its place. A PUT that leaves the
// secret out, or sends the mask back, keeps the stored one, so a client may GET, change and PUT.
import type { FeatureSetting } from '../feature/events.js';

export const SECRET_MASK = '********';

export interface Sealer {
  seal(plain: string): string;
  unseal(sealed: string): string;
}

type AuthMember = { type: string; secret?: string; token?: string };

const secretKey = (auth: AuthMember): 'secret' | 'token' | null => (auth.type === 'HMAC_SHA256' ? 'secret' : auth.type === 'BEARER' ? 'token' : null);

const authOf = (setting: FeatureSetting | null): AuthMember | null => {
  const auth = setting?.authentication;
  return auth && typeof auth === 'object' ? (auth as AuthMember) : null;
};

/** A secret sealed under another key (CREDENTIALS_KEY changed) is simply replaced. */
const unsealedOrNull = (sealer: Sealer, sealed: string): string | null => {
  try {
    return sealer.unseal(sealed);
  } catch {
    return null;
  }
};

/** The setting as answered: the secret replaced by the mask. */
export const maskWebhookSecrets = (setting: FeatureSetting): FeatureSetting => {
  const auth = authOf(setting);
  const key = auth && secretKey(auth);
  if (!auth || !key || auth[key] === undefined) return setting;
  return { ...setting, authentication: { ...auth, [key]: SECRET_MASK } };
};

/**
 * The setting to store, or the problem: a secret sent in clear is sealed (kept as it was stored when
 * it did not change, so an unchanged PUT records nothing); a secret left out or sent as the mask is
 * the stored one, which must then exist for the same authentication type.
 */
export const sealWebhookSecrets = (
  sent: FeatureSetting,
  previous: FeatureSetting | null,
  sealer: Sealer,
): { readonly ok: true; readonly setting: FeatureSetting } | { readonly ok: false; readonly problem: string } => {
  const auth = authOf(sent);
  const key = auth && secretKey(auth);
  if (!auth || !key) return { ok: true, setting: sent };
  const given = auth[key];
  const before = authOf(previous);
  const stored = before && before.type === auth.type ? before[key] : undefined;
  const withSecret = (value: string) => ({ ok: true as const, setting: { ...sent, authentication: { ...auth, [key]: value } } });
  if (given === undefined || given === SECRET_MASK) {
    if (stored === undefined) return { ok: false, problem: `authentication.${key} is required for ${auth.type}` };
    return withSecret(stored);
  }
  if (stored !== undefined && unsealedOrNull(sealer, stored) === given) return withSecret(stored);
  return withSecret(sealer.seal(given));
};

/** The authentication of a stored setting with its secret still sealed (the outbox unseals it per attempt); null for NONE. */
export const sealedAuthenticationOf = (setting: FeatureSetting): { type: 'HMAC_SHA256' | 'BEARER'; sealed: string } | null => {
  const auth = authOf(setting);
  const key = auth && secretKey(auth);
  const sealed = key ? auth[key] : undefined;
  return key && sealed ? { type: auth.type as 'HMAC_SHA256' | 'BEARER', sealed } : null;
};
