// The work the copy engine gives itself, on timers: refused opens resent while their open-retry
// window runs, deferrals that fell due (or whose approval was decided), and a management tick for
// every copier with a managing feature. Each item joins its master's group in the pipeline, once
// while it waits.
import type { Kysely } from 'kysely';
import { Subject } from 'rxjs';
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
}

export class Scheduling {
  /** The scheduled work, for the pipeline to merge with the store's events. */
  readonly work$ = new Subject<ScheduledWork>();
  /** Scheduled work queued and not yet done, so a tick does not queue it twice. */
  private readonly queued = new Set<string>();
  private retryTimer: NodeJS.Timeout | null = null;
  private tickTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: SchedulingDeps,
    private readonly stopped: () => boolean,
  ) {}

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
  }

  /** Queues scheduled work into its master's group, once while it waits. */
  private schedule(work: ScheduledWork): void {
    if (this.deps.owns && !this.deps.owns(work.group)) return;
    const key = queueKey(work);
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.work$.next(work);
  }

  /** Every tick: due deferrals, and management for every copier with a managing feature. */
  private async tick(): Promise<void> {
    const now = this.deps.clock();
    const due = await this.deps.db.selectFrom('copy_deferrals').select(['id', 'master_account_id']).where('due_at', '<=', now).orderBy('due_at').execute();
    for (const row of due) this.schedule({ kind: 'deferral', group: row.master_account_id, deferralId: row.id });
    // Approved or rejected opens are decided again at once, not at their expiry.
    for (const row of await decidedApprovals(this.deps.db)) this.schedule({ kind: 'deferral', group: row.master_account_id, deferralId: row.id });
    const managing = managingFeatureTypes();
    if (managing.length === 0) return;
    const copiers = await this.deps.db
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
    for (const row of copiers) this.schedule({ kind: 'manage', group: row.from_account_id, copierId: row.copier_id });
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
