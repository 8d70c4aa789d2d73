// The chat port: what the service needs of a chat platform, whatever it is (Telegram, Discord, the
// built-in offline chat). The messaging connector reads with it (app/messaging/reader.ts); the
// notification channels (the calendar issue's) send with it: `send` needs nothing else.
// Adapters: offline.ts (in memory), telegram.ts (grammy), discord.ts (@discordjs/rest); chatPortFor
// (ports.ts) picks one for a FeatureMessagingAccountDTO.

/** A chat (or a forum topic of one) the bot can read. */
export interface ChatInfo {
  readonly chatId: string;
  /** null: the chat itself; else the topic (a Telegram message_thread_id, a Discord thread id). */
  readonly forumTopicId: string | null;
  readonly chatTitle: string;
  /** The topic's name, null for a chat. */
  readonly topicTitle: string | null;
  /** group, supergroup, channel, private (Telegram); text, announcement, thread (Discord); offline. */
  readonly chatType: string;
}

/** A message, or the change of one, as read from a chat. */
export interface ChatMessage {
  readonly chatId: string;
  readonly forumTopicId: string | null;
  readonly messageId: string;
  readonly kind: 'NEW' | 'EDIT' | 'DELETE';
  /** Tells versions of an edited message apart (the edit time); '' for NEW and DELETE. */
  readonly version: string;
  readonly text: string;
  readonly replyToMessageId: string | null;
  /** ISO 8601 time of posting or of the change. */
  readonly postedAt: string;
}

/** What one read brought: messages in the order they happened, and the cursor to read on from. */
export interface ChatBatch {
  readonly messages: readonly ChatMessage[];
  /** Chats the platform told of while reading (Telegram: the chats and topics of the updates). */
  readonly chats: readonly ChatInfo[];
  readonly cursor: string | null;
}

export interface ChatPort {
  readonly platform: 'OFFLINE' | 'TELEGRAM' | 'DISCORD';
  /** The chats the platform lists itself (Discord: the bot's guild channels and threads; Telegram: none, it lists none). */
  listChats(): Promise<readonly ChatInfo[]>;
  /**
   * What arrived after `cursor` (null: from now on, or what the platform still keeps), in the chats
   * `chatIds` where the platform reads per chat (Discord). Never answers a message the cursor it
   * returns has passed; may answer one again if the cursor was not stored (the reader dedupes).
   */
  read(cursor: string | null, chatIds: readonly string[]): Promise<ChatBatch>;
  /** Posts `text` (plain text) to a chat or topic; answers the new message's id. */
  send(chatId: string, text: string, forumTopicId?: string | null): Promise<{ readonly messageId: string }>;
}

/** A platform failure in words (a bad token, the platform unreachable): the reader logs it and tries again later. */
export class ChatPortError extends Error {}
