// Where a notification goes (spec "Events" 3: "a channel feature instance, optionally narrowed to one
// recipient"): NotificationTargetDTO. The channels are features of the project (GET
// /projects/{projectId}/notificationChannels lists them with their recipients):
//   - FeatureWebhookDTO (project- or account-level): the signed webhook; no recipient;
//   - the built-in e-mail channel (emailChannelId(projectId): one per project, when the operator
//     configured SMTP_URL): the recipient is the address, required.
// Bounds are ours: at most MAX_TARGETS targets per alert or rule, an address at most 254 characters.
import { v5 as uuidv5 } from 'uuid';

export interface NotificationTarget {
  readonly featureId: string;
  /** The recipient within the channel (an e-mail address); null: the channel as a whole. */
  readonly recipient: string | null;
}

export const MAX_TARGETS = 10;

/**
 * The built-in e-mail channel's featureId in a project (there is no e-mail feature DTO: the service's
 * SMTP is the channel). Fixed per project, so its deliveries are the project's own.
 */
export const emailChannelId = (projectId: string): string => uuidv5(`notification-channel:email/${projectId}`, '6ba7b811-9dad-11d1-80b4-00c04fd430c8');

const ADDRESS = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/;

export const isEmailAddress = (text: string): boolean => text.length <= 254 && ADDRESS.test(text);

/** The same target twice (same channel, same recipient) is kept once; answers the list without repeats. */
export const distinctTargets = (targets: readonly NotificationTarget[]): NotificationTarget[] => {
  const seen = new Set<string>();
  return targets.filter((t) => {
    const key = `${t.featureId}/${t.recipient ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

export const sameTargets = (a: readonly NotificationTarget[], b: readonly NotificationTarget[]): boolean =>
  a.length === b.length && a.every((t, i) => t.featureId === b[i]!.featureId && t.recipient === b[i]!.recipient);
