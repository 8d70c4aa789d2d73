// The built-in OFFLINE chat: an in-memory chat per messaging account, for a first start (try a signal
// without a bot) and for specs. Messages are posted with post() (the route POST
// /messaging/accounts/{featureId}/chats/{chatId}/messages); each has an increasing id, and the cursor
// is the last id read. It lives in this process only: with several instances, post to the one whose
// reader holds the lease (the README says so); a restart empties it.
import type { ChatBatch, ChatInfo, ChatMessage, ChatPort } from './port.js';

interface Stored extends ChatMessage {
  readonly seq: number;
}

class OfflineChat implements ChatPort {
  readonly platform = 'OFFLINE' as const;
  private readonly messages: Stored[] = [];
  private readonly chats = new Map<string, ChatInfo>();
  private seq = 0;

  listChats(): Promise<readonly ChatInfo[]> {
    return Promise.resolve([...this.chats.values()]);
  }

  read(cursor: string | null): Promise<ChatBatch> {
    const after = cursor === null ? 0 : Number(cursor);
    const messages = this.messages.filter((m) => m.seq > after);
    return Promise.resolve({ messages, chats: [...this.chats.values()], cursor: String(messages.at(-1)?.seq ?? after) });
  }

  send(chatId: string, text: string, forumTopicId: string | null = null): Promise<{ messageId: string }> {
    return Promise.resolve({ messageId: this.post({ chatId, forumTopicId, text, replyToMessageId: null, kind: 'NEW' }).messageId });
  }

  /** A message (or an edit or deletion of one) arriving in the chat. */
  post(m: {
    chatId: string;
    forumTopicId: string | null;
    text: string;
    replyToMessageId: string | null;
    kind: ChatMessage['kind'];
    messageId?: string;
  }): ChatMessage {
    this.seq += 1;
    const chatTitle = `Offline chat ${m.chatId}`;
    this.chats.set(m.chatId, { chatId: m.chatId, forumTopicId: null, chatTitle, topicTitle: null, chatType: 'offline' });
    if (m.forumTopicId !== null) {
      this.chats.set(`${m.chatId}/${m.forumTopicId}`, {
        chatId: m.chatId,
        forumTopicId: m.forumTopicId,
        chatTitle,
        topicTitle: `Topic ${m.forumTopicId}`,
        chatType: 'offline',
      });
    }
    const message: Stored = {
      seq: this.seq,
      chatId: m.chatId,
      forumTopicId: m.forumTopicId,
      messageId: m.messageId ?? String(this.seq),
      kind: m.kind,
      version: m.kind === 'EDIT' ? String(this.seq) : '',
      text: m.text,
      replyToMessageId: m.replyToMessageId,
      postedAt: new Date().toISOString(),
    };
    this.messages.push(message);
    // Keeps the last 10,000 messages.
    if (this.messages.length > 10_000) this.messages.splice(0, this.messages.length - 10_000);
    return message;
  }
}

const chats = new Map<string, OfflineChat>();

/** The offline chat of a messaging account (featureId), made when first asked for. */
export const offlineChat = (messagingAccountId: string): OfflineChat => {
  let chat = chats.get(messagingAccountId);
  if (!chat) {
    chat = new OfflineChat();
    chats.set(messagingAccountId, chat);
  }
  return chat;
};

export type { OfflineChat };
