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
import { concatMap, filter, from, groupBy, merge, mergeMap, type Subscription as RxSubscription } from 'rxjs';
import type { Kysely } from 'kysely';
import type { ReadModels } from '../../projections/schema.js';
import type { EventStore, Position } from '../../store/port.js';
import { Recovery, type RecoveryLog } from '../../store/recovery.js';
import type { AccountConnections } from '../venues/connections.js';
import { CopyHandlers } from './handlers.js';
import { CopyInputs } from './inputs.js';
import { Intake } from './intake.js';
import { Outcomes } from './outcomes.js';
import { Scheduling } from './scheduling.js';
import { Tracking } from './tracking.js';
import type { Work } from './work.js';

export { COPY_EVENT_NAMESPACE } from './outcomes.js';

export type EngineLog = RecoveryLog;

export interface CopyEngineDeps {
  readonly store: EventStore;
  readonly db: Kysely<ReadModels>;
  readonly connections: AccountConnections;
  readonly waitForReadModels: (position: Position, timeoutMs: number) => Promise<boolean>;
  readonly clock: () => Date;
  readonly log: EngineLog;
  /** Default 30 s; specs shorten it. */
  readonly retryIntervalMs?: number;
  /** Default 1 s: deferrals and management. */
  readonly tickMs?: number;
}

export class CopyEngine {
  /** Failures of routing and handling: logged once per run of failures, retried with backoff. */
  private readonly handling: Recovery;
  private readonly pipelineFailures: Recovery;
  private readonly tracking: Tracking;
  private readonly outcomes: Outcomes;
  private readonly intake: Intake;
  private readonly scheduling: Scheduling;
  private readonly handlers: CopyHandlers;
  private pipeline: RxSubscription | null = null;
  private stopped = false;

  constructor(private readonly deps: CopyEngineDeps) {
    const stopped = () => this.stopped;
    const inputs = new CopyInputs(deps.db, deps.connections, deps.clock);
    this.handling = new Recovery('copy engine handling', deps.log, { action: 'tries the same event again' });
    this.pipelineFailures = new Recovery('the copy engine pipeline', deps.log, { action: 'starts again after the last event it handled' });
    this.tracking = new Tracking(deps.db, deps.log, stopped);
    this.outcomes = new Outcomes(deps, stopped);
    this.intake = new Intake({ store: deps.store, log: deps.log, inputs, outcomes: this.outcomes, tracking: this.tracking, handling: this.handling, stopped });
    this.scheduling = new Scheduling(deps, stopped);
    this.handlers = new CopyHandlers(deps, inputs, this.outcomes);
  }

  static async migrate(db: Kysely<ReadModels>): Promise<void> {
    await Tracking.migrate(db);
  }

  async start(): Promise<void> {
    await CopyEngine.migrate(this.deps.db);
    const head = await this.deps.store.headPosition();
    if (head) await this.outcomes.waitForReadModels(head);
    const resumeFrom = await this.tracking.resumeFrom(head);
    this.startPipeline(resumeFrom);
    this.scheduling.start();
  }

  /**
   * The pipeline from `resumeFrom` on. route and process retry their own failures; should the pipeline
   * itself fail (a defect), it starts again after the last event handled in order: handling an event
   * again places nothing twice (deterministic client ids, outcomes recognised in the copies streams).
   */
  private startPipeline(resumeFrom: Position | 'start'): void {
    this.pipeline = merge(
      this.intake.storeEvents(resumeFrom).pipe(
        concatMap((recorded) => from(this.intake.route(recorded))),
        filter((work): work is Work => work !== null),
      ),
      this.scheduling.work$,
    )
      .pipe(
        groupBy((work) => work.group),
        mergeMap((group$) => group$.pipe(concatMap((work) => from(this.process(work))))),
      )
      .subscribe({
        error: (error: unknown) => {
          if (this.stopped) return;
          const from = this.tracking.handledThrough ?? resumeFrom;
          const delay = this.pipelineFailures.noted(error);
          this.tracking.forgetInFlight();
          void this.intake.unsubscribe();
          setTimeout(() => {
            if (!this.stopped) this.startPipeline(from);
          }, delay).unref();
        },
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.scheduling.stop();
    await this.intake.unsubscribe();
    this.pipeline?.unsubscribe();
    await this.tracking.flushCheckpoint();
  }

  /** Resolves once every store event read so far is handled (for specs and benchmarks). */
  idle(): Promise<void> {
    return this.tracking.idle();
  }

  /**
   * Resolves true once the engine has handled the event at `position` (a positions-* or copier-*
   * event) and everything before it; false after `timeoutMs`.
   */
  handled(position: Position, timeoutMs: number): Promise<boolean> {
    return this.tracking.handled(position, timeoutMs);
  }

  private async process(work: Work): Promise<void> {
    for (;;) {
      try {
        await this.handlers.handle(work);
        this.handling.succeeded();
        break;
      } catch (error) {
        if (this.stopped) return;
        await this.handling.failed(error, () => this.stopped);
      }
    }
    if (work.kind === 'master' || work.kind === 'copier') this.tracking.finishEvent(work.recorded);
    else this.scheduling.done(work);
  }
}
