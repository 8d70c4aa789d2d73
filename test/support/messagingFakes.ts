// Local fakes for the messaging connector's and the chat notifications' specs: small HTTP servers
// standing in for the Telegram Bot API (getMe, getUpdates with offset, sendMessage with its real answer
// and errors, forum topics), the Discord REST API (guilds, channels, channel messages with `after`,
// posting with the real message object and errors) and an OpenAI-compatible chat-completions endpoint
// (answers chosen by the spec, requests kept for it to look at).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const listen = async (handler: (req: http.IncomingMessage, body: string) => { status: number; body: unknown }) => {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      let answer: { status: number; body: unknown };
      try {
        answer = handler(req, body);
      } catch (error) {
        answer = { status: 500, body: { message: String(error) } };
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

// ------------------------------------------------------------------ Telegram Bot API
export interface FakeTelegramChat {
  readonly id: number;
  readonly title: string;
  readonly type?: 'group' | 'supergroup' | 'channel';
  readonly isForum?: boolean;
}

export const fakeTelegram = async (token: string) => {
  const updates: Record<string, unknown>[] = [];
  const sent: { chat_id: unknown; text: unknown; message_thread_id?: unknown }[] = [];
  /** Every sendMessage asked for, failed ones too. */
  const attempts: { chat_id: unknown; text: unknown; message_thread_id?: unknown }[] = [];
  let failing = 0;
  const offsets: (number | null)[] = [];
  let updateId = 100;
  let messageId = 0;
  const now = () => Math.floor(Date.now() / 1000);
  const chatOf = (c: FakeTelegramChat) => ({ id: c.id, title: c.title, type: c.type ?? 'supergroup', ...(c.isForum ? { is_forum: true } : {}) });
  const server = await listen((req, raw) => {
    const match = /^\/bot([^/]+)\/(\w+)/.exec(req.url ?? '');
    if (!match || match[1] !== token) return { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } };
    const params = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    switch (match[2]) {
      case 'getMe':
        return { status: 200, body: { ok: true, result: { id: 42, is_bot: true, first_name: 'Signals', username: 'signals_bot' } } };
      case 'getUpdates': {
        const offset = typeof params.offset === 'number' ? params.offset : null;
        offsets.push(offset);
        const limit = typeof params.limit === 'number' ? params.limit : 100;
        return { status: 200, body: { ok: true, result: updates.filter((u) => offset === null || (u.update_id as number) >= offset).slice(0, limit) } };
      }
      case 'sendMessage': {
        attempts.push({ chat_id: params.chat_id, text: params.text, message_thread_id: params.message_thread_id });
        if (failing > 0) {
          failing -= 1;
          return { status: 500, body: { ok: false, error_code: 500, description: 'Internal Server Error' } };
        }
        if (typeof params.text !== 'string' || params.text === '')
          return { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: message text is empty' } };
        const chatId = params.chat_id;
        const byName = typeof chatId === 'string' && chatId.startsWith('@');
        if (!byName && !/^-?\d+$/.test(String(chatId)))
          return { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } };
        sent.push({ chat_id: params.chat_id, text: params.text, message_thread_id: params.message_thread_id });
        messageId += 1;
        const chat = byName
          ? { id: -1001234567890, type: 'channel', title: 'x', username: chatId.slice(1) }
          : { id: Number(chatId), type: 'supergroup', title: 'x' };
        return {
          status: 200,
          body: {
            ok: true,
            result: {
              message_id: 1000 + messageId,
              date: now(),
              chat,
              text: params.text,
              ...(params.message_thread_id !== undefined ? { message_thread_id: params.message_thread_id, is_topic_message: true } : {}),
            },
          },
        };
      }
      default:
        return { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } };
    }
  });
  const push = (update: Record<string, unknown>) => updates.push({ update_id: ++updateId, ...update });
  return {
    url: server.url,
    close: server.close,
    sent,
    attempts,
    offsets,
    /** The next `count` sendMessage calls answer 500 as the Bot API does ({ok: false, error_code, description}). */
    failSends(count: number): void {
      failing = count;
    },
    /** A message posted in a chat (a topic of it, a reply); answers its message_id. */
    post(chat: FakeTelegramChat, text: string, options: { replyTo?: number; topic?: number } = {}): number {
      messageId += 1;
      push({
        message: {
          message_id: messageId,
          date: now(),
          chat: chatOf(chat),
          from: { id: 7, is_bot: false, first_name: 'Trader' },
          text,
          ...(options.topic !== undefined ? { message_thread_id: options.topic, is_topic_message: true } : {}),
          ...(options.replyTo !== undefined ? { reply_to_message: { message_id: options.replyTo, date: now(), chat: chatOf(chat), text: '' } } : {}),
        },
      });
      return messageId;
    },
    /** A forum topic created in a chat; answers its thread id. */
    createTopic(chat: FakeTelegramChat, name: string): number {
      messageId += 1;
      push({
        message: {
          message_id: messageId,
          message_thread_id: messageId,
          is_topic_message: true,
          date: now(),
          chat: chatOf({ ...chat, isForum: true }),
          forum_topic_created: { name, icon_color: 7322096 },
        },
      });
      return messageId;
    },
    edit(chat: FakeTelegramChat, id: number, text: string): void {
      push({ edited_message: { message_id: id, date: now() - 5, edit_date: now() + updateId, chat: chatOf(chat), text } });
    },
  };
};

// ------------------------------------------------------------------ Discord REST API
export const fakeDiscord = async (token: string) => {
  const guild = { id: '900000000000000001', name: 'Trading Guild' };
  const channels = [
    { id: '900000000000000010', type: 0, name: 'signals', guild_id: guild.id },
    { id: '900000000000000011', type: 2, name: 'voice', guild_id: guild.id },
  ];
  const messages = new Map<string, Record<string, unknown>[]>();
  let next = 910000000000000000n;
  const sent: { channelId: string; content: string }[] = [];
  let failing = 0;
  const server = await listen((req, raw) => {
    if (req.headers.authorization !== `Bot ${token}`) return { status: 401, body: { message: '401: Unauthorized', code: 0 } };
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/api\/v10/, '');
    if (path === '/users/@me/guilds') return { status: 200, body: [{ ...guild, icon: null, owner: false, permissions: '0', features: [] }] };
    if (path === `/guilds/${guild.id}/channels`) return { status: 200, body: channels };
    const m = /^\/channels\/(\d+)\/messages$/.exec(path);
    if (m) {
      const list = messages.get(m[1]!) ?? [];
      if (req.method === 'POST') {
        if (failing > 0) {
          failing -= 1;
          return { status: 403, body: { message: 'Missing Access', code: 50001 } };
        }
        const content = (JSON.parse(raw || '{}') as { content?: string }).content ?? '';
        if (content === '' || content.length > 2000)
          return {
            status: 400,
            body: {
              message: 'Invalid Form Body',
              code: 50035,
              errors: { content: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH', message: 'Must be 2000 or fewer in length.' }] } },
            },
          };
        sent.push({ channelId: m[1]!, content });
        const message = {
          id: String(++next),
          type: 0,
          channel_id: m[1],
          content,
          timestamp: new Date().toISOString(),
          edited_timestamp: null,
          author: { id: '42', username: 'signals-bot', bot: true },
          attachments: [],
          embeds: [],
          mentions: [],
          mention_roles: [],
          pinned: false,
          mention_everyone: false,
          tts: false,
        };
        return { status: 200, body: message };
      }
      const after = url.searchParams.get('after');
      const limit = Number(url.searchParams.get('limit') ?? 50);
      const newestFirst = [...list].sort((a, b) => (BigInt(a.id as string) < BigInt(b.id as string) ? 1 : -1));
      const picked = after ? newestFirst.filter((x) => BigInt(x.id as string) > BigInt(after)) : newestFirst;
      return { status: 200, body: picked.slice(0, limit) };
    }
    return { status: 404, body: { message: 'Unknown', code: 0 } };
  });
  return {
    url: `${server.url}/api`,
    close: server.close,
    guild,
    channelId: channels[0]!.id,
    /** Messages the bot posted (POST /channels/{id}/messages), by channel (a thread is a channel). */
    sent,
    /** The next `count` posts answer 403 Missing Access, as Discord does for a channel the bot may not write to. */
    failPosts(count: number): void {
      failing = count;
    },
    post(channelId: string, content: string, replyTo?: string): string {
      const id = String(++next);
      const list = messages.get(channelId) ?? [];
      list.push({
        id,
        channel_id: channelId,
        content,
        timestamp: new Date().toISOString(),
        edited_timestamp: null,
        author: { id: '5', username: 'trader' },
        ...(replyTo ? { message_reference: { message_id: replyTo, channel_id: channelId } } : {}),
      });
      messages.set(channelId, list);
      return id;
    },
  };
};

// ------------------------------------------------------------------ OpenAI-compatible model endpoint
export interface ModelRequest {
  readonly model: string;
  readonly messages: readonly { role: string; content: string }[];
  readonly response_format?: { type: string; json_schema?: { strict?: boolean; schema?: unknown } };
}

export const fakeModel = async (answer: (request: ModelRequest, message: { message: string; context: string[] }) => Record<string, unknown> | string) => {
  const requests: ModelRequest[] = [];
  const server = await listen((req, raw) => {
    if (req.method !== 'POST' || !(req.url ?? '').endsWith('/chat/completions')) return { status: 404, body: { error: { message: 'not found' } } };
    const request = JSON.parse(raw) as ModelRequest;
    requests.push(request);
    const user = JSON.parse(request.messages.find((m) => m.role === 'user')!.content) as { message: string; context: string[] };
    const content = answer(request, user);
    return {
      status: 200,
      body: {
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: request.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: typeof content === 'string' ? content : JSON.stringify(content), refusal: null },
            finish_reason: 'stop',
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      },
    };
  });
  return { url: `${server.url}/v1`, close: server.close, requests };
};
