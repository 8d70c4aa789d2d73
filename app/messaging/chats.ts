// The chats a messaging account can read (MessagingChatDTO): what the platform lists itself (Discord's
// guild channels and threads) and what the reader has seen (Telegram tells of chats only through its
// updates: a chat appears once the bot was added to it or a message arrived there), one entry per chat
// and per topic. Posting a message: the OFFLINE chat takes it as arriving (replies, edits, deletions
// too); a bot platform sends it as the bot.
import { MESSAGING_ACCOUNT, type MessagingAccountSettings } from '../../domain/messaging/feature.js';
import { membersOf } from '../../domain/feature/definition.js';
import type { FeatureSetting } from '../../domain/feature/events.js';
import { DomainError } from '../../domain/shared/errors.js';
import { offlineChat } from '../../engine/messaging/offline.js';
import type { ChatInfo } from '../../engine/messaging/port.js';
import { seenChats } from '../../projections/messaging/queries.js';
import type { Services } from '../services.js';
import { portOfMessagingAccount } from './reader.js';

/** The chat platform failed (a bad token, unreachable): the route answers 502 [MESSAGING_PLATFORM_UNAVAILABLE]. */
export class MessagingPlatformError extends Error {}

export interface MessagingAccountRow {
  readonly featureId: string;
  readonly projectId: string;
  /** The account it is attached to; null for a project's. */
  readonly accountId: string | null;
  readonly settings: MessagingAccountSettings;
}

export const findMessagingAccount = async (services: Pick<Services, 'db'>, projectId: string, featureId: string): Promise<MessagingAccountRow | null> => {
  const row = await services.db
    .selectFrom('features')
    .select(['id', 'project_id', 'account_id', 'setting'])
    .where('id', '=', featureId)
    .where('project_id', '=', projectId)
    .where('type', '=', MESSAGING_ACCOUNT)
    .executeTakeFirst();
  return row
    ? { featureId: row.id, projectId: row.project_id, accountId: row.account_id, settings: membersOf<MessagingAccountSettings>(row.setting as FeatureSetting) }
    : null;
};

export const listMessagingChats = async (services: Services, account: MessagingAccountRow): Promise<ChatInfo[]> => {
  let live: readonly ChatInfo[];
  try {
    live = await portOfMessagingAccount(services, account).listChats();
  } catch (error) {
    throw new MessagingPlatformError(`${account.settings.platform} did not list the chats: ${error instanceof Error ? error.message : String(error)}`);
  }
  const chats = new Map<string, ChatInfo>();
  for (const row of await seenChats(services.db, account.projectId, account.featureId)) {
    const forumTopicId = row.forum_topic_id === '' ? null : row.forum_topic_id;
    chats.set(`${row.chat_id}/${row.forum_topic_id}`, {
      chatId: row.chat_id,
      forumTopicId,
      chatTitle: row.chat_title,
      topicTitle: row.topic_title,
      chatType: row.chat_type,
    });
  }
  for (const chat of live) chats.set(`${chat.chatId}/${chat.forumTopicId ?? ''}`, chat);
  return [...chats.values()].sort((a, b) => a.chatTitle.localeCompare(b.chatTitle) || (a.forumTopicId ?? '').localeCompare(b.forumTopicId ?? ''));
};

export interface PostedMessage {
  readonly text: string;
  readonly forumTopicId: string | null;
  readonly replyToMessageId: string | null;
  readonly kind: 'NEW' | 'EDIT' | 'DELETE';
  readonly messageId: string | null;
}

export const postMessagingMessage = async (
  services: Services,
  account: MessagingAccountRow,
  chatId: string,
  m: PostedMessage,
): Promise<{ messageId: string }> => {
  if (account.settings.platform === 'OFFLINE') {
    if (m.kind !== 'NEW' && m.messageId === null) throw new DomainError('validation', '[VALIDATION_FAILED]', `an ${m.kind} needs the messageId it changes`);
    const posted = offlineChat(account.featureId).post({
      chatId,
      forumTopicId: m.forumTopicId,
      text: m.text,
      replyToMessageId: m.replyToMessageId,
      kind: m.kind,
      ...(m.messageId ? { messageId: m.messageId } : {}),
    });
    return { messageId: posted.messageId };
  }
  if (m.kind !== 'NEW' || m.replyToMessageId !== null)
    throw new DomainError('validation', '[VALIDATION_FAILED]', `a ${account.settings.platform} bot only sends new messages`);
  try {
    return await portOfMessagingAccount(services, account).send(chatId, m.text, m.forumTopicId);
  } catch (error) {
    throw new MessagingPlatformError(`${account.settings.platform} did not take the message: ${error instanceof Error ? error.message : String(error)}`);
  }
};
