// Closing what a protection decided to close, shared by the protection monitor (a risk limit or profit
// target that closes positions, the lock that closes what opens meanwhile) and the trade guardrails: the
// close (or cancel) at the venue with the decision's client request id, its outcome as a record, and the
// loop that finishes every decided close and records each outcome. A decision is recorded before its
// close, so after a crash the next look finds it still open and closes it again with the same request id:
// the broker answers the repeat with the first result, and the outcome is recorded once.
import { VenueError, type VenueConnection } from '../venues/port.js';

/** What a close at the venue did: closed (or cancelled), not there any more, or refused. */
export type VenueCloseOutcome =
  | { readonly type: 'closed'; readonly closePrice: number | null; readonly result: number | null }
  | { readonly type: 'gone' }
  | { readonly type: 'failed'; readonly code: string; readonly message: string };

/** The close of a position, or the cancel of a pending order, with its client request id. */
export const closeAtVenue = async (
  connection: VenueConnection,
  item: { readonly kind: 'position' | 'order'; readonly id: string },
  requestId: string,
): Promise<VenueCloseOutcome> => {
  try {
    if (item.kind === 'order') {
      await connection.cancelOrder(item.id, requestId);
      return { type: 'closed', closePrice: null, result: null };
    }
    const trade = await connection.closePosition(item.id, undefined, requestId);
    return { type: 'closed', closePrice: trade.closePrice, result: trade.profit + trade.swap + trade.commission };
  } catch (error) {
    if (error instanceof VenueError && (error.code === '[POSITION_NOT_FOUND]' || error.code === '[ORDER_NOT_FOUND]')) return { type: 'gone' };
    return {
      type: 'failed',
      code: error instanceof VenueError ? error.code : '[CLOSE_FAILED]',
      message: error instanceof Error ? error.message : String(error),
    };
  }
};

/** Closes every decided close still open, one after the other, and records each outcome (the record decides whether it says anything new). */
export const finishDecidedCloses = async <D>(
  connection: VenueConnection,
  decisions: readonly D[],
  target: (decision: D) => { readonly kind: 'position' | 'order'; readonly id: string; readonly requestId: string },
  record: (decision: D, outcome: VenueCloseOutcome) => Promise<void>,
): Promise<void> => {
  for (const decision of decisions) {
    const { requestId, ...item } = target(decision);
    await record(decision, await closeAtVenue(connection, item, requestId));
  }
};
