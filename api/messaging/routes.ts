// The messaging connector's operations (ours: the spec names MessagingChatDTO and no path):
//   GET  /messaging/accounts/{featureId}/chats                    the chats a FeatureMessagingAccountDTO can read
//   POST /messaging/accounts/{featureId}/chats/{chatId}/messages  a message into the OFFLINE chat, or sent by the bot
//   GET  /accounts/{accountId}/messaging/logs                     every message the account's connectors read
// The features themselves are account and project features (POST /accounts/{accountId}/features, ...).
import { type Static, Type } from '@sinclair/typebox';
import { findMessagingAccount, listMessagingChats, type MessagingAccountRow, MessagingPlatformError, postMessagingMessage } from '../../app/messaging/chats.js';
import type { Services } from '../../app/services.js';
import { messagingLogsOf } from '../../projections/messaging/queries.js';
import { AccountIdParams } from '../accounts/schemas.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import { checkAccountScope, loadAccount } from '../shared/accounts.js';
import { errorResponses } from '../shared/schemas.js';
import { toMessagingChatDTO, toMessagingLogDTO } from './dto.js';
import {
  MessagingAccountParams,
  MessagingChatDTO,
  MessagingChatParams,
  MessagingLogDTO,
  MessagingLogQuery,
  PostedMessageDTO,
  PostMessageBody,
} from './schemas.js';

const TAG = 'Messaging connector';
const DEFAULT_LIMIT = 100;

const platformError = (error: unknown): never => {
  if (error instanceof MessagingPlatformError) throw new ApiError(502, '[MESSAGING_PLATFORM_UNAVAILABLE]', error.message);
  throw error;
};

export const messagingRoutes = (routes: Routes, services: Services): void => {
  const messagingAccount = async (caller: Caller, featureId: string): Promise<MessagingAccountRow> => {
    const account = await findMessagingAccount(services, caller.projectId, featureId);
    if (!account) throw new ApiError(404, '[FEATURE_NOT_FOUND]', `no FeatureMessagingAccountDTO ${featureId}`);
    if (account.accountId) checkAccountScope(caller, account.accountId);
    else if (caller.accountId) throw new ApiError(404, '[FEATURE_NOT_FOUND]', `no FeatureMessagingAccountDTO ${featureId}`);
    return account;
  };

  routes.add<{ featureId: string }, unknown, unknown>({
    method: 'get',
    path: '/messaging/accounts/{featureId}/chats',
    tag: TAG,
    operationId: 'listMessagingChats',
    summary: 'The chats a messaging account can read (MessagingChatDTO)',
    description:
      'featureId: a FeatureMessagingAccountDTO of an account or of the project. One entry per chat and per forum topic: the chats the platform lists (Discord: the bot\'s guild text, announcement and thread channels) and those the reader has seen (Telegram lists none: a chat appears once the bot was added to it or a message arrived there, read while the account is polled; OFFLINE: the chats messages were posted to). title: the chat\'s name; for a topic "group name → topic name" (U+2192 between spaces). A platform that does not answer: 502 [MESSAGING_PLATFORM_UNAVAILABLE].',
    params: MessagingAccountParams,
    responses: {
      200: { description: 'the chats', schema: Type.Array(MessagingChatDTO) },
      ...errorResponses(400, 401, 404),
      502: { description: 'the chat platform did not answer ([MESSAGING_PLATFORM_UNAVAILABLE])' },
    },
    async handler({ params, caller }) {
      const account = await messagingAccount(caller, params.featureId);
      const chats = await listMessagingChats(services, account).catch(platformError);
      return { body: chats.map(toMessagingChatDTO) };
    },
  });

  routes.add<{ featureId: string; chatId: string }, unknown, Static<typeof PostMessageBody>>({
    method: 'post',
    path: '/messaging/accounts/{featureId}/chats/{chatId}/messages',
    tag: TAG,
    operationId: 'postMessagingMessage',
    summary: 'A message into a chat: arriving in the OFFLINE chat, or sent by the bot',
    description:
      "OFFLINE messaging accounts (the built-in chat, for a first start and tests): the message arrives in the chat as a trader's would, and the connectors reading the chat read it at their next poll; replyToMessageId makes it a reply, kind EDIT or DELETE with messageId changes or deletes an earlier one. The OFFLINE chat lives in the memory of the instance that took it (with several instances, the one whose reader holds the lease reads it; a restart empties it). TELEGRAM and DISCORD: the bot sends the text to the chat (or topic) as a new message (what notifications do); replies, edits and deletions are refused (400). Answers the message id.",
    params: MessagingChatParams,
    body: PostMessageBody,
    responses: {
      200: { description: 'the message', schema: PostedMessageDTO },
      ...errorResponses(400, 401, 404),
      502: { description: 'the chat platform did not take it ([MESSAGING_PLATFORM_UNAVAILABLE])' },
    },
    async handler({ params, caller, body }) {
      const account = await messagingAccount(caller, params.featureId);
      const posted = await postMessagingMessage(services, account, params.chatId, {
        text: body.text,
        forumTopicId: body.forumTopicId ?? null,
        replyToMessageId: body.replyToMessageId ?? null,
        kind: body.kind ?? 'NEW',
        messageId: body.messageId ?? null,
      }).catch(platformError);
      return { body: posted };
    },
  });

  routes.add<{ accountId: string }, Static<typeof MessagingLogQuery>, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/messaging/logs',
    tag: TAG,
    operationId: 'listMessagingLogs',
    summary: "Every message the account's messaging connectors read, and what each came to, newest first",
    description:
      "One entry per message (and per edited version, and deletion) a FeatureMessagingConnectorDTO of the account read: what it was parsed into and what it traded (opened, placed, closed, modified, refused and why), or why it was skipped (an exclude pattern, no include pattern, the parser or the model read no signal, the caps or the broker refused it). connectorId keeps one connector's; limit (default 100, at most 1000) and offset page from the newest. An account of another project: 404 [ACCOUNT_NOT_FOUND].",
    params: AccountIdParams,
    query: MessagingLogQuery,
    responses: { 200: { description: 'the message log', schema: Type.Array(MessagingLogDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params, query, caller }) {
      await loadAccount(services, caller, params.accountId);
      const rows = await messagingLogsOf(services.db, caller.projectId, params.accountId, {
        limit: query.limit ?? DEFAULT_LIMIT,
        offset: query.offset ?? 0,
        ...(query.connectorId ? { connectorId: query.connectorId } : {}),
      });
      return { body: rows.map(toMessagingLogDTO) };
    },
  });
};
