// Compatibility of a template with the project as it is now (spec "Templates": CURRENT, AUTO_MIGRATED,
// REVIEW_NEEDED; the spec leaves the transitions open, these are ours). The marker is a function of the
// template's latest revision and of which accounts it refers to still exist, so it follows every
// deletion at once and needs no event of its own:
// - CURRENT: every master the template's copiers name exists and is not deleted.
// - AUTO_MIGRATED: some masters are gone, but only inactive copiers (active false: they copied nothing)
//   name them. Applying leaves those copiers out, and the account still copies exactly what the template
//   copies; the attention flags say which were left out.
// - REVIEW_NEEDED: an active copier names a master that is gone. What the account should copy instead is
//   a person's decision: applying is refused (409 [TEMPLATE_REVIEW_NEEDED]) until an update stores a
//   revision without that reference (PUT with sourceAccountId re-snapshots an account).
// Every new revision starts from its own references again: an update whose masters all exist is CURRENT.
import type { TemplatePayload } from './payload.js';

export type CompatibilityMarker = 'CURRENT' | 'AUTO_MIGRATED' | 'REVIEW_NEEDED';

export const COMPATIBILITY_MARKERS: readonly CompatibilityMarker[] = ['CURRENT', 'AUTO_MIGRATED', 'REVIEW_NEEDED'];

export interface AttentionFlag {
  /** MASTER_DELETED: the account is deleted; MASTER_NOT_FOUND: no such account in the project. */
  readonly code: 'MASTER_DELETED' | 'MASTER_NOT_FOUND';
  /** Where in the payload: `copiers[0]`. */
  readonly path: string;
  readonly accountId: string;
  /** Whether applying leaves the copier out (inactive copier) or is refused (active copier). */
  readonly effect: 'LEFT_OUT_WHEN_APPLIED' | 'BLOCKS_APPLYING';
}

export interface Compatibility {
  readonly marker: CompatibilityMarker;
  readonly attentionFlags: readonly AttentionFlag[];
}

/** `gone`: per master id the template names that no longer exists, whether it was deleted or never was. */
export const compatibilityOf = (payload: TemplatePayload, gone: ReadonlyMap<string, 'MASTER_DELETED' | 'MASTER_NOT_FOUND'>): Compatibility => {
  const attentionFlags: AttentionFlag[] = [];
  payload.copiers.forEach((copier, i) => {
    const code = gone.get(copier.fromAccountId);
    if (!code) return;
    attentionFlags.push({
      code,
      path: `copiers[${i}]`,
      accountId: copier.fromAccountId,
      effect: copier.settings.active ? 'BLOCKS_APPLYING' : 'LEFT_OUT_WHEN_APPLIED',
    });
  });
  const blocking = attentionFlags.filter((f) => f.effect === 'BLOCKS_APPLYING').length;
  return { marker: markerOf(blocking, attentionFlags.length - blocking), attentionFlags };
};

/** The marker from how many of the template's copiers name a master that is gone: active ones (they block applying), inactive ones (left out). */
export const markerOf = (goneActive: number, goneInactive: number): CompatibilityMarker =>
  goneActive > 0 ? 'REVIEW_NEEDED' : goneInactive > 0 ? 'AUTO_MIGRATED' : 'CURRENT';

/** The payload as applying uses it: copiers left out by the compatibility rules removed, with their scoped risk limits. */
export const applicablePayload = (payload: TemplatePayload, compatibility: Compatibility): TemplatePayload => {
  const leftOut = new Set(compatibility.attentionFlags.filter((f) => f.effect === 'LEFT_OUT_WHEN_APPLIED').map((f) => f.accountId));
  if (leftOut.size === 0) return payload;
  return {
    ...payload,
    copiers: payload.copiers.filter((c) => !leftOut.has(c.fromAccountId)),
    riskLimits: payload.riskLimits.filter((r) => r.copierFromAccountId === null || !leftOut.has(r.copierFromAccountId)),
  };
};
