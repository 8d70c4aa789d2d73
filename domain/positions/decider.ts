// The trading requests of an account, as the audit log and the account logs need them: each request is
// recorded once (TradeRequested, who asked for what), and a venue's refusal of it once
// (TradeRequestRejected, why). A retry under the same Idempotency-Key names the same request, so it
// records nothing new. The venue is the authority on the book: whether an order is possible is its
// answer, not this decider's.
//
// The decider is one request's view of the account's positions stream, so its state is two flags and
// folding a long stream stays cheap (the stream also holds every venue change of the account).
import { v5 as uuidv5 } from 'uuid';
import type { Decider } from '../shared/command.js';
import type { TradeRequestCommand } from './commands.js';
import type { PositionsEvent } from './events.js';

/** Fixed forever: the ids of request events, and of the requests named by an Idempotency-Key, derive from it. */
export const TRADE_REQUEST_NAMESPACE = 'a4d0c8e2-61f3-4b7a-9e25-0c7d3b1f6a94';

export interface TradeRequestState {
  readonly requested: boolean;
  readonly rejected: boolean;
}

export const tradeRequestDecider = (requestId: string): Decider<TradeRequestCommand, PositionsEvent, TradeRequestState> => ({
  initialState: { requested: false, rejected: false },

  evolve: (state, event) => {
    if (event.type === 'TradeRequested' && event.data.requestId === requestId) return { ...state, requested: true };
    if (event.type === 'TradeRequestRejected' && event.data.requestId === requestId) return { ...state, rejected: true };
    return state;
  },

  decide: (command, state) => {
    if (command.data.requestId !== requestId) throw new Error(`a decider of request ${requestId} got a command of request ${command.data.requestId}`);
    switch (command.type) {
      case 'RequestTrade': {
        const { accountId, request } = command.data;
        return state.requested ? [] : [{ type: 'TradeRequested', data: { accountId, at: command.metadata.now, requestId, request } }];
      }
      case 'RejectTrade': {
        const { accountId, at, code, message } = command.data;
        return state.rejected ? [] : [{ type: 'TradeRequestRejected', data: { accountId, at, requestId, code, message } }];
      }
      default: {
        const unhandled: never = command;
        throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
      }
    }
  },
});

/** The id of a request's event: the same request recorded again (a retry, a replay) keeps it. */
export const tradeRequestEventId = (event: PositionsEvent): string => {
  if (event.type === 'TradeRequested') return uuidv5(`${event.data.requestId}/requested`, TRADE_REQUEST_NAMESPACE);
  if (event.type === 'TradeRequestRejected') return uuidv5(`${event.data.requestId}/rejected`, TRADE_REQUEST_NAMESPACE);
  throw new Error(`${event.type} is no event of a trading request`);
};
