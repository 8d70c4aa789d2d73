// One command over several aggregates (PUT /accounts/{accountId}/appliedTemplate): each aggregate it
// touches is loaded from its stream once, each step is decided by that aggregate's own decider on its
// state as the steps before left it (the aggregates keep their rules: nothing is written around them),
// and only when every step was decided are the events of all streams appended in ONE appendToStreams
// call, each stream with the revision it was loaded at. So a step refused by its aggregate (or by a
// check between aggregates made while staging) stores nothing at all, and a stream another writer
// changed since it was loaded refuses the whole append (WrongExpectedVersionError: the API answers 409
// [CONCURRENT_MODIFICATION]) on PostgreSQL, where the call is one transaction.
// EventStoreDB has no transaction across streams (store/port.ts): there the entries are appended one
// after the other in the order they were first touched, so a conflict found at one stream leaves the
// streams before it appended; the link to the template is the last entry, so such an account is not
// shown as following the template, and applying again converges (the plan is a diff against what is).
// Every event carries the command's metadata: the request context (correlation and request id, as every
// command) and `command` (its name) with `commandId` (its event ids derive from it, uuid v5).
import { randomInt, randomUUID } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import type { CommandMetadata, Decider } from '../domain/shared/command.js';
import { aggregateStream, type DomainEvent, EVENT_ID_NAMESPACE, eventMetadataOf } from '../store/commandHandler.js';
import type { AppendResult, EventStore, StreamAppend } from '../store/port.js';

interface Staged {
  state: unknown;
  readonly revision: bigint | null;
  readonly events: DomainEvent[];
}

export interface CommittedCommand {
  /** Per stream that got events, its append's result. */
  readonly results: ReadonlyMap<string, AppendResult>;
  /** The streams that got events, in the order they were appended. */
  readonly streams: readonly string[];
}

export class MultiStreamCommand {
  readonly commandId = randomUUID();
  private readonly staged = new Map<string, Staged>();
  /** Streams in the order their first event was decided: the order of the append's entries. */
  private readonly order: string[] = [];
  /** The first 32 bits of the ids newId() makes, counting up from a random start. */
  private readonly idBase = randomInt(0, 0x7fffffff);
  private ids = 0;

  constructor(
    private readonly store: EventStore,
    /** The command's name as the events' metadata shows it. */
    private readonly name: string,
    private readonly metadata: CommandMetadata,
  ) {}

  /** The aggregate's state as the steps decided so far left it (loaded from its stream the first time). */
  async state<C, E extends DomainEvent, S>(streamName: string, decider: Decider<C, E, S>): Promise<S> {
    let staged = this.staged.get(streamName);
    if (!staged) {
      const loaded = await aggregateStream<E, S>(this.store, streamName, decider.evolve, decider.initialState);
      staged = { state: loaded.state, revision: loaded.revision, events: [] };
      this.staged.set(streamName, staged);
    }
    return staged.state as S;
  }

  /** Decides one step on its aggregate: a refusal throws (nothing of the command is stored); the events are kept for the append. */
  async decide<C, E extends DomainEvent, S>(streamName: string, decider: Decider<C, E, S>, command: C): Promise<readonly E[]> {
    const state = await this.state(streamName, decider);
    const events = decider.decide(command, state);
    const staged = this.staged.get(streamName)!;
    staged.state = events.reduce(decider.evolve, state);
    if (events.length > 0 && staged.events.length === 0) this.order.push(streamName);
    staged.events.push(...events);
    return events;
  }

  /**
   * An id for an aggregate the command creates: random (v4-shaped), but above every id this command made
   * before. Everything one command creates has one time (its events' `at`), and read models list by
   * time, then id: so what it creates lists in the order it was created.
   */
  newId(): string {
    return (this.idBase + this.ids++).toString(16).padStart(8, '0') + randomUUID().slice(8);
  }

  /** Whether any step decided events. */
  get changes(): boolean {
    return this.order.length > 0;
  }

  /** Appends every stream's events in one call, each stream at the revision it was loaded at. */
  async commit(): Promise<CommittedCommand> {
    const metadata = { ...eventMetadataOf(this.metadata), command: this.name, commandId: this.commandId };
    const appends: StreamAppend[] = this.order.map((streamName) => {
      const { revision, events } = this.staged.get(streamName)!;
      return {
        streamName,
        expectedRevision: revision === null ? 'no_stream' : revision,
        events: events.map((e, i) => ({ id: uuidv5(`${this.commandId}:${streamName}:${i}`, EVENT_ID_NAMESPACE), type: e.type, data: e.data, metadata })),
      };
    });
    const results = await this.store.appendToStreams(appends);
    return { results: new Map(this.order.map((s, i) => [s, results[i]!])), streams: [...this.order] };
  }
}
