// The Telegram adapter of the chat port, through grammy's Bot API client (`Api`). Reading is getUpdates
// with the stored offset as the cursor (short polls, `timeout` 0: the reader's own interval paces them,
// MESSAGING_POLL_INTERVAL_MS), so an update the cursor has passed is never answered again; the Bot API
// keeps unconfirmed updates for 24 hours. It reads messages, channel posts and their edits, replies
// (reply_to_message), forum topics (message_thread_id, forum_topic_created names them). The Bot API
// tells a bot of no deleted message: a deletion is never read on Telegram. `apiRoot` points grammy at
// another Bot API server (a local one, or the specs' fake: MESSAGING_TELEGRAM_API_ROOT).
import { Api } from 'grammy';
import type { Message, Update } from 'grammy/types';
import { type ChatBatch, type ChatInfo, type ChatMessage, type ChatPort, ChatPortError } from './port.js';

/** Updates asked for per read (the Bot API's most). */
const LIMIT = 100;

const chatTitleOf = (chat: Message['chat']): string =>
  'title' in chat && chat.title
    ? chat.title
    : [('first_name' in chat && chat.first_name) || '', ('last_name' in chat && chat.last_name) || ''].join(' ').trim() || String(chat.id);

export class TelegramChat implements ChatPort {
  readonly platform = 'TELEGRAM' as const;
  private readonly api: Api;
  /** Topic names seen (forum_topic_created), by chat and thread id. */
  private readonly topics = new Map<string, string>();

  constructor(token: string, apiRoot: string | null) {
    this.api = new Api(token, apiRoot ? { apiRoot } : undefined);
  }

  listChats(): Promise<readonly ChatInfo[]> {
    // The Bot API has no method that lists a bot's chats: the reader records those its updates show.
    return Promise.resolve([]);
  }

  async read(cursor: string | null): Promise<ChatBatch> {
    let updates: Update[];
    try {
      updates = await this.api.getUpdates({
        ...(cursor !== null ? { offset: Number(cursor) } : {}),
        limit: LIMIT,
        timeout: 0,
        allowed_updates: ['message', 'edited_message', 'channel_post', 'edited_channel_post', 'my_chat_member'],
      });
    } catch (error) {
      throw new ChatPortError(`Telegram getUpdates failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    const messages: ChatMessage[] = [];
    const chats = new Map<string, ChatInfo>();
    let next = cursor === null ? null : Number(cursor);
    for (const update of updates) {
      next = Math.max(next ?? 0, update.update_id + 1);
      const member = update.my_chat_member;
      if (member) chats.set(String(member.chat.id), this.chatOf(member.chat as Message['chat'], null));
      const edited = update.edited_message ?? update.edited_channel_post;
      const message = edited ?? update.message ?? update.channel_post;
      if (!message) continue;
      const chatId = String(message.chat.id);
      const topic = message.is_topic_message && message.message_thread_id !== undefined ? String(message.message_thread_id) : null;
      if (message.forum_topic_created) this.topics.set(`${chatId}/${message.message_thread_id}`, message.forum_topic_created.name);
      chats.set(chatId, this.chatOf(message.chat, null));
      if (topic !== null) chats.set(`${chatId}/${topic}`, this.chatOf(message.chat, topic));
      const text = message.text ?? message.caption;
      if (text === undefined) continue;
      const reply = message.reply_to_message;
      // In a forum, every message of a topic "replies" to the topic's first message: not a reply to a signal.
      const replyTo = reply && !reply.forum_topic_created ? String(reply.message_id) : null;
      messages.push({
        chatId,
        forumTopicId: topic,
        messageId: String(message.message_id),
        kind: edited ? 'EDIT' : 'NEW',
        version: edited ? String(edited.edit_date ?? update.update_id) : '',
        text,
        replyToMessageId: replyTo,
        postedAt: new Date((edited?.edit_date ?? message.date) * 1000).toISOString(),
      });
    }
    return { messages, chats: [...chats.values()], cursor: next === null ? cursor : String(next) };
  }

  async send(chatId: string, text: string, forumTopicId: string | null = null): Promise<{ messageId: string }> {
    try {
      const sent = await this.api.sendMessage(chatId, text, forumTopicId !== null ? { message_thread_id: Number(forumTopicId) } : {});
      return { messageId: String(sent.message_id) };
    } catch (error) {
      throw new ChatPortError(`Telegram sendMessage failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Checks the token: the bot's name (getMe). */
  async botName(): Promise<string> {
    const me = await this.api.getMe();
    return me.username;
  }

  private chatOf(chat: Message['chat'], topic: string | null): ChatInfo {
    const chatId = String(chat.id);
    return {
      chatId,
      forumTopicId: topic,
      chatTitle: chatTitleOf(chat),
      topicTitle: topic === null ? null : (this.topics.get(`${chatId}/${topic}`) ?? (topic === '1' ? 'General' : `Topic ${topic}`)),
      chatType: chat.type,
    };
  }
}
