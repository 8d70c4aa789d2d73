// The messaging connector's use case: one message a connector read, from the chat to its log entry.
// In order: a deletion does nothing on its own; excludePatterns skip it; with includePatterns, only a
// match goes on; the aiTier's parser reads it (BASIC: domain/messaging/signal.ts; STANDARD, PRO: the
// model, model.ts); a reply to a signal (or an edit of one) closes or modifies that signal's trade, a
// new signal opens one (trades.ts). Whatever happened is recorded once per message version
// (MessagingMessageRead, its logId fixed by what the message is), so a message read again is skipped
// here, and its orders carry fixed ids besides, so a crash between the order and the record opens
// nothing twice.
import { messageLogId, messagingDecider, messagingEventId } from '../../domain/messaging/decider.js';
import type { MessageOutcome, MessageStatus } from '../../domain/messaging/events.js';
import { messagingMessageStream } from '../../domain/messaging/events.js';
import type { MessagingConnectorSettings } from '../../domain/messaging/feature.js';
import { type ChatSignal, describeSignal, type ParsedSignal, parseBasicSignal } from '../../domain/messaging/signal.js';
import { systemContext } from '../../domain/shared/command.js';
import type { ChatMessage } from '../../engine/messaging/port.js';
import { earlierTexts, findMessagingLog, messageEntries } from '../../projections/messaging/queries.js';
import { handleCommand } from '../../store/commandHandler.js';
import { commandMetadata, readYourWrites, type Services } from '../services.js';
import { readWithModel } from './model.js';
import { closeSignal, type ConnectorTarget, modifySignal, openSignal, type TradeResult } from './trades.js';

export interface Connector extends ConnectorTarget {
  readonly messagingAccountId: string;
}

/** The longest text a log entry keeps. */
const TEXT_KEPT = 4000;

interface Reading {
  readonly status: MessageStatus;
  readonly reason: string;
  readonly signal: ChatSignal | null;
  readonly result: TradeResult;
}

const nothing: TradeResult = { outcomes: [], positionIds: [] };
const skipped = (status: MessageStatus, reason: string, signal: ChatSignal | null = null): Reading => ({ status, reason, signal, result: nothing });

/** The first pattern of `patterns` the text matches (case-insensitive), or null. */
const matching = (patterns: readonly string[], text: string): string | null => patterns.find((p) => new RegExp(p, 'i').test(text)) ?? null;

/** Whether a message is one of `connector`'s: its chat, and its topic when the connector reads one. */
export const readsMessage = (
  settings: Pick<MessagingConnectorSettings, 'chatId' | 'forumTopicId'>,
  message: Pick<ChatMessage, 'chatId' | 'forumTopicId'>,
): boolean => settings.chatId === message.chatId && (settings.forumTopicId === null || settings.forumTopicId === message.forumTopicId);

const parse = async (services: Services, connector: Connector, message: ChatMessage, isReply: boolean): Promise<ParsedSignal> => {
  const tier = connector.settings.aiTier;
  if (tier === 'BASIC') return parseBasicSignal(message.text);
  const context = await earlierTexts(services.db, connector.featureId, message.chatId, connector.settings.contextMessageCount);
  return readWithModel(services.config.messaging, tier, { text: message.text.slice(0, TEXT_KEPT), context: context.map((t) => t.slice(0, 1000)), isReply });
};

const statusOf = (result: TradeResult): MessageStatus => {
  const done = result.outcomes.filter((o) => o.kind !== 'REFUSED' && o.kind !== 'NOTHING_TO_DO').length;
  if (done > 0) return 'TRADED';
  return result.outcomes.some((o) => o.kind === 'REFUSED') ? 'REFUSED' : 'NOTHING_TO_DO';
};

const traded = (signal: ChatSignal, result: TradeResult): Reading => ({
  status: statusOf(result),
  reason: `${describeSignal(signal)}: ${result.outcomes.map((o: MessageOutcome) => (o.code ? `${o.code} ${o.message}` : o.message)).join('; ') || 'nothing done'}`,
  signal,
  result,
});

const read = async (services: Services, connector: Connector, message: ChatMessage, logId: string): Promise<Reading> => {
  const s = connector.settings;
  if (message.kind === 'DELETE') return skipped('NOTHING_TO_DO', 'deleted: a deleted message does nothing on its own (its trade stays as it is)');
  const excluded = matching(s.excludePatterns, message.text);
  if (excluded !== null) return skipped('SKIPPED', `skipped: matches the exclude pattern /${excluded}/`);
  if (s.includePatterns.length > 0 && matching(s.includePatterns, message.text) === null)
    return skipped('SKIPPED', 'skipped: matches none of the include patterns');
  // The trade this message changes: an edit's own (what its earlier versions opened), else the replied-to signal's.
  const own = message.kind === 'EDIT' ? await messageEntries(services.db, connector.featureId, message.chatId, message.messageId) : [];
  const ownIds = own.flatMap((e) => e.position_ids);
  const replied = message.replyToMessageId !== null ? await messageEntries(services.db, connector.featureId, message.chatId, message.replyToMessageId) : [];
  const repliedIds = replied.flatMap((e) => e.position_ids);
  const parsed = await parse(services, connector, message, message.replyToMessageId !== null);
  if (!parsed.ok) return skipped('UNREADABLE', `not read (${s.aiTier}): ${parsed.reason}`);
  const { signal } = parsed;
  if (signal.action === 'open') {
    if (ownIds.length > 0) {
      // An edited signal: its trade takes the new stop loss and take profits; it opens nothing more.
      const result = await modifySignal(
        services,
        connector,
        logId,
        ownIds,
        { action: 'modify', symbol: signal.symbol, stopLossToEntry: false, stopLoss: signal.stopLoss, takeProfit: signal.takeProfits[0] ?? null },
        signal.takeProfits,
      );
      return traded(signal, result);
    }
    return traded(signal, await openSignal(services, connector, logId, message.messageId, signal));
  }
  const parentIds = ownIds.length > 0 ? ownIds : message.replyToMessageId !== null ? repliedIds : null;
  if (message.replyToMessageId !== null && ownIds.length === 0 && repliedIds.length === 0) {
    return skipped('NOTHING_TO_DO', `${describeSignal(signal)}: the message replied to opened no trade of this connector`, signal);
  }
  const result =
    signal.action === 'close'
      ? await closeSignal(services, connector, logId, parentIds, signal)
      : await modifySignal(services, connector, logId, parentIds, signal);
  return traded(signal, result);
};

/** Reads one message for one connector, once: answers false when it had been read already. */
export const handleMessage = async (services: Services, connector: Connector, message: ChatMessage): Promise<boolean> => {
  const logId = messageLogId(connector.featureId, message.chatId, message.messageId, message.kind, message.version);
  if (await findMessagingLog(services.db, logId)) return false;
  const reading = await read(services, connector, message, logId);
  const handled = await handleCommand(
    services.store,
    messagingMessageStream(logId),
    messagingDecider,
    {
      type: 'RecordMessagingMessage',
      data: {
        logId,
        projectId: connector.projectId,
        accountId: connector.accountId,
        connectorId: connector.featureId,
        messagingAccountId: connector.messagingAccountId,
        chatId: message.chatId,
        forumTopicId: message.forumTopicId,
        messageId: message.messageId,
        kind: message.kind,
        replyToMessageId: message.replyToMessageId,
        text: message.text.slice(0, TEXT_KEPT),
        postedAt: message.postedAt,
        aiTier: connector.settings.aiTier,
        status: reading.status,
        reason: reading.reason.slice(0, 2000),
        signal: reading.signal,
        outcomes: reading.result.outcomes,
        positionIds: reading.result.positionIds,
      },
      metadata: commandMetadata(services, { ...systemContext(`messaging-${logId}`), projectId: connector.projectId }),
    },
    { eventId: messagingEventId },
  );
  // The next message may reply to this one: the log must show it first.
  if (handled.position) await readYourWrites(services, handled.position, `message ${logId}`, ['messaging']);
  return true;
};
