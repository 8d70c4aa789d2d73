// The messaging read model: the message log (one row per message a connector read: what it was parsed
// into, or why it was skipped, and what it traded; GET /accounts/{accountId}/messaging/logs) and the
// chats each messaging account has seen (MessagingChatDTO, GET /messaging/accounts/{featureId}/chats).
import { sql } from 'kysely';
import type { MessagingEvent } from '../../domain/messaging/events.js';
import { messagingEventTypes } from '../../domain/messaging/events.js';
import type { RecordedEvent } from '../../store/port.js';
import type { Projection } from '../projection.js';

export const messagingProjection: Projection = {
  name: 'messaging',
  version: 1,
  handles: messagingEventTypes,
  tables: ['messaging_logs', 'messaging_chats'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'messaging_logs')} (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      account_id uuid NOT NULL,
      connector_id uuid NOT NULL,
      messaging_account_id uuid NOT NULL,
      chat_id text NOT NULL,
      forum_topic_id text,
      message_id text NOT NULL,
      kind text NOT NULL,
      reply_to_message_id text,
      text text NOT NULL,
      posted_at timestamptz NOT NULL,
      ai_tier text NOT NULL,
      status text NOT NULL,
      reason text NOT NULL,
      signal jsonb,
      outcomes jsonb NOT NULL,
      position_ids jsonb NOT NULL,
      read_at timestamptz NOT NULL,
      seq bigserial)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'messaging_chats')} (
      messaging_account_id uuid NOT NULL,
      project_id uuid NOT NULL,
      chat_id text NOT NULL,
      forum_topic_id text NOT NULL DEFAULT '',
      chat_title text NOT NULL,
      topic_title text,
      chat_type text NOT NULL,
      seen timestamptz NOT NULL,
      PRIMARY KEY (messaging_account_id, chat_id, forum_topic_id))`.execute(db);
  },
  async createIndexes(db, schema) {
    await sql`CREATE INDEX ON ${sql.id(schema, 'messaging_logs')} (account_id, seq DESC)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'messaging_logs')} (connector_id, chat_id, message_id)`.execute(db);
  },
  async apply(db, recorded: RecordedEvent) {
    const event = recorded as unknown as MessagingEvent;
    if (event.type === 'MessagingMessageRead') {
      const d = event.data;
      await db
        .insertInto('messaging_logs')
        .values({
          id: d.logId,
          project_id: d.projectId,
          account_id: d.accountId,
          connector_id: d.connectorId,
          messaging_account_id: d.messagingAccountId,
          chat_id: d.chatId,
          forum_topic_id: d.forumTopicId,
          message_id: d.messageId,
          kind: d.kind,
          reply_to_message_id: d.replyToMessageId,
          text: d.text,
          posted_at: d.postedAt,
          ai_tier: d.aiTier,
          status: d.status,
          reason: d.reason,
          signal: d.signal === null ? null : JSON.stringify(d.signal),
          outcomes: JSON.stringify(d.outcomes),
          position_ids: JSON.stringify(d.positionIds),
          read_at: d.at,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      return;
    }
    const d = event.data;
    const values = {
      messaging_account_id: d.messagingAccountId,
      project_id: d.projectId,
      chat_id: d.chatId,
      forum_topic_id: d.forumTopicId ?? '',
      chat_title: d.chatTitle,
      topic_title: d.topicTitle,
      chat_type: d.chatType,
      seen: d.at,
    };
    await db
      .insertInto('messaging_chats')
      .values(values)
      .onConflict((oc) =>
        oc
          .columns(['messaging_account_id', 'chat_id', 'forum_topic_id'])
          .doUpdateSet({ chat_title: d.chatTitle, topic_title: d.topicTitle, chat_type: d.chatType, seen: d.at }),
      )
      .execute();
  },
};
