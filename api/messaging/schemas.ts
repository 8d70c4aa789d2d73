// MessagingChatDTO, MessagingLogDTO and the parameters of the messaging operations. The spec names
// MessagingChatDTO (forumTopicId, and a title: for a topic "group name, arrow, topic name") and no
// operation; the reference document has none of them: the paths and the other members are ours.
import { Type } from '@sinclair/typebox';
import { IsoDateTime, Uuid } from '../shared/schemas.js';

export const MessagingChatDTO = Type.Object(
  {
    chatId: Type.String({ description: "the chat (a Telegram chat id, a Discord channel id, an OFFLINE chat name): a connector's chatId" }),
    forumTopicId: Type.Union([Type.String(), Type.Null()], {
      description: "a forum topic of the chat (a Telegram message_thread_id, a Discord thread id): a connector's forumTopicId; null for the chat itself",
    }),
    title: Type.String({ description: "the chat's name; for a topic the group's name, an arrow and the topic's name: \"Signals VIP → Gold\"" }),
    chatTitle: Type.String({ description: "ours: the chat's (group's) name" }),
    topicTitle: Type.Union([Type.String(), Type.Null()], { description: "ours: the topic's name, null for a chat" }),
    chatType: Type.String({ description: 'ours: group, supergroup, channel, private (Telegram); text, announcement, thread (Discord); offline' }),
  },
  { $id: 'MessagingChatDTO', additionalProperties: false },
);

export const MessageOutcomeDTO = Type.Object(
  {
    kind: Type.Union(['OPENED', 'PLACED', 'CLOSED', 'MODIFIED', 'REFUSED', 'NOTHING_TO_DO'].map((k) => Type.Literal(k))),
    positionId: Type.Union([Type.String(), Type.Null()]),
    volume: Type.Union([Type.Number(), Type.Null()]),
    code: Type.Union([Type.String(), Type.Null()], {
      description: "[SIGNAL_REFUSED] the signal cannot be traded (sizing, stops, caps), else the broker's code ([MARKET_CLOSED], ...)",
    }),
    message: Type.String(),
  },
  { $id: 'MessageOutcomeDTO', additionalProperties: false },
);

export const MessagingLogDTO = Type.Object(
  {
    id: Uuid,
    accountId: Uuid,
    connectorId: Type.String({ format: 'uuid', description: 'the FeatureMessagingConnectorDTO that read it' }),
    messagingAccountId: Type.String({ format: 'uuid' }),
    chatId: Type.String(),
    forumTopicId: Type.Union([Type.String(), Type.Null()]),
    messageId: Type.String(),
    kind: Type.Union([Type.Literal('NEW'), Type.Literal('EDIT'), Type.Literal('DELETE')], {
      description: 'a message posted, edited (each version once), or deleted',
    }),
    replyToMessageId: Type.Union([Type.String(), Type.Null()]),
    text: Type.String({ description: 'the message as read (at most 4000 characters kept)' }),
    postedAt: IsoDateTime,
    readAt: IsoDateTime,
    aiTier: Type.String({ description: 'the parser that read it: BASIC, STANDARD, PRO' }),
    status: Type.Union(
      ['TRADED', 'SKIPPED', 'UNREADABLE', 'REFUSED', 'NOTHING_TO_DO'].map((s) => Type.Literal(s)),
      {
        description:
          'TRADED: it opened, closed or modified a trade (outcomes say what); SKIPPED: a pattern kept it from the parser; UNREADABLE: the parser (or the model) read no signal; REFUSED: a signal that could not be traded (sizing, caps, the broker); NOTHING_TO_DO: a deletion, or a change of a trade that is gone',
      },
    ),
    reason: Type.String({ description: 'in words: what it was parsed into and what it did, or why it was skipped' }),
    signal: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description: 'the signal as read: {action: open|close|modify, symbol, ...}; null when none',
    }),
    outcomes: Type.Array(MessageOutcomeDTO),
    positionIds: Type.Array(Type.String(), { description: 'the positions and pending orders it opened (a reply or an edit changes these)' }),
  },
  { $id: 'MessagingLogDTO', additionalProperties: false },
);

export const MessagingAccountParams = Type.Object({ featureId: Uuid }, { additionalProperties: false });
export const MessagingChatParams = Type.Object({ featureId: Uuid, chatId: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });

export const PostMessageBody = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 4000 }),
    forumTopicId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
    replyToMessageId: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], { description: 'OFFLINE: the message this one replies to' }),
    ),
    kind: Type.Optional(
      Type.Union([Type.Literal('NEW'), Type.Literal('EDIT'), Type.Literal('DELETE')], {
        description: 'OFFLINE: NEW (default), or an EDIT or DELETE of messageId',
      }),
    ),
    messageId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'OFFLINE: the message an EDIT or DELETE changes' })),
  },
  { $id: 'PostMessagingMessage', additionalProperties: false },
);

export const PostedMessageDTO = Type.Object({ messageId: Type.String() }, { $id: 'PostedMessagingMessage', additionalProperties: false });

export const MessagingLogQuery = Type.Object(
  {
    connectorId: Type.Optional(Uuid),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'default 100' })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'skips from the newest; default 0' })),
  },
  { additionalProperties: false },
);
