// The one write path for facts that no decider decides: what a venue reported (positions, orders,
// balance, the connection), what a venue answered when the engine traded (copy outcomes), samples
// read from a venue, a trading request that arrived and the venue's refusal of it. No state of the
// stream can refuse them (the venue, not our state, is the authority), so nothing is folded and no
// revision is expected: they are appended as they happened.
//
// What keeps them from being recorded twice is their ids. Each fact's id must derive from what it is
// about (uuid v5 of the position and the change, the cause and the copier, the interval), never from a
// clock read or a random source: the store's rule that the same ids appended to the same stream again
// are a no-op (store/port.ts) then makes a replay, a reconciliation after a reconnect or a crash between
// an action and its record append each fact once. Everything else appends through the command handler.
import type { AppendResult, EventMetadata, EventStore } from './port.js';

/** A fact with its deterministic id. */
export interface Fact<Type extends string = string, Data = unknown> {
  readonly id: string;
  readonly type: Type;
  readonly data: Data;
}

/**
 * Appends `facts` to `streamName` in one append, each with `metadata`. The same facts recorded again (the
 * same ids in the same order) are a no-op that answers the first append's revision and position.
 */
export const recordFacts = (store: EventStore, streamName: string, facts: readonly Fact[], metadata: EventMetadata): Promise<AppendResult> =>
  store.appendToStream(
    streamName,
    facts.map(({ id, type, data }) => ({ id, type, data, metadata })),
    { expectedRevision: 'any' },
  );
