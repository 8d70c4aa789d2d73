// Write-only members of a feature setting (a proxy's password, a payment key, an OAuth client secret):
// stored sealed by the service's credential key, so the events, the read model and the audit log never
// hold them in clear, and answered as SECRET_MEMBER_MASK. A PUT that leaves one out, or sends the mask
// or "" back, keeps the stored value, so a client may GET, change and PUT; null removes an optional one. The webhook's secrets follow
// the same rule inside its `authentication` member (domain/webhook/secrets.ts).
import type { Sealer } from '../webhook/secrets.js';
import type { FeatureSetting } from './events.js';

export const SECRET_MEMBER_MASK = '********';

/** A value sealed under another key (CREDENTIALS_KEY changed) is simply replaced. */
const unsealedOrNull = (sealer: Sealer, sealed: string): string | null => {
  try {
    return sealer.unseal(sealed);
  } catch {
    return null;
  }
};

/** The setting as answered: each secret member that holds a value replaced by the mask. */
export const maskSecretMembers = (setting: FeatureSetting, members: readonly string[]): FeatureSetting => {
  const masked: Record<string, unknown> = { ...setting };
  for (const name of members) if (typeof masked[name] === 'string' && masked[name] !== '') masked[name] = SECRET_MEMBER_MASK;
  return masked as FeatureSetting;
};

export type SealResult = { readonly ok: true; readonly setting: FeatureSetting } | { readonly ok: false; readonly problem: string };

/**
 * The setting to store, or the problem: a value sent in clear is sealed (kept as stored when it did not
 * change, so an unchanged PUT records nothing); left out, the mask or "" keeps the stored one. A member
 * in `required` must then have a stored value; another member without one stays unset ("").
 */
export const sealSecretMembers = (
  sent: FeatureSetting,
  previous: FeatureSetting | null,
  members: readonly string[],
  sealer: Sealer,
  required: readonly string[] = [],
  /** false: "" removes an optional member, as null does (default: "" keeps the stored one). */
  emptyKeeps = true,
): SealResult => {
  const result: Record<string, unknown> = { ...sent };
  for (const name of members) {
    const given = sent[name];
    if (given === null || (given === '' && !emptyKeeps)) {
      if (required.includes(name)) return { ok: false, problem: `${name} is required` };
      delete result[name];
      continue;
    }
    const stored = typeof previous?.[name] === 'string' && previous[name] !== '' ? (previous[name] as string) : undefined;
    if (given === undefined || given === '' || given === SECRET_MEMBER_MASK) {
      if (stored === undefined && required.includes(name)) return { ok: false, problem: `${name} is required` };
      if (stored === undefined) delete result[name];
      else result[name] = stored;
      continue;
    }
    if (typeof given !== 'string') return { ok: false, problem: `${name} must be a string` };
    result[name] = stored !== undefined && unsealedOrNull(sealer, stored) === given ? stored : sealer.seal(given);
  }
  return { ok: true, setting: result as FeatureSetting };
};
