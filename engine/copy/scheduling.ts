// The work the copy engine gives itself, on timers: refused opens resent while their open-retry
// window runs, deferrals that fell due (or whose approval was decided), and a management tick for
// every copier with a managing feature. Each item joins its master's group in the pipeline, once
// while it waits.
//
// The tick's reads are kept while their read models are unchanged (projections/keptRead.ts): an idle
// engine read the same three answers every second. Deferrals are kept whole and picked by their due
// time at each tick, so one falling due is taken up without a read. The one write to them outside the
// projection runner (handlers.ts ends the deferral of a deleted copier by deleting its row) happens
// while that deferral is handled: the deferral reads are read again after every deferral handled (`done`).
import type { Kysely } from 'kysely';
import { Subject } from 'rxjs';
import { KeptRead, type ReadModelMarks } from '../../projections/keptRead.js';
import type { ReadModels } from '../../projections/schema.js';
import { Recovery, type RecoveryLog } from '../../store/recovery.js';
import { decidedApprovals } from './approvals.js';
import { managingFeatureTypes } from './management.js';
import type { ScheduledWork } from './work.js';

const RETRY_INTERVAL_MS = 30_000;
/** How often due deferrals are taken up and features manage open copies. */
const TICK_MS = 1000;

export interface SchedulingDeps {
  readonly db: Kysely<ReadModels>;
  readonly clock: () => Date;
  readonly log: RecoveryLog;
  /** Default 30 s; specs shorten it. */
  readonly retryIntervalMs?: number;
  /** Default 1 s: deferrals and management. */
  readonly tickMs?: number;
  /** Whether this engine copies the master account (its partition); default every one. */
  readonly owns?: (masterAccountId: string) => boolean;
  /** A read model's mark (ProjectionRunner.version): the tick's reads are kept while theirs stay; left out: every tick reads. */
  readonly readModelVersion?: ReadModelMarks;
}

/** The read models of the tick's reads (copy_deferrals is the copies read model's). */
const DEFERRAL_READ_MODELS = ['copies'];
const DECIDED_READ_MODELS = ['approvals', 'copies', 'features'];
const MANAGED_READ_MODELS = ['features', 'copiers'];

interface Deferral {
  readonly id: string;
  readonly master_account_id: string;
  readonly due_at: Date;
}

export class Scheduling {
  /** The scheduled work, for the pipeline to merge with the store's events. */
  readonly work$ = new Subject<ScheduledWork>();
  /** Scheduled work queued and not yet done, so a tick does not queue it twice. */
  private readonly queued = new Set<string>();
  private retryTimer: NodeJS.Timeout | null = null;
  private tickTimer: NodeJS.Timeout | null = null;
  /** Every deferral, soonest due first. */
  private readonly deferrals: KeptRead<readonly Deferral[]>;
  /** The deferrals whose approval was decided (or is no longer asked for). */
  private readonly decided: KeptRead<readonly { readonly id: string; readonly master_account_id: string }[]>;
  /** The copiers with a managing feature. */
  private readonly managed: KeptRead<readonly { readonly copier_id: string; readonly from_account_id: string }[]>;

  constructor(
    private readonly deps: SchedulingDeps,
    private readonly stopped: () => boolean,
  ) {
    const marks = deps.readModelVersion;
    this.deferrals = new KeptRead(
      DEFERRAL_READ_MODELS,
      () => deps.db.selectFrom('copy_deferrals').select(['id', 'master_account_id', 'due_at']).orderBy('due_at').orderBy('id').execute(),
      marks,
    );
    this.decided = new KeptRead(DECIDED_READ_MODELS, () => decidedApprovals(deps.db), marks);
    this.managed = new KeptRead(MANAGED_READ_MODELS, () => this.managingCopiers(), marks);
  }

  start(): void {
    this.scheduleRetries();
    const ticks = new Recovery('the copy engine tick (deferrals, management)', this.deps.log, { action: 'runs at the next tick' });
    this.tickTimer = setInterval(() => {
      if (this.stopped()) return;
      this.tick().then(
        () => ticks.succeeded(),
        (error: unknown) => ticks.noted(error),
      );
    }, this.deps.tickMs ?? TICK_MS);
    this.tickTimer.unref();
  }

  /** Stops the timers and forgets what was queued (the pipeline that held it is gone). */
  stop(): void {
    if (this.retryTimer) clearInterval(this.retryTimer);
    if (this.tickTimer) clearInterval(this.tickTimer);
    this.retryTimer = null;
    this.tickTimer = null;
    this.queued.clear();
  }

  /** The work is done: a later tick may queue it again. */
  done(work: ScheduledWork): void {
    this.queued.delete(queueKey(work));
    if (work.kind !== 'deferral') return;
    // Its handler may have deleted the row itself (a deleted copier's deferral), which moves no mark.
    this.deferrals.forget();
    this.decided.forget();
  }

  /** Queues scheduled work into its master's group, once while it waits. */
  private schedule(work: ScheduledWork): void {
    if (this.deps.owns && !this.deps.owns(work.group)) return;
    const key = queueKey(work);
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.work$.next(work);
  }

  /** One look (the timer's; specs call it): due deferrals, and management for every copier with a managing feature. */
  async tick(): Promise<void> {
    const now = this.deps.clock().getTime();
    for (const row of await this.deferrals.get()) {
      if (new Date(row.due_at).getTime() > now) break;
      this.schedule({ kind: 'deferral', group: row.master_account_id, deferralId: row.id });
    }
    // Approved or rejected opens are decided again at once, not at their expiry.
    for (const row of await this.decided.get()) this.schedule({ kind: 'deferral', group: row.master_account_id, deferralId: row.id });
    for (const row of await this.managed.get()) this.schedule({ kind: 'manage', group: row.from_account_id, copierId: row.copier_id });
  }

  private async managingCopiers(): Promise<{ copier_id: string; from_account_id: string }[]> {
    const managing = managingFeatureTypes();
    if (managing.length === 0) return [];
    return this.deps.db
      .selectFrom('features')
      .innerJoin('copiers', (join) =>
        join.on((eb) =>
          eb.or([
            eb.and([eb('features.scope_kind', '=', 'copier'), eb('features.copier_id', '=', eb.ref('copiers.id'))]),
            eb.and([eb('features.scope_kind', '=', 'account'), eb('features.account_id', '=', eb.ref('copiers.to_account_id'))]),
          ]),
        ),
      )
      .select(['copiers.id as copier_id', 'copiers.from_account_id'])
      .where('features.type', 'in', managing)
      .distinct()
      .execute();
  }

  private scheduleRetries(): void {
    const interval = this.deps.retryIntervalMs ?? RETRY_INTERVAL_MS;
    const recovery = new Recovery('scheduling open retries', this.deps.log, { action: 'runs at the next interval' });
    const tick = async () => {
      const due = await this.deps.db.selectFrom('copy_retries').select(['client_order_id', 'master_account_id']).execute();
      for (const row of due) this.schedule({ kind: 'retry', group: row.master_account_id, clientOrderId: row.client_order_id });
    };
    this.retryTimer = setInterval(() => {
      if (!this.stopped())
        tick().then(
          () => recovery.succeeded(),
          (error: unknown) => recovery.noted(error),
        );
    }, interval);
    this.retryTimer.unref();
  }
}

const queueKey = (work: ScheduledWork): string =>
  work.kind === 'retry' ? `retry:${work.clientOrderId}` : work.kind === 'deferral' ? `deferral:${work.deferralId}` : `manage:${work.copierId}`;
