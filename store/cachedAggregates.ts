// Aggregates a leased background process keeps in memory between its ticks, one stream per key (an
// account's keep-alive trades, its trade guardrails): `load` reads on from the cached revision, `record`
// decides a command on the cached state and appends at its revision (reading on after a conflict,
// handleCommand) with deterministic event ids, then waits for the read models. A new lease holder
// `clear`s them: another instance may have recorded meanwhile.
import { v5 as uuidv5 } from 'uuid';
import type { CommandMetadata, Decider } from '../domain/shared/command.js';
import { type DomainEvent, foldStream, handleCommand } from './commandHandler.js';
import type { EventStore, Position } from './port.js';

/** One aggregate as cached: updated in place, so a caller holding it sees what `record` decided. */
export interface CachedAggregate<State> {
  state: State;
  revision: bigint | null;
}

export interface CachedAggregatesDeps<Command, Event, State> {
  readonly store: EventStore;
  readonly decider: Decider<Command, Event, State>;
  readonly streamOf: (key: string) => string;
  /** An event's id: uuid v5 of its key in `namespace`, the same for the same decision after a restart. */
  readonly eventKey: (event: Event) => string;
  readonly namespace: string;
  /** The correlation id of the events recorded for `key`. */
  readonly correlationOf: (key: string) => string;
  readonly waitForReadModels: (position: Position, timeoutMs: number) => Promise<boolean>;
  readonly readModelWaitMs: number;
}

export class CachedAggregates<Command extends { metadata: CommandMetadata }, Event extends DomainEvent, State> {
  private readonly cache = new Map<string, CachedAggregate<State>>();

  constructor(private readonly deps: CachedAggregatesDeps<Command, Event, State>) {}

  /** The cached aggregates, by key. */
  entries(): IterableIterator<[string, CachedAggregate<State>]> {
    return this.cache.entries();
  }

  clear(): void {
    this.cache.clear();
  }

  forget(key: string): void {
    this.cache.delete(key);
  }

  /** The aggregate of `key`, caught up with its stream. */
  async load(key: string): Promise<CachedAggregate<State>> {
    const cached = this.cache.get(key) ?? { state: this.deps.decider.initialState, revision: null };
    const folded = await foldStream(this.deps.store, this.deps.streamOf(key), this.deps.decider.evolve, cached);
    cached.state = folded.state;
    cached.revision = folded.revision;
    this.cache.set(key, cached);
    return cached;
  }

  /** Decides `command` on `cached` (loaded for `key`) and appends at its revision; then waits for the read models. */
  async record(key: string, cached: CachedAggregate<State>, command: Command): Promise<void> {
    const { store, decider, streamOf, eventKey, namespace } = this.deps;
    const result = await handleCommand(store, streamOf(key), decider, command, {
      known: cached,
      eventId: (e) => uuidv5(eventKey(e), namespace),
      eventMetadata: { correlationId: this.deps.correlationOf(key), receivedAt: command.metadata.now },
    });
    cached.state = result.state;
    cached.revision = result.nextExpectedRevision;
    if (result.position) await this.deps.waitForReadModels(result.position, this.deps.readModelWaitMs);
  }
}
