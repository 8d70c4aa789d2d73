// The NotificationPort (issue 18 "Delivering notifications"): a notification (a calendar alert firing)
// goes to notification targets, each a channel of the project optionally narrowed to one recipient
// (domain/notification/targets.ts). Every delivery is a message of the durable outbox
// (engine/delivery/outbox.ts): written before the alert is marked fired, retried with the channel's
// policy, visible per channel (GET .../features/{featureId}/deliveries for a webhook; the channel's
// counts in GET /projects/{projectId}/notificationChannels), and sent by the outbox's own workers, so a
// channel that fails or hangs never holds anything else back (the copy engine least of all).
//
// Channels today: FeatureWebhookDTO (signed like its position deliveries: X-Webhook-* headers, HMAC or
// bearer, its retry policy, rate limit and timeout), the built-in e-mail channel over SMTP
// (SMTP_URL; engine/notifications/email.ts), and the chat notification features
// (FeatureMessagingNotificationDTO: TELEGRAM, DISCORD or OFFLINE by its bot's platform;
// FeatureTelegramNotificationDTO: TELEGRAM; app/notificationsChat.ts): a target with recipient null
// goes to every chat the feature names, a recipient to that chat (its key) only.
import { sql } from 'kysely';
import { v5 as uuidv5 } from 'uuid';
import { membersOf } from '../domain/feature/definition.js';
import type { FeatureSetting } from '../domain/feature/events.js';
import { emailChannelId, isEmailAddress, type NotificationTarget } from '../domain/notification/targets.js';
import { invalid } from '../domain/shared/errors.js';
import { backoffScheduleMs } from '../domain/webhook/backoff.js';
import { WEBHOOK_FEATURE_TYPE, type WebhookSettings } from '../domain/webhook/feature.js';
import { fixedWebhookHeaders } from '../domain/webhook/headers.js';
import { sealedAuthenticationOf } from '../domain/webhook/secrets.js';
import { WEBHOOK_DELIVERY_KIND } from '../engine/delivery/outbox.js';
import { EMAIL_DELIVERY_KIND } from '../engine/notifications/email.js';
import { recipientAllowed } from './notificationsConfig.js';
import { chatChannels, chatDeliveryId, enqueueChat } from './notificationsChat.js';
import { TELEGRAM_NOTIFICATION } from '../domain/notification/chatFeatures.js';
import type { Services } from './services.js';

/** Fixed forever: delivery ids derive from it. */
const NOTIFICATION_NAMESPACE = 'a3c6e2f4-1b7d-4e0a-9c58-2d4f6b8e0a13';

export type ChannelKind = 'WEBHOOK' | 'EMAIL' | 'TELEGRAM' | 'DISCORD' | 'OFFLINE';

export interface NotificationChannel {
  readonly featureId: string;
  readonly channel: ChannelKind;
  readonly name: string;
  /** An account-level channel's account; null: the project's. */
  readonly accountId: string | null;
  /** Whether a target must name a recipient (EMAIL: the address; a chat channel takes one optionally). */
  readonly recipientRequired: boolean;
  /** Recipients a client may offer (none for a webhook; for e-mail the addresses targets use already). */
  readonly recipients: readonly { readonly key: string; readonly name: string }[];
  /** The channel's deliveries by status (finished ones are kept 7 days). */
  readonly deliveries: Readonly<Record<'PENDING' | 'DELIVERED' | 'FAILED' | 'CANCELLED', number>>;
}

export interface Notification {
  /** Stable: the same notification gives the same delivery ids (an enqueue again is a no-op). */
  readonly id: string;
  readonly projectId: string;
  /** What happened: CALENDAR_ALERT. */
  readonly eventType: string;
  readonly subject: string;
  readonly text: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly at: string;
}

export interface NotificationPort {
  /** Enqueues the deliveries of `notification` to `targets`; answers how many were enqueued (targets no longer there are skipped). */
  notify(notification: Notification, targets: readonly NotificationTarget[]): Promise<number>;
}

interface WebhookRow {
  readonly id: string;
  readonly account_id: string | null;
  readonly setting: FeatureSetting;
}

const webhooksOf = async (services: Pick<Services, 'db'>, projectId: string, accountId?: string): Promise<WebhookRow[]> => {
  let q = services.db
    .selectFrom('features')
    .select(['id', 'account_id', 'setting'])
    .where('project_id', '=', projectId)
    .where('type', '=', WEBHOOK_FEATURE_TYPE);
  if (accountId) q = q.where((eb) => eb.or([eb('account_id', 'is', null), eb('account_id', '=', accountId)]));
  return (await q.where('copier_id', 'is', null).orderBy('created').orderBy('id').execute()) as WebhookRow[];
};

const EMPTY_COUNTS = { PENDING: 0, DELIVERED: 0, FAILED: 0, CANCELLED: 0 };

const deliveryCounts = async (services: Pick<Services, 'db'>, featureIds: readonly string[]) => {
  const counts = new Map<string, Record<keyof typeof EMPTY_COUNTS, number>>();
  if (featureIds.length === 0) return counts;
  const rows = await sql<{ feature_id: string; status: keyof typeof EMPTY_COUNTS; n: string }>`SELECT feature_id, status, count(*) AS n
    FROM delivery_outbox WHERE feature_id = ANY(${featureIds}::uuid[]) GROUP BY feature_id, status`.execute(services.db);
  for (const row of rows.rows) counts.set(row.feature_id, { ...(counts.get(row.feature_id) ?? EMPTY_COUNTS), [row.status]: Number(row.n) });
  return counts;
};

/** The e-mail addresses the project's alerts and rules send to (the e-mail channel's known recipients). */
const emailRecipients = async (services: Pick<Services, 'db'>, projectId: string, channelId: string): Promise<string[]> => {
  const rows = await sql<{ recipient: string }>`SELECT DISTINCT t->>'recipient' AS recipient FROM (
      SELECT jsonb_array_elements(targets) AS t FROM calendar_alerts WHERE project_id = ${projectId} AND status = 'PENDING'
      UNION ALL SELECT jsonb_array_elements(targets) FROM calendar_alert_rules WHERE project_id = ${projectId}) x
    WHERE t->>'featureId' = ${channelId} AND t->>'recipient' IS NOT NULL ORDER BY 1`.execute(services.db);
  return rows.rows.map((r) => r.recipient);
};

const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** The project's notification channels (with an account: its own and the project's). */
export const notificationChannels = async (
  services: Pick<Services, 'db' | 'config'>,
  projectId: string,
  accountId?: string,
): Promise<NotificationChannel[]> => {
  const webhooks = await webhooksOf(services, projectId, accountId);
  const chats = await chatChannels(services.db, projectId, accountId);
  const emailId = services.config.notifications.smtpUrl ? emailChannelId(projectId) : null;
  const counts = await deliveryCounts(services, [...webhooks.map((w) => w.id), ...chats.map((c) => c.featureId), ...(emailId ? [emailId] : [])]);
  const channels: NotificationChannel[] = webhooks.map((w) => ({
    featureId: w.id,
    channel: 'WEBHOOK',
    name: `Webhook to ${hostOf(membersOf<WebhookSettings>(w.setting).url)}`,
    accountId: w.account_id,
    recipientRequired: false,
    recipients: [],
    deliveries: counts.get(w.id) ?? EMPTY_COUNTS,
  }));
  for (const chat of chats) {
    channels.push({
      featureId: chat.featureId,
      channel: chat.platform,
      name: `${chat.type === TELEGRAM_NOTIFICATION ? 'Telegram' : chat.platform === 'OFFLINE' ? 'Offline chat' : chat.platform === 'TELEGRAM' ? 'Telegram' : 'Discord'}: ${chat.destinations.map((d) => d.name).join(', ')}`,
      accountId: chat.accountId,
      recipientRequired: false,
      recipients: chat.destinations.map((d) => ({ key: d.key, name: d.name })),
      deliveries: counts.get(chat.featureId) ?? EMPTY_COUNTS,
    });
  }
  if (emailId) {
    const known = await emailRecipients(services, projectId, emailId);
    channels.push({
      featureId: emailId,
      channel: 'EMAIL',
      name: 'E-mail',
      accountId: null,
      recipientRequired: true,
      recipients: known.map((address) => ({ key: address, name: address })),
      deliveries: counts.get(emailId) ?? EMPTY_COUNTS,
    });
  }
  return channels;
};

/** Refuses targets that name no channel of the project, or a recipient the channel cannot take (400 [NOTIFICATION_TARGET_INVALID]). */
export const checkTargets = async (services: Pick<Services, 'db' | 'config'>, projectId: string, targets: readonly NotificationTarget[]): Promise<void> => {
  const channels = new Map((await notificationChannels(services, projectId)).map((c) => [c.featureId, c]));
  targets.forEach((target, i) => {
    const channel = channels.get(target.featureId);
    const where = `targets[${i}]`;
    if (!channel)
      throw invalid(
        '[NOTIFICATION_TARGET_INVALID]',
        `${where}: ${target.featureId} is no notification channel of this project (GET /projects/${projectId}/notificationChannels)`,
      );
    if (channel.recipientRequired && (target.recipient === null || !isEmailAddress(target.recipient)))
      throw invalid('[NOTIFICATION_TARGET_INVALID]', `${where}: the ${channel.channel} channel needs recipient, an e-mail address`);
    if (channel.recipientRequired && target.recipient !== null && !recipientAllowed(services.config.notifications, target.recipient))
      throw invalid('[NOTIFICATION_TARGET_INVALID]', `${where}: the operator does not send e-mail to ${target.recipient} (SMTP_ALLOWED_RECIPIENTS)`);
    if (channel.channel === 'WEBHOOK' && target.recipient !== null)
      throw invalid('[NOTIFICATION_TARGET_INVALID]', `${where}: the ${channel.channel} channel takes no recipient (null)`);
    if (
      channel.channel !== 'WEBHOOK' &&
      channel.channel !== 'EMAIL' &&
      target.recipient !== null &&
      !channel.recipients.some((r) => r.key === target.recipient)
    )
      throw invalid(
        '[NOTIFICATION_TARGET_INVALID]',
        `${where}: ${target.recipient} is no chat of the ${channel.channel} channel ${channel.featureId} (its recipients: ${channel.recipients.map((r) => r.key).join(', ')}; null: all)`,
      );
  });
};

const EMAIL_RETRY = { maxAttempts: 6, backoffMs: [30_000, 60_000, 120_000, 300_000, 600_000] } as const;

/** The NotificationPort on the outbox. */
export const outboxNotifications = (services: Pick<Services, 'db' | 'config' | 'outbox' | 'log'>): NotificationPort => ({
  async notify(notification, targets) {
    const webhooks = new Map((await webhooksOf(services, notification.projectId)).map((w) => [w.id, w]));
    const emailId = services.config.notifications.smtpUrl ? emailChannelId(notification.projectId) : null;
    const chats = new Map((await chatChannels(services.db, notification.projectId)).map((c) => [c.featureId, c]));
    let count = 0;
    for (const target of targets) {
      const chat = chats.get(target.featureId);
      if (chat) {
        const destinations = chat.destinations.filter((d) => target.recipient === null || d.key === target.recipient);
        if (destinations.length === 0)
          services.log.warn(`notification ${notification.id}: ${target.recipient} is no chat of ${chat.featureId} any more; not sent`);
        for (const destination of destinations) {
          await enqueueChat(services.outbox, services.db, services.config.notifications, {
            id: chatDeliveryId(notification.id, chat.featureId, destination.key),
            channel: chat,
            destination,
            text: `${notification.subject}\n${notification.text}`,
            eventType: notification.eventType,
          });
          count += 1;
        }
        continue;
      }
      const id = uuidv5(`${notification.id}/${target.featureId}/${target.recipient ?? ''}`, NOTIFICATION_NAMESPACE);
      const webhook = webhooks.get(target.featureId);
      if (webhook) {
        const settings = membersOf<WebhookSettings>(webhook.setting);
        const body = {
          eventId: id,
          eventType: notification.eventType,
          createdAt: notification.at,
          projectId: notification.projectId,
          subject: notification.subject,
          text: notification.text,
          data: notification.data,
        };
        await services.outbox.enqueue(services.db, {
          id,
          kind: WEBHOOK_DELIVERY_KIND,
          url: settings.url,
          headers: fixedWebhookHeaders(settings.headers ?? {}, id, notification.eventType),
          body,
          maxAttempts: settings.maxAttempts,
          backoffMs: backoffScheduleMs(settings),
          timeoutMs: settings.timeoutSeconds * 1000,
          rateLimit: { key: `webhook:${webhook.id}`, minIntervalMs: Math.ceil(60_000 / settings.rateLimitPerMinute) },
          auth: sealedAuthenticationOf(webhook.setting),
          webhook: { featureId: webhook.id, accountId: webhook.account_id, eventType: notification.eventType },
        });
        count += 1;
        continue;
      }
      if (emailId && target.featureId === emailId && target.recipient && !recipientAllowed(services.config.notifications, target.recipient)) {
        services.log.warn(`notification ${notification.id}: ${target.recipient} is not among SMTP_ALLOWED_RECIPIENTS any more; not sent`);
        continue;
      }
      if (emailId && target.featureId === emailId && target.recipient && isEmailAddress(target.recipient)) {
        await services.outbox.enqueue(services.db, {
          id,
          kind: EMAIL_DELIVERY_KIND,
          url: `mailto:${target.recipient}`,
          headers: {},
          body: { subject: notification.subject, text: notification.text },
          maxAttempts: EMAIL_RETRY.maxAttempts,
          backoffMs: EMAIL_RETRY.backoffMs,
          timeoutMs: 30_000,
          rateLimit: null,
          webhook: { featureId: emailId, accountId: null, eventType: notification.eventType },
        });
        count += 1;
        continue;
      }
      services.log.warn(`notification ${notification.id}: target ${target.featureId} is no longer a channel of project ${notification.projectId}; skipped`);
    }
    if (count > 0) services.outbox.wake();
    return count;
  },
});
