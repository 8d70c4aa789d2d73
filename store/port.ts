// The event store port. It mirrors the surface of @eventstore/db-client 6.2.1 (names, options, errors)
// so the domain and the command handler cannot tell the PostgreSQL adapter from the EventStoreDB one.
// ../shared/research/event-store.md §3.8.

/** A position in `$all`. PostgreSQL: commit = transaction id (xid8), prepare = global position. */
export interface Position {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export type AppendExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;
export type DeleteExpectedRevision = 'any' | 'no_stream' | bigint;

export const START = 'start' as const;
export const END = 'end' as const;

/** Event metadata is a JSON object; the request context of a command travels here. */
export type EventMetadata = Readonly<Record<string, unknown>>;

export interface EventData<T extends string = string, D = unknown> {
  /** The idempotency key of the event: appending the same id to the same stream again is a no-op. */
  readonly id: string;
  readonly type: T;
  readonly data: D;
  readonly metadata?: EventMetadata;
}

export interface RecordedEvent<T extends string = string, D = unknown> {
  readonly streamId: string;
  readonly id: string;
  readonly revision: bigint;
  readonly type: T;
  readonly data: D;
  readonly metadata: EventMetadata;
  readonly created: Date;
  readonly position: Position;
}

export interface ResolvedEvent<T extends string = string, D = unknown> {
  readonly event: RecordedEvent<T, D>;
}

export interface AppendResult {
  readonly success: true;
  readonly nextExpectedRevision: bigint;
  readonly position: Position;
}

export interface ReadStreamOptions {
  readonly fromRevision?: typeof START | typeof END | bigint;
  readonly direction?: 'forwards' | 'backwards';
  readonly maxCount?: number;
}

export interface ReadAllOptions {
  /** Inclusive, as in EventStoreDB's readAll. */
  readonly fromPosition?: typeof START | typeof END | Position;
  readonly direction?: 'forwards' | 'backwards';
  readonly maxCount?: number;
}

export interface SubscriptionFilter {
  readonly streamNamePrefixes?: readonly string[];
  readonly eventTypePrefixes?: readonly string[];
}

export interface SubscribeToAllOptions {
  /** Exclusive: the first event delivered is the one after this position. */
  readonly fromPosition?: typeof START | typeof END | Position;
  readonly filter?: SubscriptionFilter;
}

/** A catch-up subscription: all events after the start position, then live ones, in `$all` order. */
export interface Subscription extends AsyncIterable<ResolvedEvent> {
  on(event: 'caughtUp' | 'fellBehind', listener: () => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  unsubscribe(): Promise<void>;
}

export interface StreamMetadata {
  readonly [key: string]: unknown;
}

/** One entry of appendToStreams: events for one stream, with that stream's own expectation. */
export interface StreamAppend {
  readonly streamName: string;
  readonly events: readonly EventData[];
  readonly expectedRevision?: AppendExpectedRevision; // default 'any'
}

export interface EventStore {
  appendToStream(streamName: string, events: EventData | readonly EventData[], options?: { expectedRevision?: AppendExpectedRevision }): Promise<AppendResult>;
  /**
   * Appends to several streams at once; answers one AppendResult per entry, in order.
   * PostgreSQL: one transaction, all or nothing; a failed expectation on any entry refuses the whole call
   * with WrongExpectedVersionError naming that stream. EventStoreDB (no multi-stream transactions): one
   * append per entry in the order given; a failure leaves the entries before it appended, and calling again
   * with the same event ids completes the rest (appends are idempotent by event id). Callers must be
   * correct under the weaker of the two.
   */
  appendToStreams(appends: readonly StreamAppend[]): Promise<readonly AppendResult[]>;
  /** Throws StreamNotFoundError for a stream that does not exist or was soft-deleted (while iterating). */
  readStream(streamName: string, options?: ReadStreamOptions): AsyncIterable<ResolvedEvent>;
  readAll(options?: ReadAllOptions): AsyncIterable<ResolvedEvent>;
  /**
   * Optional: `$all` forwards from `fromPosition` (inclusive), as readAll gives it, in pages of up to
   * `pageSize` events, the next page read while the caller works on the one it was given. For a reader
   * of the whole history that takes it a batch at a time (a rebuild): no iterator step per event.
   */
  readAllPages?(options: { readonly fromPosition?: typeof START | Position; readonly pageSize: number }): AsyncIterable<readonly RecordedEvent[]>;
  subscribeToAll(options?: SubscribeToAllOptions): Subscription;
  /** The position of the newest event in `$all` that readers may see now, or null for an empty store. */
  headPosition(): Promise<Position | null>;
  /**
   * The position of the newest committed event, whether readers can see it yet or not (PostgreSQL:
   * an older transaction may still hold it back). Once a subscriber has reached it, every write
   * that finished before the call is visible to it: read-your-writes across streams.
   */
  lastCommittedPosition(): Promise<Position | null>;
  setStreamMetadata(streamName: string, metadata: StreamMetadata): Promise<void>;
  getStreamMetadata(streamName: string): Promise<{ streamName: string; metadata?: StreamMetadata }>;
  /** Soft delete: reads then fail with StreamNotFoundError; a later append continues the numbering. */
  deleteStream(streamName: string, options?: { expectedRevision?: DeleteExpectedRevision }): Promise<void>;
  dispose(): Promise<void>;
}

export const comparePositions = (a: Position, b: Position): number => (a.commit === b.commit ? Number(a.prepare - b.prepare) : a.commit < b.commit ? -1 : 1);

export const positionToString = (p: Position): string => `${p.commit}:${p.prepare}`;

export const positionFromString = (s: string): Position => {
  const match = /^(\d+):(\d+)$/.exec(s);
  if (!match) throw new Error(`not a position: ${s}`);
  return { commit: BigInt(match[1]!), prepare: BigInt(match[2]!) };
};
