// MessagingChatDTO and MessagingLogDTO from the messaging read model and the chat port.
import type { ChatInfo } from '../../engine/messaging/port.js';
import type { MessagingLogRow } from '../../projections/messaging/queries.js';

const iso = (value: Date | string): string => new Date(value).toISOString();

/** The spec's title rule: a topic is "group name → topic name". */
export const chatTitleOf = (chat: Pick<ChatInfo, 'chatTitle' | 'topicTitle' | 'forumTopicId'>): string =>
  chat.forumTopicId !== null && chat.topicTitle !== null ? `${chat.chatTitle} → ${chat.topicTitle}` : chat.chatTitle;

export const toMessagingChatDTO = (chat: ChatInfo) => ({
  chatId: chat.chatId,
  forumTopicId: chat.forumTopicId,
  title: chatTitleOf(chat),
  chatTitle: chat.chatTitle,
  topicTitle: chat.topicTitle,
  chatType: chat.chatType,
});

export const toMessagingLogDTO = (row: MessagingLogRow) => ({
  id: row.id,
  accountId: row.account_id,
  connectorId: row.connector_id,
  messagingAccountId: row.messaging_account_id,
  chatId: row.chat_id,
  forumTopicId: row.forum_topic_id,
  messageId: row.message_id,
  kind: row.kind as 'NEW' | 'EDIT' | 'DELETE',
  replyToMessageId: row.reply_to_message_id,
  text: row.text,
  postedAt: iso(row.posted_at),
  readAt: iso(row.read_at),
  aiTier: row.ai_tier,
  status: row.status as 'TRADED' | 'SKIPPED' | 'UNREADABLE' | 'REFUSED' | 'NOTHING_TO_DO',
  reason: row.reason,
  signal: row.signal as Record<string, unknown> | null,
  outcomes: row.outcomes.map((o) => ({ kind: o.kind, positionId: o.positionId, volume: o.volume, code: o.code, message: o.message })),
  positionIds: [...row.position_ids],
});
