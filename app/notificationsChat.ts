// The chat channels of the NotificationPort (issue 18 "Delivering notifications"): Telegram, Discord
// and the built-in OFFLINE chat, through engine/messaging's ChatPort `send` (grammy's Bot API client,
// @discordjs/rest). A message to a chat is a message of the durable outbox of kind CHAT, written in the
// transaction that decides it; the outbox's workers send it (this file's sender), retry it
// (NOTIFICATION_CHAT_RETRY_MS: 6 attempts over about 20 minutes), space the messages to one chat a
// second apart (Telegram's and Discord's per-chat limits) and count it for its channel (the feature).
//
// The url of a CHAT message names the bot and the chat: `chat:<messagingAccountId>/<chatId>[/<topic>]`
// for a FeatureMessagingAccountDTO's bot (its token is read and unsealed at each attempt, so a new
// token applies to pending messages), `chat:telegram/<chatId>` for the operator's bot
// (TELEGRAM_BOT_TOKEN, FeatureTelegramNotificationDTO).
import { v5 as uuidv5 } from 'uuid';
import type { Kysely } from 'kysely';
import { membersOf } from '../domain/feature/definition.js';
import type { FeatureSetting } from '../domain/feature/events.js';
import { MESSAGING_ACCOUNT, type MessagingAccountSettings, type MessagingPlatform } from '../domain/messaging/feature.js';
import {
  type ChatNotificationEntry,
  chatKeyOf,
  CHAT_NOTIFICATION_TYPES,
  MESSAGING_NOTIFICATION,
  type MessagingNotificationSettings,
  type TelegramNotificationSettings,
} from '../domain/notification/chatFeatures.js';
import type { AttemptResult } from '../engine/delivery/httpSender.js';
import type { Outbox, OutboxSender } from '../engine/delivery/outbox.js';
import { chatPortFor } from '../engine/messaging/ports.js';
import { TelegramChat } from '../engine/messaging/telegram.js';
import type { ReadModels } from '../projections/schema.js';
import type { MessagingConfig } from './messaging/config.js';
import type { NotificationsConfig } from './notificationsConfig.js';

export const CHAT_DELIVERY_KIND = 'CHAT';
/** The operator's bot in a CHAT url. */
const OPERATOR_TELEGRAM = 'telegram';
/** Messages to one chat start at least this far apart. */
const CHAT_MIN_INTERVAL_MS = 1000;
const CHAT_ATTEMPTS = 6;
/** Telegram takes 4,096 characters, Discord 2,000 (the adapter cuts there). */
const MAX_TEXT = 4000;

/** Fixed forever: the ids of chat deliveries derive from it. */
const CHAT_NAMESPACE = '5d0f3c1e-8a2b-4c6d-9e7f-1a2b3c4d5e6f';

/** One chat a channel writes to. */
export interface ChatDestination {
  /** NotificationTargetDTO.recipient: the chat ("chat/topic"), or the Telegram username. */
  readonly key: string;
  readonly name: string;
  /** The outbox url. */
  readonly url: string;
  readonly entry: ChatNotificationEntry;
}

/** A chat notification feature as a channel. */
export interface ChatChannel {
  readonly featureId: string;
  readonly projectId: string;
  readonly accountId: string | null;
  readonly type: string;
  /** The platform its bot writes on (the operator's bot: TELEGRAM). */
  readonly platform: MessagingPlatform;
  readonly destinations: readonly ChatDestination[];
}

interface FeatureRow {
  readonly id: string;
  readonly project_id: string;
  readonly account_id: string | null;
  readonly type: string;
  readonly setting: FeatureSetting;
  readonly created: Date;
}

const platformOf = (setting: FeatureSetting | undefined): MessagingPlatform => (setting ? membersOf<MessagingAccountSettings>(setting).platform : 'OFFLINE');

const channelOf = (row: FeatureRow, accounts: ReadonlyMap<string, FeatureSetting>): ChatChannel => {
  if (row.type === MESSAGING_NOTIFICATION) {
    const s = membersOf<MessagingNotificationSettings>(row.setting);
    return {
      featureId: row.id,
      projectId: row.project_id,
      accountId: row.account_id,
      type: row.type,
      platform: platformOf(accounts.get(s.messagingAccountId)),
      destinations: s.notifications.map((entry) => ({
        key: chatKeyOf(entry),
        name: entry.forumTopicId ? `${entry.chatId} → ${entry.forumTopicId}` : entry.chatId,
        url: `chat:${s.messagingAccountId}/${encodeURIComponent(entry.chatId)}${entry.forumTopicId ? `/${encodeURIComponent(entry.forumTopicId)}` : ''}`,
        entry,
      })),
    };
  }
  const s = membersOf<TelegramNotificationSettings>(row.setting);
  return {
    featureId: row.id,
    projectId: row.project_id,
    accountId: row.account_id,
    type: row.type,
    platform: 'TELEGRAM',
    destinations: s.notifications.map((entry) => ({
      key: entry.username,
      name: entry.username,
      url: `chat:${OPERATOR_TELEGRAM}/${encodeURIComponent(entry.username)}`,
      entry,
    })),
  };
};

/** The chat notification features of a project (with an account: the project's and that account's), oldest first. */
export const chatChannels = async (db: Kysely<ReadModels>, projectId: string, accountId?: string): Promise<(ChatChannel & { created: Date })[]> => {
  let q = db
    .selectFrom('features')
    .select(['id', 'project_id', 'account_id', 'type', 'setting', 'created'])
    .where('project_id', '=', projectId)
    .where('type', 'in', [...CHAT_NOTIFICATION_TYPES])
    .where('copier_id', 'is', null);
  if (accountId) q = q.where((eb) => eb.or([eb('account_id', 'is', null), eb('account_id', '=', accountId)]));
  const rows = (await q.orderBy('created').orderBy('id').execute()) as FeatureRow[];
  if (rows.length === 0) return [];
  const accountIds = rows.filter((r) => r.type === MESSAGING_NOTIFICATION).map((r) => String(r.setting.messagingAccountId));
  const accounts = new Map(
    accountIds.length === 0
      ? []
      : (await db.selectFrom('features').select(['id', 'setting']).where('type', '=', MESSAGING_ACCOUNT).where('id', 'in', accountIds).execute()).map(
          (r) => [r.id, r.setting as FeatureSetting] as const,
        ),
  );
  return rows.map((row) => ({ ...channelOf(row, accounts), created: row.created }));
};

/** The id of one chat delivery: fixed by what it reports and where it goes, so an enqueue again is a no-op. */
export const chatDeliveryId = (notificationId: string, featureId: string, key: string): string =>
  uuidv5(`${notificationId}/${featureId}/${key}`, CHAT_NAMESPACE);

/** Enqueues one chat message; pass the transaction that decides it. */
export const enqueueChat = (
  outbox: Pick<Outbox, 'enqueue'>,
  db: Kysely<ReadModels>,
  config: Pick<NotificationsConfig, 'chatRetryMs'>,
  message: {
    readonly id: string;
    readonly channel: Pick<ChatChannel, 'featureId' | 'accountId'>;
    readonly destination: Pick<ChatDestination, 'url'>;
    readonly text: string;
    readonly eventType: string;
  },
): Promise<void> =>
  outbox.enqueue(db, {
    id: message.id,
    kind: CHAT_DELIVERY_KIND,
    url: message.destination.url,
    headers: {},
    body: { text: message.text.length > MAX_TEXT ? `${message.text.slice(0, MAX_TEXT - 1)}…` : message.text },
    maxAttempts: CHAT_ATTEMPTS,
    backoffMs: config.chatRetryMs,
    timeoutMs: 15_000,
    rateLimit: { key: `chat:${message.destination.url.slice('chat:'.length)}`, minIntervalMs: CHAT_MIN_INTERVAL_MS },
    webhook: { featureId: message.channel.featureId, accountId: message.channel.accountId, eventType: message.eventType },
  });

export interface ChatSenderDeps {
  readonly db: Kysely<ReadModels>;
  readonly unseal: (ciphertext: string) => string;
  readonly notifications: Pick<NotificationsConfig, 'telegramBotToken'>;
  readonly messaging: Pick<MessagingConfig, 'telegramApiRoot' | 'discordApiRoot'>;
}

const failed = (error: string): AttemptResult => ({ ok: false, status: null, error });

/** The outbox's sender of CHAT messages: one attempt through the bot's ChatPort. */
export const chatSender = (deps: ChatSenderDeps): OutboxSender => {
  let operator: { token: string; chat: TelegramChat } | null = null;
  return async ({ url, body, timeoutMs }): Promise<AttemptResult> => {
    const match = /^chat:([^/]+)\/([^/]+)(?:\/([^/]+))?$/.exec(url);
    if (!match) return failed(`not a chat recipient: ${url}`);
    const [, bot, chat, topic] = match as unknown as [string, string, string, string | undefined];
    const chatId = decodeURIComponent(chat);
    const topicId = topic === undefined ? null : decodeURIComponent(topic);
    const { text } = JSON.parse(body) as { text: string };
    let send: () => Promise<unknown>;
    if (bot === OPERATOR_TELEGRAM) {
      const token = deps.notifications.telegramBotToken;
      if (!token) return failed('the operator has no Telegram bot (TELEGRAM_BOT_TOKEN)');
      if (operator?.token !== token) operator = { token, chat: new TelegramChat(token, deps.messaging.telegramApiRoot) };
      const port = operator.chat;
      send = () => port.send(chatId, text, topicId);
    } else {
      const row = await deps.db.selectFrom('features').select(['id', 'setting']).where('id', '=', bot).where('type', '=', MESSAGING_ACCOUNT).executeTakeFirst();
      if (!row) return failed(`the messaging account ${bot} is gone`);
      const s = membersOf<MessagingAccountSettings>(row.setting as FeatureSetting);
      let token: string | null = null;
      try {
        token = s.platform === 'OFFLINE' || !s.botToken ? null : deps.unseal(s.botToken);
      } catch (error) {
        return failed(`the bot token of ${bot} cannot be unsealed: ${String(error)}`);
      }
      const port = chatPortFor({ featureId: bot, platform: s.platform, token }, deps.messaging);
      send = () => port.send(chatId, text, topicId);
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([send(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)))]);
      return { ok: true, status: null, error: null };
    } catch (error) {
      return failed(error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
  };
};
