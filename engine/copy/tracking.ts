// How far the copy engine has got: the store events read and not yet handled (in `$all` order), the
// last of them handled with everything before it (what `handled` and `idle` wait for, and where the
// pipeline starts again after a defect), and the checkpoint that says where to resume reading after a
// restart.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../../projections/schema.js';
import { loadCheckpoint, saveCheckpoints } from '../../store/postgres/checkpoints.js';
import { saveCheckpointFenced } from '../../store/postgres/leases.js';
import { comparePositions, type Position, positionFromString, positionToString, type RecordedEvent } from '../../store/port.js';
import { Recovery, type RecoveryLog } from '../../store/recovery.js';

/** The engine's row in processor_checkpoints, and its lease (unpartitioned: specs, tools). */
export const COPY_ENGINE_PARTITION = 'copy-engine';

/** Partition `index` of `count` (engine/copy/partitions.ts): its lease and its checkpoint row. */
export const copyEnginePartition = (index: number, count: number): string => `${COPY_ENGINE_PARTITION}/${count}/${index}`;

/**
 * Where a partition that has no checkpoint of its own starts: the earliest checkpoint of any copy
 * engine partition (of any count, or the unpartitioned engine of earlier versions), so a new partition
 * count, or a first start after an upgrade, copies nothing twice and misses nothing; repeats are no-ops
 * (deterministic ids). Undefined when there is none.
 */
export const inheritedCheckpoint = async (db: Kysely<ReadModels>): Promise<Position | undefined> => {
  const rows = await db
    .withTables<{ processor_checkpoints: { name: string; position: string | null } }>()
    .selectFrom('processor_checkpoints')
    .select('position')
    .where((eb) => eb.or([eb('name', '=', COPY_ENGINE_PARTITION), eb('name', 'like', `${COPY_ENGINE_PARTITION}/%`)]))
    .where('position', 'is not', null)
    .execute();
  let earliest: Position | undefined;
  for (const row of rows) {
    const position = positionFromString(row.position!);
    if (!earliest || earlier(position, earliest)) earliest = position;
  }
  return earliest;
};

export const earlier = (a: Position, b: Position): boolean => comparePositions(a, b) < 0;

export interface Tracked {
  readonly recorded: RecordedEvent;
  done: boolean;
}

export class Tracking {
  private readonly checkpointFailures: Recovery;
  private readonly inFlight: Tracked[] = [];
  private checkpointSaved: string | null = null;
  private savingCheckpoint = false;
  private pendingCheckpoint: string | null = null;
  private idleWaiters: (() => void)[] = [];
  private through: Position | null = null;
  private handledWaiters: { position: Position; resolve: (value: boolean) => void }[] = [];

  constructor(
    private readonly db: Kysely<ReadModels>,
    log: RecoveryLog,
    private readonly stopped: () => boolean,
    /** The checkpoint row: COPY_ENGINE_PARTITION, or a partition's (copyEnginePartition). */
    private readonly name: string = COPY_ENGINE_PARTITION,
    /** The lease term saving it: a save after a later term won the lease changes nothing. */
    private readonly term: { readonly lease: string; readonly epoch: number } | null = null,
  ) {
    this.checkpointFailures = new Recovery('saving the copy engine checkpoint', log, { action: 'saves it with the next event handled' });
  }

  /** Where reading starts: the saved checkpoint, else the store's `head`; null: the start of `$all`. */
  async resumeFrom(head: Position | null): Promise<Position | null> {
    const saved = await loadCheckpoint(this.db, this.name);
    if (saved !== undefined && saved !== null) return saved;
    // None of its own (a new partition count, an upgrade): the earliest of any copy engine partition.
    const inherited = await inheritedCheckpoint(this.db);
    if (inherited) {
      await this.saveCheckpoint(positionToString(inherited));
      return inherited;
    }
    // A first start copies from now on, never the history of the store.
    if (head) await this.saveCheckpoint(positionToString(head));
    return head;
  }

  /** How far the engine is by its saved checkpoint (what an instance without the lease reads). */
  async savedThrough(): Promise<Position | null> {
    return (await loadCheckpoint(this.db, this.name)) ?? null;
  }

  /** The newest store event handled with every one before it. */
  get handledThrough(): Position | null {
    return this.through;
  }

  /** A store event read: it is in flight until `finish`. */
  track(recorded: RecordedEvent): Tracked {
    const tracked: Tracked = { recorded, done: false };
    this.inFlight.push(tracked);
    return tracked;
  }

  finishEvent(recorded: RecordedEvent): void {
    const tracked = this.inFlight.find((t) => t.recorded === recorded);
    if (tracked) this.finish(tracked);
  }

  /** The pipeline failed: what it held in flight is read again from `handledThrough`. */
  forgetInFlight(): void {
    this.inFlight.length = 0;
  }

  /** Resolves once every store event read so far is handled (for specs and benchmarks). */
  idle(): Promise<void> {
    if (this.inFlight.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Resolves true once the engine has handled the event at `position` (a positions-* or copier-*
   * event) and everything before it; false after `timeoutMs`.
   */
  handled(position: Position, timeoutMs: number): Promise<boolean> {
    if (this.through && !earlier(this.through, position)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        position,
        resolve: (value: boolean) => {
          clearTimeout(timer);
          resolve(value);
        },
      };
      const timer = setTimeout(() => {
        this.handledWaiters = this.handledWaiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      this.handledWaiters.push(waiter);
    });
  }

  finish(tracked: Tracked): void {
    tracked.done = true;
    let last: Tracked | undefined;
    while (this.inFlight[0]?.done) last = this.inFlight.shift();
    if (last) {
      this.through = last.recorded.position;
      void this.saveCheckpoint(positionToString(last.recorded.position));
      const through = last.recorded.position;
      const ready = this.handledWaiters.filter((w) => !earlier(through, w.position));
      this.handledWaiters = this.handledWaiters.filter((w) => earlier(through, w.position));
      for (const waiter of ready) waiter.resolve(true);
    }
    if (this.inFlight.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** Writes the newest checkpoint; calls that arrive while one is written coalesce. */
  private async saveCheckpoint(position: string): Promise<void> {
    this.pendingCheckpoint = position;
    if (this.savingCheckpoint) return;
    this.savingCheckpoint = true;
    try {
      while (this.pendingCheckpoint !== null && this.pendingCheckpoint !== this.checkpointSaved) {
        const value = this.pendingCheckpoint;
        if (this.term) await saveCheckpointFenced(this.db, this.name, value, this.term.lease, this.term.epoch);
        else await saveCheckpoints(this.db, [this.name], positionFromString(value));
        this.checkpointSaved = value;
        this.checkpointFailures.succeeded();
      }
    } catch (error) {
      if (!this.stopped()) this.checkpointFailures.noted(error);
    } finally {
      this.savingCheckpoint = false;
    }
  }

  async flushCheckpoint(): Promise<void> {
    while (this.savingCheckpoint) await new Promise((r) => setTimeout(r, 5));
  }
}
