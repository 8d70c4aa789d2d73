// Command handling: read the stream, fold it, decide, append with the expected revision, and retry with
// jittered, capped backoff (bounded in attempts and in time) when another writer got there first.
import { v5 as uuidv5 } from 'uuid';
import type { CommandMetadata, Decider } from '../domain/shared/command.js';
import { StreamNotFoundError, TransientAppendError, WrongExpectedVersionError } from './errors.js';
import type { AppendExpectedRevision, EventMetadata, EventStore, Position, RecordedEvent } from './port.js';

/** Namespace of deterministic event ids (uuid v5). */
export const EVENT_ID_NAMESPACE = '8f0d1c1e-5a52-4f7e-9a8e-3f4b2a1c9d70';

export interface DomainEvent {
  readonly type: string;
  readonly data: unknown;
}

export interface HandledCommand<State, Event> {
  readonly state: State;
  readonly events: readonly Event[];
  /** `$all` position of the last appended event; null when the decision produced no event. */
  readonly position: Position | null;
  readonly nextExpectedRevision: bigint | null;
}

export interface AggregateState<State> {
  readonly state: State;
  readonly revision: bigint | null;
}

export const aggregateStream = <Event extends DomainEvent, State>(
  store: EventStore,
  streamName: string,
  evolve: (state: State, event: Event) => State,
  initialState: State,
  until?: (event: RecordedEvent) => boolean,
): Promise<AggregateState<State>> => foldStream(store, streamName, evolve, { state: initialState, revision: null }, until);

/** Folds the events after `from.revision` (all of them when it is null) into `from.state`. */
export const foldStream = async <Event extends DomainEvent, State>(
  store: EventStore,
  streamName: string,
  evolve: (state: State, event: Event) => State,
  from: AggregateState<State>,
  until?: (event: RecordedEvent) => boolean,
): Promise<AggregateState<State>> => {
  let { state, revision } = from;
  try {
    for await (const { event } of store.readStream(streamName, revision === null ? {} : { fromRevision: revision + 1n })) {
      if (until && !until(event)) break;
      state = evolve(state, { type: event.type, data: event.data } as Event);
      revision = event.revision;
    }
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
  }
  return { state, revision };
};

/** How hard a command tries again when another writer appended to its stream first. */
export interface ConflictRetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** No new attempt starts after this long from the first one. */
  readonly budgetMs: number;
  /** The first backoff's ceiling; each later one doubles it, up to `capMs`. */
  readonly baseMs: number;
  readonly capMs: number;
}

/**
 * 50 concurrent PUTs of one account take about a second to drain one after another, so the budget
 * leaves room for that; five immediate retries (the old policy) gave up on two thirds of them.
 */
export const DEFAULT_CONFLICT_RETRY: ConflictRetryPolicy = { maxAttempts: 30, budgetMs: 5_000, baseMs: 5, capMs: 250 };

/**
 * The pause before attempt `attempt + 1` ("full jitter"): uniform in [0, min(cap, base * 2^(attempt-1))),
 * so writers that collided once spread out instead of colliding again in lockstep.
 */
export const conflictRetryDelay = (policy: ConflictRetryPolicy, attempt: number, random: () => number = Math.random): number =>
  Math.floor(random() * Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt - 1, 30)));

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const eventMetadataOf = (metadata: CommandMetadata): EventMetadata => ({
  ...metadata.context,
  receivedAt: metadata.now,
});

export interface HandleCommandOptions<State, Event> {
  /** Event ids derive from it (`<commandId>:<index>`), so a retried request appends each event once. */
  readonly commandId?: string;
  /**
   * Event ids derived from the events themselves (what each is about), for writers whose ids were fixed
   * before they came here: the same event decided again, after a crash or by a retried request, keeps
   * its id. Wins over `commandId`; without either, ids are random.
   */
  readonly eventId?: (event: Event, index: number) => string;
  /** The events' metadata, when the writer is a process that states its own (else built from the command's). */
  readonly eventMetadata?: EventMetadata;
  /**
   * The state the caller has already folded, at its revision (a process that keeps its aggregates in
   * memory): the first attempt decides on it without reading the stream; a retry reads on from there.
   */
  readonly known?: AggregateState<State>;
  /**
   * `known` was read a while ago and the stream may have moved since (a use case that read it before a
   * wait): a decision of no events on it is not final (no append would confirm it), the stream is read
   * on from `known` and the command decided again. A decision of events is confirmed by the append.
   */
  readonly knownMayBeBehind?: boolean;
  readonly retry?: ConflictRetryPolicy;
}

/**
 * Handles one command against one stream. When `commandId` is given, event ids derive from it, so a
 * retried request (or a crash and replay) appends each event once. Each retry reads the stream again and
 * decides again, so no writer's change is lost; when the conflicts outlast the policy the last
 * `WrongExpectedVersionError` (or `TransientAppendError`) is thrown, which the API answers with 409
 * [CONCURRENT_MODIFICATION].
 */
export const handleCommand = async <Command extends { metadata: CommandMetadata }, Event extends DomainEvent, State>(
  store: EventStore,
  streamName: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  options: HandleCommandOptions<State, Event> = {},
): Promise<HandledCommand<State, Event>> => {
  const policy = options.retry ?? DEFAULT_CONFLICT_RETRY;
  const deadline = Date.now() + policy.budgetMs;
  const seed = options.commandId;
  const idOf = options.eventId ?? ((_: Event, i: number) => (seed ? uuidv5(`${seed}:${i}`, EVENT_ID_NAMESPACE) : crypto.randomUUID()));
  const initial: AggregateState<State> = { state: decider.initialState, revision: null };
  /** Where a read starts: from nothing, or (`known`) from what the caller or the last attempt folded. */
  let from = options.known ?? initial;
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = options.known && attempt === 1 ? options.known : await foldStream(store, streamName, decider.evolve, from);
    if (options.known) from = { state, revision };
    const events = decider.decide(command, state);
    if (events.length === 0 && options.knownMayBeBehind && attempt === 1 && options.known) continue;
    if (events.length === 0) return { state, events, position: null, nextExpectedRevision: revision };
    const expectedRevision: AppendExpectedRevision = revision === null ? 'no_stream' : revision;
    const metadata = options.eventMetadata ?? eventMetadataOf(command.metadata);
    try {
      const result = await store.appendToStream(
        streamName,
        events.map((e, i) => ({ id: idOf(e, i), type: e.type, data: e.data, metadata })),
        { expectedRevision },
      );
      return {
        state: events.reduce(decider.evolve, state),
        events,
        position: result.position,
        nextExpectedRevision: result.nextExpectedRevision,
      };
    } catch (error) {
      const retryable = error instanceof WrongExpectedVersionError || error instanceof TransientAppendError;
      if (!retryable || attempt >= policy.maxAttempts) throw error;
      const delay = conflictRetryDelay(policy, attempt);
      if (Date.now() + delay >= deadline) throw error;
      await sleep(delay);
    }
  }
};
