// The messaging connector's deciders: a message is recorded once (its logId and event id are fixed by
// what it is), a chat is recorded as seen whenever its title changes.
import { v5 as uuidv5 } from 'uuid';
import type { CommandMetadata, Decider } from '../shared/command.js';
import type { MessageKind, MessagingChatSeenData, MessagingEvent, MessagingMessageReadData } from './events.js';

/** Fixed forever: log ids, event ids and client order ids of chat messages derive from it. */
export const MESSAGING_NAMESPACE = '6a0c3f8e-41d2-4c7b-9e15-2b8d7f4a6c91';

export type MessagingCommand =
  | { type: 'RecordMessagingMessage'; data: Omit<MessagingMessageReadData, 'at'>; metadata: CommandMetadata }
  | { type: 'RecordMessagingChat'; data: Omit<MessagingChatSeenData, 'at'>; metadata: CommandMetadata };

export interface MessagingState {
  readonly recorded: boolean;
  readonly titles: ReadonlySet<string>;
}

export const messagingDecider: Decider<MessagingCommand, MessagingEvent, MessagingState> = {
  initialState: { recorded: false, titles: new Set() },
  decide(command, state) {
    const at = command.metadata.now;
    if (command.type === 'RecordMessagingMessage') return state.recorded ? [] : [{ type: 'MessagingMessageRead', data: { ...command.data, at } }];
    const key = chatKey(command.data);
    return state.titles.has(key) ? [] : [{ type: 'MessagingChatSeen', data: { ...command.data, at } }];
  },
  evolve(state, event) {
    if (event.type === 'MessagingMessageRead') return { ...state, recorded: true };
    return { ...state, titles: new Set([...state.titles, chatKey(event.data)]) };
  },
};

const chatKey = (d: Omit<MessagingChatSeenData, 'at'>): string => JSON.stringify([d.chatId, d.forumTopicId, d.chatTitle, d.topicTitle]);

/** The log id of a connector's reading of one version of a message: the same whoever reads it again. */
export const messageLogId = (connectorId: string, chatId: string, messageId: string, kind: MessageKind, version: string): string =>
  uuidv5(`${connectorId}/${chatId}/${messageId}/${kind}/${version}`, MESSAGING_NAMESPACE);

export const messagingEventId = (event: MessagingEvent): string =>
  event.type === 'MessagingMessageRead'
    ? uuidv5(`${event.data.logId}/read`, MESSAGING_NAMESPACE)
    : uuidv5(`${event.data.messagingAccountId}/${chatKey(event.data)}`, MESSAGING_NAMESPACE);

/** The client order id of a message's leg: a replayed message places nothing twice. */
export const messageOrderId = (logId: string, what: string): string => uuidv5(`${logId}/${what}`, MESSAGING_NAMESPACE);
