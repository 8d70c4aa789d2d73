// The chat notification features (issue 18 "Delivering notifications"; spec "Feature DTOs":
// FeatureMessagingNotificationDTO with MessagingNotificationDTO, `useAlias`; the reference's
// FeatureTelegramNotificationDTO with TelegramNotificationDTO). Both are notification channels: the
// account log lines of their accounts (copies, skips, protections, connection changes: LogDTO) at or
// above each entry's logLevel go to its chat, and calendar alerts, news filter warnings and agendas
// name them in notificationTargets (GET /projects/{projectId}/notificationChannels). Deliveries go
// through the durable outbox (app/notificationsChat.ts), so a chat that fails never holds copying back.
//   - FeatureMessagingNotificationDTO (ours beyond `useAlias`, the spec names no other member): sends
//     with the bot of a FeatureMessagingAccountDTO (messagingAccountId: Telegram, Discord or the
//     built-in OFFLINE chat) to the chats (and forum topics) its entries name.
//   - FeatureTelegramNotificationDTO (the reference's members): sends with the operator's Telegram bot
//     (TELEGRAM_BOT_TOKEN) to `username`: a public channel or group (@name) or a chat id (a person
//     must have started the bot first: the Bot API lets a bot write to nobody else).
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';

export const MESSAGING_NOTIFICATION = 'FeatureMessagingNotificationDTO';
export const TELEGRAM_NOTIFICATION = 'FeatureTelegramNotificationDTO';
export const CHAT_NOTIFICATION_TYPES: readonly string[] = [MESSAGING_NOTIFICATION, TELEGRAM_NOTIFICATION];

/** Entries per feature, accounts per entry: ours. */
export const CHAT_NOTIFICATION_LIMITS = { entries: 20, accountIds: 500 } as const;

/** LogTypeDTO ids (GET /types/logTypes): 1 Error, 2 Warning, 3 Info. */
const LOG_LEVELS: Readonly<Record<number, string>> = { 1: 'Error', 2: 'Warning', 3: 'Info' };

const LogLevel = Type.Object(
  {
    id: Type.Integer({ minimum: -2147483648, maximum: 2147483647 }),
    name: Type.Optional(Type.String({ readOnly: true, description: 'answered by the service; ignored when sent' })),
  },
  {
    description:
      'LogTypeDTO, send only the id: 1 Error, 2 Warning, 3 Info. The least severe level sent: Warning sends warnings and errors, Info every line. Another id: 400 [VALIDATION_FAILED]',
  },
);

const AccountIds = Type.Array(Type.String({ format: 'uuid', description: 'Only the account IDs listed here will receive notifications' }), {
  maxItems: CHAT_NOTIFICATION_LIMITS.accountIds,
  uniqueItems: true,
  description:
    "Only the account IDs listed here will receive notifications: their log lines are sent. Empty or left out (default): every account of the project (of a feature on an account: that account's only). An id of no account of this project: 400 [VALIDATION_FAILED]",
});

const common = {
  logLevel: LogLevel,
  accountIds: Type.Optional(AccountIds),
  useAlias: Type.Optional(
    Type.Boolean({
      description:
        'Use alias instead of UUID for identification: accounts are named by their alias (AccountDTO.alias) in the messages, where they have one (default false)',
    }),
  ),
  aliasMapping: Type.Optional(
    Type.Record(Type.String(), Type.String({ readOnly: true }), {
      readOnly: true,
      description:
        "read-only: the aliases of accountIds (account id → alias) as the accounts have them now (an account's new alias is answered here from its change on); messages use each account's alias at sending time",
    }),
  ),
};

export const MessagingNotificationMembers = Type.Object(
  {
    chatId: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'required: the chat written to, as MessagingChatDTO.chatId lists it (a Telegram chat id, a Discord channel id, an OFFLINE chat)',
    }),
    forumTopicId: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], {
        description: 'the forum topic written to (a Telegram message_thread_id, a Discord thread id); null (default) = the chat itself',
      }),
    ),
    ...common,
  },
  { additionalProperties: false, description: 'One chat (or forum topic) the feature writes to, and what it sends there' },
);

export const TelegramNotificationMembers = Type.Object(
  {
    username: Type.String({
      minLength: 2,
      maxLength: 64,
      pattern: '^(@[A-Za-z0-9_]{4,32}|-?[0-9]{1,20})$',
      description:
        "Enter the Telegram username (e.g. @john98734): a public channel or group (@name) the operator's bot (TELEGRAM_BOT_TOKEN) may post in, or a numeric chat id (a person who started the bot: the Bot API lets a bot write to no person by username). Required",
    }),
    ...common,
  },
  { additionalProperties: false, description: 'List of telegram notifications' },
);

const messagingMembers = Type.Object({
  messagingAccountId: Type.String({
    format: 'uuid',
    description:
      "ours, required: the FeatureMessagingAccountDTO (of this project, or of this feature's account) whose bot writes: TELEGRAM (sendMessage), DISCORD (channel messages) or the built-in OFFLINE chat",
  }),
  notifications: Type.Array(MessagingNotificationMembers, {
    minItems: 1,
    maxItems: CHAT_NOTIFICATION_LIMITS.entries,
    description: `required: the chats written to (1 to ${CHAT_NOTIFICATION_LIMITS.entries})`,
  }),
});

const telegramMembers = Type.Object({
  notifications: Type.Array(TelegramNotificationMembers, {
    maxItems: CHAT_NOTIFICATION_LIMITS.entries,
    description: `List of telegram notifications (at most ${CHAT_NOTIFICATION_LIMITS.entries})`,
  }),
});

export type MessagingNotificationEntry = Static<typeof MessagingNotificationMembers>;
export type TelegramNotificationEntry = Static<typeof TelegramNotificationMembers>;
export type MessagingNotificationSettings = Static<typeof messagingMembers>;
export type TelegramNotificationSettings = Static<typeof telegramMembers>;

/** What both kinds of entry share. */
export interface ChatNotificationEntry {
  readonly logLevel: { readonly id: number; readonly name?: string };
  readonly accountIds?: readonly string[];
  readonly useAlias?: boolean;
  readonly aliasMapping?: Readonly<Record<string, string>>;
}

const checkEntries = (entries: readonly ChatNotificationEntry[]): string | null => {
  for (const [i, entry] of entries.entries()) {
    if (!LOG_LEVELS[entry.logLevel.id]) return `notifications[${i}].logLevel: id must be 1 (Error), 2 (Warning) or 3 (Info)`;
  }
  return null;
};

/** An entry as stored and answered: defaults filled, the log level with its name. */
export const normalizedEntry = <E extends ChatNotificationEntry>(entry: E, aliases: Readonly<Record<string, string>>): E => ({
  ...entry,
  logLevel: { id: entry.logLevel.id, name: LOG_LEVELS[entry.logLevel.id] ?? String(entry.logLevel.id) },
  accountIds: entry.accountIds ?? [],
  useAlias: entry.useAlias ?? false,
  aliasMapping: Object.fromEntries((entry.accountIds ?? []).filter((id) => aliases[id] !== undefined).map((id) => [id, aliases[id]!])),
});

/**
 * A chat notification feature's setting after account `accountId` took `alias` (null: none): each entry
 * naming the account answers the new alias in its aliasMapping (the features read model keeps it right,
 * projections/features/projector.ts); null when no entry names the account.
 */
export const settingWithAlias = <S extends { readonly notifications?: readonly ChatNotificationEntry[] }>(
  setting: S,
  accountId: string,
  alias: string | null,
): S | null => {
  const entries = setting.notifications ?? [];
  if (!entries.some((e) => (e.accountIds ?? []).includes(accountId))) return null;
  const notifications = entries.map((entry) => {
    if (!(entry.accountIds ?? []).includes(accountId)) return entry;
    const { [accountId]: _old, ...others } = entry.aliasMapping ?? {};
    // Keep the order of accountIds, as a save answers it.
    const mapping: Record<string, string> = alias ? { ...others, [accountId]: alias } : others;
    return { ...entry, aliasMapping: Object.fromEntries((entry.accountIds ?? []).filter((id) => mapping[id] !== undefined).map((id) => [id, mapping[id]!])) };
  });
  return { ...setting, notifications };
};

/** Whether a log line of `logTypeId` (1 Error .. 3 Info) of `accountId` goes to the entry. */
export const entryTakes = (entry: ChatNotificationEntry, accountId: string, logTypeId: number): boolean =>
  logTypeId <= entry.logLevel.id && ((entry.accountIds ?? []).length === 0 || (entry.accountIds ?? []).includes(accountId));

/** The recipient key of a messaging entry (NotificationTargetDTO.recipient): the chat, "chat/topic" for a topic. */
export const chatKeyOf = (entry: { readonly chatId: string; readonly forumTopicId?: string | null }): string =>
  entry.forumTopicId ? `${entry.chatId}/${entry.forumTopicId}` : entry.chatId;

export const messagingNotificationFeature: FeatureDefinition<MessagingNotificationSettings> = {
  type: MESSAGING_NOTIFICATION,
  scopes: ['project', 'account'],
  multiple: true,
  members: messagingMembers,
  defaults: {},
  description:
    "Notifications to chats through a FeatureMessagingAccountDTO's bot (messagingAccountId; Telegram, Discord or OFFLINE): each entry (MessagingNotificationDTO) names a chat (chatId, forumTopicId) and sends it the account log lines (LogDTO: copies, skipped trades with their reason, protections, connection changes) of accountIds at or above logLevel, accounts named by alias when useAlias. The feature is also a notification channel (GET /projects/{projectId}/notificationChannels, recipients: its chats) for calendar alerts and the news filter's warnings. Deliveries go through the durable outbox (6 attempts over about 20 minutes, at most one message a second per chat), counted per channel; a chat that fails never holds copying back.",
  check: (s) => {
    const keys = new Set<string>();
    for (const [i, entry] of s.notifications.entries()) {
      const key = chatKeyOf(entry);
      if (keys.has(key)) return `notifications[${i}]: the chat ${key} is named twice`;
      keys.add(key);
    }
    return checkEntries(s.notifications);
  },
};

export const telegramNotificationFeature: FeatureDefinition<TelegramNotificationSettings> = {
  type: TELEGRAM_NOTIFICATION,
  scopes: ['project'],
  multiple: false,
  members: telegramMembers,
  defaults: {},
  description:
    "Notifications to Telegram through the operator's bot (TELEGRAM_BOT_TOKEN; without it the feature is refused with 400 [FEATURE_TYPE_NOT_SUPPORTED]): each entry (TelegramNotificationDTO) sends `username` the account log lines of accountIds at or above logLevel, accounts named by alias when useAlias. Also a notification channel (recipients: the usernames). Deliveries go through the durable outbox like the messaging notifications'.",
  check: (s) => {
    const names = new Set<string>();
    for (const [i, entry] of s.notifications.entries()) {
      if (names.has(entry.username)) return `notifications[${i}]: ${entry.username} is named twice`;
      names.add(entry.username);
    }
    return checkEntries(s.notifications);
  },
};
