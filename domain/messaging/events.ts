// The messaging connector's events. Every message a connector reads is one stream,
// `messagingMessage-<logId>` (logId fixed by the connector, the chat, the message and its version:
// decider.ts), with one MessagingMessageRead event saying what it was parsed into, or why it was
// skipped, and what was traded; so a message read twice (a replay, a second instance) is recorded once.
// The chats a messaging account has seen (Telegram tells of chats only through the updates it sends)
// are MessagingChatSeen events of the stream `messagingChats-<messagingAccountId>`.
import type { ChatSignal } from './signal.js';

/** new: posted; edit: changed (a new version); delete: removed. */
export type MessageKind = 'NEW' | 'EDIT' | 'DELETE';

/** What a message came to: traded (or changed a trade), skipped before the parser, not read, refused, nothing to do. */
export type MessageStatus = 'TRADED' | 'SKIPPED' | 'UNREADABLE' | 'REFUSED' | 'NOTHING_TO_DO';

/** One thing done, or not done, for a message. */
export interface MessageOutcome {
  readonly kind: 'OPENED' | 'PLACED' | 'CLOSED' | 'MODIFIED' | 'REFUSED' | 'NOTHING_TO_DO';
  readonly positionId: string | null;
  readonly volume: number | null;
  readonly code: string | null;
  readonly message: string;
}

export interface MessagingMessageReadData {
  readonly logId: string;
  readonly projectId: string;
  readonly accountId: string;
  readonly connectorId: string;
  readonly messagingAccountId: string;
  readonly chatId: string;
  readonly forumTopicId: string | null;
  readonly messageId: string;
  readonly kind: MessageKind;
  readonly replyToMessageId: string | null;
  /** The text as read, cut to 4000 characters. */
  readonly text: string;
  /** When the chat says it was posted or changed. */
  readonly postedAt: string;
  readonly aiTier: string;
  readonly status: MessageStatus;
  /** Why it was skipped, not read or refused; what it did otherwise, in words. */
  readonly reason: string;
  readonly signal: ChatSignal | null;
  readonly outcomes: readonly MessageOutcome[];
  /** The positions and pending orders this message opened (a reply or an edit later changes them). */
  readonly positionIds: readonly string[];
  readonly at: string;
}

export interface MessagingChatSeenData {
  readonly messagingAccountId: string;
  readonly projectId: string;
  readonly chatId: string;
  readonly forumTopicId: string | null;
  readonly chatTitle: string;
  readonly topicTitle: string | null;
  readonly chatType: string;
  readonly at: string;
}

export type MessagingEvent = { type: 'MessagingMessageRead'; data: MessagingMessageReadData } | { type: 'MessagingChatSeen'; data: MessagingChatSeenData };

export const messagingEventTypes = ['MessagingMessageRead', 'MessagingChatSeen'] as const;

export const messagingMessageStream = (logId: string): string => `messagingMessage-${logId}`;
export const messagingChatsStream = (messagingAccountId: string): string => `messagingChats-${messagingAccountId}`;
