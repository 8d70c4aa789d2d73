// The EventStoreDB adapter of the event store port: a thin translation over @eventstore/db-client 6.2.1.
// The port hides system events (`$`-prefixed types and streams), which the PostgreSQL adapter never has.
import { EventEmitter } from 'node:events';
import {
  ANY,
  BACKWARDS,
  END,
  ErrorType,
  EventStoreDBClient,
  eventTypeFilter,
  excludeSystemEvents,
  FORWARDS,
  isCommandError,
  jsonEvent,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  streamNameFilter,
  type AllStreamSubscription,
  type AppendExpectedRevision as EsdbAppendExpectedRevision,
  type Direction,
  type ExpectedRevision as EsdbExpectedRevision,
  type Filter,
  type JSONType,
  type RecordedEvent as EsdbRecordedEvent,
  type StreamingRead,
} from '@eventstore/db-client';
import { StreamDeletedError, StreamNotFoundError, WrongExpectedVersionError } from '../errors.js';
import type {
  AppendExpectedRevision,
  AppendResult,
  DeleteExpectedRevision,
  EventData,
  EventMetadata,
  EventStore,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  ResolvedEvent,
  StreamAppend,
  StreamMetadata,
  SubscribeToAllOptions,
  Subscription,
  SubscriptionFilter,
} from '../port.js';

/** Stands in when the server reports no position (servers up to 22.6, idempotent appends). */
const NO_POSITION: Position = { commit: 0n, prepare: 0n };

const toAppendExpected = (expected: AppendExpectedRevision): EsdbAppendExpectedRevision =>
  expected === 'any' ? ANY : expected === 'no_stream' ? NO_STREAM : expected === 'stream_exists' ? STREAM_EXISTS : expected;

const toDeleteExpected = (expected: DeleteExpectedRevision): EsdbExpectedRevision =>
  expected === 'any' ? ANY : expected === 'no_stream' ? NO_STREAM : expected;

const toDirection = (direction: 'forwards' | 'backwards' | undefined): Direction => (direction === 'backwards' ? BACKWARDS : FORWARDS);

const isEventList = (events: EventData | readonly EventData[]): events is readonly EventData[] => Array.isArray(events);

const isJsonData = (data: unknown): data is JSONType => typeof data === 'string' || (typeof data === 'object' && data !== null);

const isMetadataObject = (metadata: unknown): metadata is EventMetadata =>
  typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) && !(metadata instanceof Uint8Array);

const isSystemEvent = (event: { readonly type: string; readonly streamId: string }): boolean => event.type.startsWith('$') || event.streamId.startsWith('$');

const toEventData = (event: EventData) => {
  const { id, type, data, metadata } = event;
  // The client's JSON event type admits only objects, arrays and strings as data.
  if (!isJsonData(data)) throw new TypeError(`event ${id} (${type}): EventStoreDB needs object, array or string data`);
  return jsonEvent({ id, type, data, metadata });
};

const toResolved = (event: EsdbRecordedEvent, position: Position): ResolvedEvent => {
  const recorded: RecordedEvent = {
    streamId: event.streamId,
    id: event.id,
    revision: event.revision,
    type: event.type,
    data: event.data,
    metadata: isMetadataObject(event.metadata) ? event.metadata : {},
    created: event.created,
    position,
  };
  return { event: recorded };
};

const translateError = (error: unknown, streamName?: string): unknown => {
  if (!(error instanceof Error) || !isCommandError(error)) return error;
  switch (error.type) {
    case ErrorType.WRONG_EXPECTED_VERSION:
      return new WrongExpectedVersionError(streamName ?? error.streamName, error.expectedVersion, error.actualVersion);
    case ErrorType.STREAM_NOT_FOUND:
      return new StreamNotFoundError(streamName ?? error.streamName);
    case ErrorType.STREAM_DELETED:
      return new StreamDeletedError(streamName ?? error.streamName);
    default:
      return error;
  }
};

/** Iterates a client read, translating its errors; leaving early cancels the gRPC call, which destroying the Readable does not. */
async function* consume<E>(read: StreamingRead<E>, streamName?: string): AsyncGenerator<E> {
  let finished = false;
  try {
    for await (const item of read) yield item;
    finished = true;
  } catch (error) {
    finished = true;
    throw translateError(error, streamName);
  } finally {
    if (!finished) await read.cancel();
  }
}

const matchesFilter = (event: EsdbRecordedEvent, filter: SubscriptionFilter | undefined): boolean => {
  if (isSystemEvent(event)) return false;
  const streams = filter?.streamNamePrefixes ?? [];
  const types = filter?.eventTypePrefixes ?? [];
  return (streams.length === 0 || streams.some((p) => event.streamId.startsWith(p))) && (types.length === 0 || types.some((p) => event.type.startsWith(p)));
};

/** The server takes one filter: stream names win; `matchesFilter` applies the rest on our side. */
const serverFilter = (filter: SubscriptionFilter | undefined): Filter => {
  if (filter?.streamNamePrefixes?.length) return streamNameFilter({ prefixes: [...filter.streamNamePrefixes] });
  if (filter?.eventTypePrefixes?.length) return eventTypeFilter({ prefixes: [...filter.eventTypePrefixes] });
  return excludeSystemEvents();
};

class EventStoreDbSubscription extends EventEmitter implements Subscription {
  constructor(
    private readonly inner: AllStreamSubscription,
    private readonly filter: SubscriptionFilter | undefined,
  ) {
    super();
    inner.on('caughtUp', () => this.emit('caughtUp'));
    inner.on('fellBehind', () => this.emit('fellBehind'));
    // Our listener also keeps an unobserved 'error' from crashing the process; iterating rethrows it anyway.
    // AbortError is Node destroying the Readable because its iteration ended (break or earlier error).
    inner.on('error', (error: Error) => {
      if (error.name !== 'AbortError' && this.listenerCount('error') > 0) this.emit('error', error);
    });
  }

  async unsubscribe(): Promise<void> {
    await this.inner.unsubscribe();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ResolvedEvent> {
    try {
      for await (const resolved of this.inner) {
        const event = resolved.event;
        if (event?.position && matchesFilter(event, this.filter)) yield toResolved(event, event.position);
      }
    } finally {
      await this.inner.unsubscribe();
    }
  }
}

class EventStoreDbStore implements EventStore {
  constructor(private readonly client: EventStoreDBClient) {}

  async appendToStream(
    streamName: string,
    events: EventData | readonly EventData[],
    options: { expectedRevision?: AppendExpectedRevision } = {},
  ): Promise<AppendResult> {
    const expected = options.expectedRevision ?? 'any';
    const list = isEventList(events) ? events : [events];
    try {
      const result = await this.client.appendToStream(streamName, list.map(toEventData), {
        expectedRevision: toAppendExpected(expected),
      });
      if (!result.success) {
        // Only with throwOnAppendFailure=false in the connection string; 6.2.1 reports the actual revision wrongly then.
        const actual = result.nextExpectedRevision;
        throw new WrongExpectedVersionError(streamName, expected, actual < 0n ? 'no_stream' : actual);
      }
      return { success: true, nextExpectedRevision: result.nextExpectedRevision, position: result.position ?? NO_POSITION };
    } catch (error) {
      throw translateError(error, streamName);
    }
  }

  /**
   * EventStoreDB has no transaction across streams: one append per entry, in the order given, each
   * waiting for the one before. The weaker contract of the port: a refused entry throws and leaves the
   * entries before it appended; calling again with the same event ids completes the rest, since an
   * append of ids the stream already holds (with the same expectation) is a no-op.
   */
  async appendToStreams(appends: readonly StreamAppend[]): Promise<readonly AppendResult[]> {
    for (const entry of appends) if (entry.events.length === 0) throw new Error(`append to ${entry.streamName} needs at least one event`);
    const results: AppendResult[] = [];
    for (const entry of appends) {
      results.push(await this.appendToStream(entry.streamName, entry.events, { expectedRevision: entry.expectedRevision ?? 'any' }));
    }
    return results;
  }

  async *readStream(streamName: string, options: ReadStreamOptions = {}): AsyncIterable<ResolvedEvent> {
    // The client starts at START whatever the direction; the port starts a backwards read at the end.
    const from = options.fromRevision ?? (options.direction === 'backwards' ? 'end' : 'start');
    const read = this.client.readStream(streamName, {
      fromRevision: from === 'start' ? START : from === 'end' ? END : from,
      direction: toDirection(options.direction),
      maxCount: options.maxCount,
    });
    for await (const resolved of consume(read, streamName)) {
      const event = resolved.event;
      if (event) yield toResolved(event, event.position ?? NO_POSITION);
    }
  }

  async *readAll(options: ReadAllOptions = {}): AsyncIterable<ResolvedEvent> {
    const limit = options.maxCount ?? Number.POSITIVE_INFINITY;
    if (limit <= 0) return;
    const from = options.fromPosition ?? (options.direction === 'backwards' ? 'end' : 'start');
    // No maxCount for the server: it would count the system events we skip, and a caller paging with
    // maxCount would take a short page for the end of `$all`.
    const read = this.client.readAll({
      fromPosition: from === 'start' ? START : from === 'end' ? END : from,
      direction: toDirection(options.direction),
    });
    let count = 0;
    for await (const resolved of consume(read)) {
      const event = resolved.event;
      if (!event?.position || isSystemEvent(event)) continue;
      yield toResolved(event, event.position);
      if (++count >= limit) return;
    }
  }

  subscribeToAll(options: SubscribeToAllOptions = {}): Subscription {
    const from = options.fromPosition ?? 'start';
    const inner = this.client.subscribeToAll({
      fromPosition: from === 'start' ? START : from === 'end' ? END : from,
      filter: serverFilter(options.filter),
    });
    return new EventStoreDbSubscription(inner, options.filter);
  }

  async headPosition(): Promise<Position | null> {
    for await (const { event } of this.readAll({ direction: 'backwards', fromPosition: 'end', maxCount: 1 })) {
      return event.position;
    }
    return null;
  }

  /** EventStoreDB shows every committed event to readers at once: the head is the last commit. */
  lastCommittedPosition(): Promise<Position | null> {
    return this.headPosition();
  }

  async setStreamMetadata(streamName: string, metadata: StreamMetadata): Promise<void> {
    try {
      await this.client.setStreamMetadata(streamName, { ...metadata });
    } catch (error) {
      throw translateError(error, streamName);
    }
  }

  async getStreamMetadata(streamName: string): Promise<{ streamName: string; metadata?: StreamMetadata }> {
    try {
      const { metadata } = await this.client.getStreamMetadata(streamName);
      return metadata ? { streamName, metadata } : { streamName };
    } catch (error) {
      throw translateError(error, streamName);
    }
  }

  async deleteStream(streamName: string, options: { expectedRevision?: DeleteExpectedRevision } = {}): Promise<void> {
    try {
      await this.client.deleteStream(streamName, { expectedRevision: toDeleteExpected(options.expectedRevision ?? 'any') });
    } catch (error) {
      throw translateError(error, streamName);
    }
  }

  async dispose(): Promise<void> {
    await this.client.dispose();
  }
}

export const createEventStoreDbStore = (connectionString: string): EventStore => new EventStoreDbStore(EventStoreDBClient.connectionString(connectionString));
