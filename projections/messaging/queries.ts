// Queries of the messaging read model.
import type { Kysely } from 'kysely';
import type { MessageOutcome } from '../../domain/messaging/events.js';
import type { ChatSignal } from '../../domain/messaging/signal.js';
import type { ReadModels } from '../schema.js';

export interface MessagingLogRow {
  readonly id: string;
  readonly project_id: string;
  readonly account_id: string;
  readonly connector_id: string;
  readonly messaging_account_id: string;
  readonly chat_id: string;
  readonly forum_topic_id: string | null;
  readonly message_id: string;
  readonly kind: string;
  readonly reply_to_message_id: string | null;
  readonly text: string;
  readonly posted_at: Date;
  readonly ai_tier: string;
  readonly status: string;
  readonly reason: string;
  readonly signal: ChatSignal | null;
  readonly outcomes: readonly MessageOutcome[];
  readonly position_ids: readonly string[];
  readonly read_at: Date;
}

/** An account's message log, newest first; optionally one connector's. */
export const messagingLogsOf = (
  db: Kysely<ReadModels>,
  projectId: string,
  accountId: string,
  page: { readonly limit: number; readonly offset: number; readonly connectorId?: string },
): Promise<MessagingLogRow[]> => {
  let query = db.selectFrom('messaging_logs').selectAll().where('project_id', '=', projectId).where('account_id', '=', accountId);
  if (page.connectorId) query = query.where('connector_id', '=', page.connectorId);
  return query.orderBy('seq', 'desc').limit(page.limit).offset(page.offset).execute() as unknown as Promise<MessagingLogRow[]>;
};

export const findMessagingLog = (db: Kysely<ReadModels>, logId: string): Promise<MessagingLogRow | undefined> =>
  db.selectFrom('messaging_logs').selectAll().where('id', '=', logId).executeTakeFirst() as unknown as Promise<MessagingLogRow | undefined>;

/** The entries of one message of a chat read by a connector (its first reading and its edits), oldest first. */
export const messageEntries = (db: Kysely<ReadModels>, connectorId: string, chatId: string, messageId: string): Promise<MessagingLogRow[]> =>
  db
    .selectFrom('messaging_logs')
    .selectAll()
    .where('connector_id', '=', connectorId)
    .where('chat_id', '=', chatId)
    .where('message_id', '=', messageId)
    .orderBy('seq')
    .execute() as unknown as Promise<MessagingLogRow[]>;

/** The texts of the latest messages of a chat a connector has read (the model's context for the next one: messages are read in order), oldest first. */
export const earlierTexts = async (db: Kysely<ReadModels>, connectorId: string, chatId: string, count: number): Promise<string[]> => {
  if (count <= 0) return [];
  const rows = await db
    .selectFrom('messaging_logs')
    .select(['text'])
    .where('connector_id', '=', connectorId)
    .where('chat_id', '=', chatId)
    .where('kind', '=', 'NEW')
    .orderBy('seq', 'desc')
    .limit(count)
    .execute();
  return rows.map((r) => r.text).reverse();
};

export interface MessagingChatRow {
  readonly messaging_account_id: string;
  readonly chat_id: string;
  readonly forum_topic_id: string;
  readonly chat_title: string;
  readonly topic_title: string | null;
  readonly chat_type: string;
  readonly seen: Date;
}

export const seenChats = (db: Kysely<ReadModels>, projectId: string, messagingAccountId: string): Promise<MessagingChatRow[]> =>
  db
    .selectFrom('messaging_chats')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('messaging_account_id', '=', messagingAccountId)
    .orderBy('chat_title')
    .orderBy('forum_topic_id')
    .execute() as Promise<MessagingChatRow[]>;
