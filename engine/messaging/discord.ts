// The Discord adapter of the chat port, through @discordjs/rest (REST only, no gateway connection). A
// bot reads a channel by polling GET /channels/{id}/messages: new messages with `after` the last id
// read (the cursor holds the last id per channel), and the latest 20 again for edits (a message whose
// edited_timestamp is new is read as an EDIT; the log dedupes versions already read). The reader polls
// every MESSAGING_POLL_INTERVAL_MS (default 2 seconds), well inside Discord's 50 requests per second.
// Deletions are not seen by polling: a deleted message does nothing anyway. Threads (forum posts) are
// channels of their own: a connector's forumTopicId is the thread's id, read as its own channel.
// `api` points @discordjs/rest at another server (the specs' fake: MESSAGING_DISCORD_API_ROOT).
import { REST } from '@discordjs/rest';
import { type APIChannel, type APIGuild, type APIMessage, ChannelType, Routes } from 'discord-api-types/v10';
import { type ChatBatch, type ChatInfo, type ChatMessage, type ChatPort, ChatPortError } from './port.js';

/** Messages asked for per channel and read (Discord's most). */
const LIMIT = 100;
/** The latest messages read again for edits. */
const EDIT_WINDOW = 20;

const byId = (a: { id: string }, b: { id: string }): number => (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0);

const READABLE = new Set<number>([
  ChannelType.GuildText,
  ChannelType.GuildAnnouncement,
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
  ChannelType.AnnouncementThread,
]);

export class DiscordChat implements ChatPort {
  readonly platform = 'DISCORD' as const;
  private readonly rest: REST;

  constructor(token: string, apiRoot: string | null) {
    this.rest = new REST({ version: '10', ...(apiRoot ? { api: apiRoot } : {}), retries: 1, timeout: 10_000 }).setToken(token);
  }

  async listChats(): Promise<readonly ChatInfo[]> {
    const guilds = (await this.call(() => this.rest.get(Routes.userGuilds()))) as APIGuild[];
    const chats: ChatInfo[] = [];
    for (const guild of guilds) {
      const channels = (await this.call(() => this.rest.get(Routes.guildChannels(guild.id)))) as APIChannel[];
      const names = new Map(channels.map((c) => [c.id, 'name' in c && c.name ? c.name : c.id]));
      for (const channel of channels) {
        if (!READABLE.has(channel.type)) continue;
        const isThread =
          'parent_id' in channel && channel.type !== ChannelType.GuildText && channel.type !== ChannelType.GuildAnnouncement && channel.parent_id;
        const name = 'name' in channel && channel.name ? channel.name : channel.id;
        chats.push(
          isThread
            ? {
                chatId: channel.parent_id!,
                forumTopicId: channel.id,
                chatTitle: `${guild.name} #${names.get(channel.parent_id!) ?? channel.parent_id}`,
                topicTitle: name,
                chatType: 'thread',
              }
            : {
                chatId: channel.id,
                forumTopicId: null,
                chatTitle: `${guild.name} #${name}`,
                topicTitle: null,
                chatType: channel.type === ChannelType.GuildAnnouncement ? 'announcement' : 'text',
              },
        );
      }
    }
    return chats;
  }

  /** `chatIds`: the channels to read; a thread is given as "channelId/threadId". */
  async read(cursor: string | null, chatIds: readonly string[]): Promise<ChatBatch> {
    const last: Record<string, string> = cursor ? (JSON.parse(cursor) as Record<string, string>) : {};
    const messages: ChatMessage[] = [];
    for (const key of chatIds) {
      const [chatId, threadId] = key.split('/') as [string, string | undefined];
      const channel = threadId ?? chatId;
      const after = last[key];
      if (after === undefined) {
        // A channel read for the first time: from its latest message on (history is not traded).
        const latest = (await this.call(() => this.rest.get(Routes.channelMessages(channel), { query: new URLSearchParams({ limit: '1' }) }))) as APIMessage[];
        last[key] = latest[0]?.id ?? '0';
        continue;
      }
      const fresh = (
        (await this.call(() => this.rest.get(Routes.channelMessages(channel), { query: new URLSearchParams({ after, limit: String(LIMIT) }) }))) as APIMessage[]
      ).sort(byId);
      const recent = (await this.call(() =>
        this.rest.get(Routes.channelMessages(channel), { query: new URLSearchParams({ limit: String(EDIT_WINDOW) }) }),
      )) as APIMessage[];
      for (const m of recent.sort(byId)) {
        if (m.edited_timestamp && BigInt(m.id) <= BigInt(after)) messages.push(this.messageOf(m, chatId, threadId ?? null, 'EDIT'));
      }
      // A message edited before it was first read: its NEW, then its EDIT.
      for (const m of fresh) {
        messages.push(this.messageOf(m, chatId, threadId ?? null, 'NEW'));
        if (m.edited_timestamp) messages.push(this.messageOf(m, chatId, threadId ?? null, 'EDIT'));
      }
      if (fresh.length > 0) last[key] = fresh.at(-1)!.id;
    }
    return { messages, chats: [], cursor: JSON.stringify(last) };
  }

  async send(chatId: string, text: string, forumTopicId: string | null = null): Promise<{ messageId: string }> {
    const sent = (await this.call(() =>
      this.rest.post(Routes.channelMessages(forumTopicId ?? chatId), { body: { content: text.slice(0, 2000) } }),
    )) as APIMessage;
    return { messageId: sent.id };
  }

  private messageOf(m: APIMessage, chatId: string, threadId: string | null, kind: 'NEW' | 'EDIT'): ChatMessage {
    return {
      chatId,
      forumTopicId: threadId,
      messageId: m.id,
      kind,
      version: kind === 'EDIT' ? (m.edited_timestamp ?? '') : '',
      text: m.content,
      replyToMessageId: m.message_reference?.message_id ?? null,
      postedAt: new Date(kind === 'EDIT' && m.edited_timestamp ? m.edited_timestamp : m.timestamp).toISOString(),
    };
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw new ChatPortError(`Discord REST failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
