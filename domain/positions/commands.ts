// Commands of an account's trading requests through the API (stream `positions-<accountId>`): a request
// is recorded before the venue hears of it, and the venue's refusal after. The venue's own changes are
// facts, recorded as they happened (engine/venues/recorder.ts), never commands.
import type { CommandMetadata } from '../shared/command.js';
import type { TradeRequest } from './events.js';

export type TradeRequestCommand =
  | {
      readonly type: 'RequestTrade';
      readonly data: { readonly accountId: string; readonly requestId: string; readonly request: TradeRequest };
      readonly metadata: CommandMetadata;
    }
  | {
      /** The metadata is the request's (who asked, when it arrived); `at` is when the venue refused. */
      readonly type: 'RejectTrade';
      readonly data: { readonly accountId: string; readonly requestId: string; readonly at: string; readonly code: string; readonly message: string };
      readonly metadata: CommandMetadata;
    };
