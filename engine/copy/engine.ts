// The copy engine (ARCHITECTURE.md, "Engine"): an RxJS pipeline over `$all` that turns the position
// events of master accounts into slave orders.
//
//   store events (positions-*, copier-*) + open retries
//     -> route: the master account each belongs to
//     -> groupBy master, concatMap: one master's events strictly in order; masters in parallel
//     -> per event: wait until the read models include everything before it, decide for every
//        copier of the master (pure rules, domain/copy), execute at each slave's venue in parallel,
//        append the outcome to the copier's copies stream
//
// Exactly once per (master event, copier): the slave requests carry deterministic client ids, so a
// repeat gets the venue's first answer; the outcome of one event for one copier is one append with
// deterministic event ids; and an event whose outcome a copier's stream already holds is not handled
// again (each append records the `$all` position of its cause). The engine's checkpoint only says
// where to resume reading after a restart.
//
// The parts: intake.ts (the store subscription, routing), scheduling.ts (retries, deferrals,
// management ticks), handlers.ts (one work item: decide, execute, append), outcomes.ts (the append
// and what it marks handled), tracking.ts (events in flight, `handled`/`idle`, the checkpoint).
import { concatMap, filter, from, groupBy, merge, mergeMap, Subject, type Subscription as RxSubscription, tap } from 'rxjs';
import type { Kysely } from 'kysely';
import { COPIER_STREAM_PREFIX } from '../../domain/copier/events.js';
import { POSITIONS_STREAM_PREFIX } from '../../domain/positions/events.js';
import type { ReadModels } from '../../projections/schema.js';
import type { Leases } from '../../store/postgres/leases.js';
import { StreamProcessor } from '../../store/processor.js';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '../../store/port.js';
import { Recovery, type RecoveryLog } from '../../store/recovery.js';
import type { AccountSessions } from '../venues/connections.js';
import { CopyBook } from './book.js';
import { EarlyCopies } from './early.js';
import { FencedOut, FencedStore } from './fence.js';
import { CopyHandlers } from './handlers.js';
import { CopyInputs } from './inputs.js';
import { Intake } from './intake.js';
import { Outcomes } from './outcomes.js';
import { Priming } from './priming.js';
import { Scheduling } from './scheduling.js';
import { COPY_ENGINE_PARTITION, copyEnginePartition, Tracking } from './tracking.js';
import { partitionOf } from './partitionKey.js';
import type { Work } from './work.js';

export { COPY_EVENT_NAMESPACE, NOT_READ_BY_THE_ENGINE } from './outcomes.js';

export type EngineLog = RecoveryLog;

/** The streams the engine reads of `$all` (what /ready counts as its lag, api/health.ts). */
export const COPY_ENGINE_STREAMS: readonly string[] = [POSITIONS_STREAM_PREFIX, COPIER_STREAM_PREFIX];

export interface CopyEngineDeps {
  readonly store: EventStore;
  readonly db: Kysely<ReadModels>;
  readonly connections: AccountSessions;
  readonly waitForReadModels: (position: Position, timeoutMs: number) => Promise<boolean>;
  /** A read model's mark that moves whenever it may have changed (ProjectionRunner.version): reads kept while it stays (inputs.ts). */
  readonly readModelVersion?: (name: string) => string | null;
  readonly clock: () => Date;
  readonly log: EngineLog;
  /** Default 30 s; specs shorten it. */
  readonly retryIntervalMs?: number;
  /** Default 1 s: deferrals and management. */
  readonly tickMs?: number;
  /** Who works the partition "copy-engine" (null: this instance, unconditionally). */
  readonly leases?: Leases | null;
  /**
   * The masters this engine copies: those of partition `index` of `count` (engine/copy/partitions.ts),
   * with a lease and a checkpoint of its own; default every master (the partition "copy-engine").
   */
  readonly partition?: { readonly index: number; readonly count: number };
  /**
   * This term's lease of the partition (engine/copy/partitions.ts): its outcomes are appended behind
   * the partition's fence and its checkpoint saved only while the epoch is still its own (fence.ts).
   */
  readonly term?: {
    readonly lease: string;
    readonly epoch: number;
    readonly instance: string;
    /**
     * Whether the term still holds its lease as far as this instance can tell: not ended, and the
     * lease session confirmed within its last heartbeats (Leases.sessionFresh). Asked before every
     * early placement (early.ts, "More than one instance"); default: while the term runs.
     */
    readonly holds?: () => boolean;
  };
  /** A later term took the partition (FencedOut): the caller ends this term. */
  readonly onFencedOut?: () => void;
}

/** Store events handed to the pipeline at once; the pipeline queues them per master. */
const MAX_BATCH = 100;
/** How often an instance without the lease reads the holder's checkpoint while someone waits. */
const STANDBY_POLL_MS = 20;

export class CopyEngine {
  /** Failures of routing and handling: logged once per run of failures, retried with backoff. */
  private readonly handling: Recovery;
  private readonly tracking: Tracking;
  private readonly outcomes: Outcomes;
  private readonly intake: Intake;
  private readonly scheduling: Scheduling;
  private readonly handlers: CopyHandlers;
  /** Slave orders placed from the venue's change, before the bookkeeping commits (early.ts). */
  private readonly early: EarlyCopies;
  /** The open copies and martingale counts of the masters copied early, kept by the engine (book.ts). */
  private readonly book: CopyBook;
  /** What the masters' fan-outs read, read ahead of their changes (priming.ts). */
  private readonly priming: Priming;
  private readonly inputs: CopyInputs;
  private readonly processor: StreamProcessor;
  /** The store behind this term's fence (outcomes appended through it); null without a term. */
  private readonly fence: FencedStore | null;
  /** Whether this engine copies the master (its partition's); undefined: every master. */
  private readonly owns: ((masterAccountId: string) => boolean) | undefined;
  /** Ends this engine's hearing of venue changes while it runs (each term has an engine of its own). */
  private unwatch: (() => void) | null = null;
  /** This lease term's store events, as the processor reads them, and the pipeline over them. */
  private events: Subject<RecordedEvent> | null = null;
  private pipeline: RxSubscription | null = null;
  /** Where this term started reading: the pipeline starts again from here before anything is handled. */
  private termStart: Position | null = null;
  private pipelineBroke = false;
  /** The newest store event handed to this term's pipeline. */
  private lastDelivered: Position | null = null;
  private stopped = false;

  constructor(private readonly deps: CopyEngineDeps) {
    const stopped = () => this.stopped;
    const { partition } = deps;
    const name = partition ? copyEnginePartition(partition.index, partition.count) : COPY_ENGINE_PARTITION;
    const owns = partition ? (master: string) => partitionOf(master, partition.count) === partition.index : undefined;
    const inputs = new CopyInputs(deps.db, deps.connections, deps.clock, deps.readModelVersion);
    this.inputs = inputs;
    this.handling = new Recovery(partition ? `copy engine handling (${name})` : 'copy engine handling', deps.log, { action: 'tries the same event again' });
    this.tracking = new Tracking(deps.db, deps.log, stopped, name, deps.term ? { lease: deps.term.lease, epoch: deps.term.epoch } : null);
    this.fence = deps.term ? new FencedStore(deps.store, { partition: name, epoch: deps.term.epoch, instance: deps.term.instance }) : null;
    this.outcomes = new Outcomes(this.fence ? { ...deps, store: this.fence } : deps, stopped);
    this.scheduling = new Scheduling({ ...deps, ...(owns ? { owns } : {}) }, stopped);
    this.book = new CopyBook({ db: deps.db, waitForReadModels: (position) => this.outcomes.waitForReadModels(position) });
    this.outcomes.book = this.book;
    this.handlers = new CopyHandlers(deps, inputs, this.outcomes, this.book);
    this.priming = new Priming({
      prime: async (master) => {
        // After the copier changes routed so far are in the read models: a read before would be kept
        // under marks that have moved by the master's next change.
        const copiers = this.intake.newestCopierEvent;
        if (copiers) await this.outcomes.waitForReadModels(copiers);
        if (this.stopped) return;
        await inputs.prime(master);
        // What each copier's copies stream holds last, read now rather than by the first fan-out (outcomes.ts).
        if (!this.stopped) await this.outcomes.readAhead((await inputs.copiersOf(master)).map((copier) => copier.id));
      },
      log: deps.log,
    });
    // Early placement is the current term's only (early.ts, "More than one instance"): asked when the
    // change is seen and again just before the first order goes out.
    const term = deps.term;
    this.early = new EarlyCopies({
      active: () => !this.stopped && this.pipeline !== null && this.processor.active && !(this.fence?.fencedOut ?? false) && (term?.holds?.() ?? true),
      stateMark: () => this.intake.newestStateEvent,
      stateCount: () => this.intake.stateCount,
      stateChangedSince: (mark, accounts) => this.intake.stateChangedSince(mark, accounts),
      catchUp: async (mark, master) => {
        if (!this.book.has(master)) {
          // The book's first load of the master: from the read models once they include `mark`.
          await this.outcomes.catchUpReadModels(mark);
          await this.book.load(master);
          return;
        }
        // The book holds the copies: only the copiers read model is read, up to the copier events routed.
        const copiers = this.intake.newestCopierEvent;
        if (copiers) await this.outcomes.waitForReadModels(copiers);
      },
      place: (cause, ready) => this.handlers.placeEarly(cause, ready),
      heldSlaveItems: (master) =>
        this.book.has(master) ? new Set([...this.book.copiesOf(master).values()].flatMap((copies) => copies.map((copy) => copy.slavePositionId))) : null,
      masters: () => inputs.masters(),
      warm: (masters) => {
        this.book.warm(masters);
        const owns = this.owns;
        this.priming.request(owns ? masters.filter((master) => owns(master)) : masters);
      },
    });
    this.intake = new Intake({
      inputs,
      outcomes: this.outcomes,
      tracking: this.tracking,
      handling: this.handling,
      stopped,
      early: this.early,
      book: this.book,
      copierChanged: (master) => this.priming.request([master]),
      ...(owns ? { owns } : {}),
    });
    this.owns = owns;
    this.processor = new StreamProcessor({
      name,
      description: partition ? `the copy engine (${name})` : 'the copy engine',
      store: deps.store,
      leases: deps.leases ?? null,
      filter: { streamNamePrefixes: [...COPY_ENGINE_STREAMS] },
      maxBatch: MAX_BATCH,
      log: deps.log,
      consumer: {
        resume: () => this.beginTerm(),
        apply: async (batch) => {
          for (const recorded of batch) this.events?.next(recorded);
          this.lastDelivered = batch[batch.length - 1]!.position;
        },
        reload: async () => this.afterFailure(),
        released: () => this.endTerm(),
      },
    });
  }

  /**
   * Starts copying whenever this instance holds the engine's lease. Resolves once this instance has
   * begun (or stands by): every master event appended after that is copied.
   */
  start(): Promise<void> {
    this.stopped = false;
    // Changes are seen where the venue sessions are held (app/venueSessions.ts): an instance that works
    // a partition without holding them places nothing early; its masters' changes go the usual way.
    this.unwatch ??= this.deps.connections.watch((accountId, id, event) => {
      if (!this.owns || this.owns(accountId)) this.early.seen(accountId, id, event);
    });
    return this.processor.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    this.unwatch = null;
    await this.processor.stop();
    this.endTerm();
    await this.tracking.flushCheckpoint();
  }

  /**
   * The lease is won: once the read models include the store's head, reading starts from the saved
   * checkpoint (a first start: from the head; copying never replays the store's history).
   */
  private async beginTerm(): Promise<Position | null> {
    // A term of a leased partition first fences the earlier term out; what that term committed is
    // before the fence, so the read models caught up to the fence (and to every commit so far) hold it.
    const fenced = this.fence ? await this.fence.take() : null;
    const head = await this.deps.store.headPosition();
    const committed = this.fence ? await this.deps.store.lastCommittedPosition() : null;
    const target = [fenced, head, committed].reduce<Position | null>((a, b) => (b && (!a || comparePositions(a, b) < 0) ? b : a), null);
    if (target) await this.outcomes.waitForReadModels(target);
    this.termStart = await this.tracking.resumeFrom(head);
    // The read models include every event before termStart: the masters read now are a superset of
    // theirs, and the intake adds each CopierCreated it routes (intake.ts knowMasters). A failed read
    // leaves them unknown: every positions event goes to its handler, as it would.
    this.intake.knowMasters(await this.inputs.masters().catch(() => null));
    this.lastDelivered = null;
    this.startPipeline();
    this.scheduling.start();
    // The masters and their books are read now, not at their first change (early.ts `warm`).
    this.early.warm();
    return this.termStart;
  }

  private endTerm(): void {
    this.scheduling.stop();
    this.dropPipeline();
  }

  /** Ends this term's pipeline and forgets what it held: it is read again from the checkpoint. */
  private dropPipeline(): void {
    this.pipeline?.unsubscribe();
    this.pipeline = null;
    this.events?.complete();
    this.events = null;
    this.tracking.forgetInFlight();
    this.early.reset();
    this.book.reset();
    this.priming.reset();
  }

  /**
   * The pipeline over this term's events. route and process retry their own failures; should the
   * pipeline itself fail (a defect), the processor reads again after the last event handled in order:
   * handling an event again places nothing twice (deterministic client ids, outcomes recognised in the
   * copies streams).
   */
  private startPipeline(): void {
    const events = new Subject<RecordedEvent>();
    this.events = events;
    this.pipeline = merge(
      events.pipe(
        concatMap((recorded) => from(this.intake.route(recorded))),
        filter((work): work is Work => work !== null),
      ),
      this.scheduling.work$,
    )
      .pipe(
        tap((work) => this.early.enter(work)),
        groupBy((work) => work.group),
        mergeMap((group$) => group$.pipe(concatMap((work) => from(this.process(work))))),
      )
      .subscribe({
        error: (error: unknown) => {
          if (this.stopped) return;
          this.pipelineBroke = true;
          this.processor.restart(error);
        },
      });
  }

  /** After a failure: a broken pipeline is built again and reading resumes after the last event handled. */
  private afterFailure(): Position | null {
    if (!this.pipelineBroke && this.events) return this.lastDelivered ?? this.termStart;
    this.pipelineBroke = false;
    this.dropPipeline();
    this.startPipeline();
    return this.tracking.handledThrough ?? this.termStart;
  }

  /** Resolves once every store event read so far is handled (for specs and benchmarks). */
  idle(): Promise<void> {
    return this.tracking.idle();
  }

  /** Resolves once no master is being read ahead for (priming.ts), with how many primings finished this term (specs). */
  async primed(): Promise<number> {
    await this.priming.idle();
    return this.priming.finished;
  }

  /**
   * Resolves true once the engine has handled the event at `position` (a positions-* or copier-*
   * event) and everything before it; false after `timeoutMs`.
   */
  async handled(position: Position, timeoutMs: number): Promise<boolean> {
    if (this.processor.active) return this.tracking.handled(position, timeoutMs);
    // Another instance copies: its checkpoint says how far it is.
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const through = await this.tracking.savedThrough().catch(() => null);
      if (through && comparePositions(through, position) >= 0) return true;
      if (this.processor.active) return this.tracking.handled(position, Math.max(0, deadline - Date.now()));
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, STANDBY_POLL_MS));
    }
  }

  private async process(work: Work): Promise<void> {
    for (;;) {
      try {
        await this.handlers.handle(work);
        this.handling.succeeded();
        break;
      } catch (error) {
        if (this.stopped) return;
        if (error instanceof FencedOut) {
          // Another instance took the partition: this term ends; its work there starts from our fence.
          this.deps.onFencedOut?.();
          return;
        }
        await this.handling.failed(error, () => this.stopped);
      }
    }
    this.early.leave(work);
    if (work.kind === 'master' || work.kind === 'copier') this.tracking.finishEvent(work.recorded);
    else this.scheduling.done(work);
  }
}
