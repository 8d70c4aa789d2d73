// A retention job: rows of a read model older than a number of days are deleted by one background job.
// It runs under a lease (store/postgres/leases.ts), so of several instances of the service one prunes at
// a time, and it keeps the time of its last pass in processor_checkpoints (under its own name), so an
// instance that takes the lease over does not prune again before the interval has passed since the last
// pass, by whichever instance. The jobs: apiRequestRetention.ts (the audit log's request records) and
// dataCollectorRetention.ts (the data collector's samples).
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { ReadModels } from '../projections/schema.js';
import type { JobRounds } from '../store/postgres/jobRounds.js';
import { LeasedLoop } from '../store/postgres/leasedLoop.js';
import type { Leases } from '../store/postgres/leases.js';
import type { RecoveryLog } from '../store/recovery.js';

const DAY_MS = 86_400_000;

/** What every retention job is given by the composition (app/service.ts). */
export interface RetentionDeps {
  readonly db: Kysely<ReadModels>;
  readonly leases: Leases;
  readonly clock: () => Date;
  readonly log: RecoveryLog;
  /** How often a pass runs (default an hour). */
  readonly everyMs?: number;
  /** How often the lease holder looks whether a pass is due (default a minute). */
  readonly lookMs?: number;
  /** Where its rounds are recorded for /ready (store/postgres/jobRounds.ts); left out: not watched. */
  readonly rounds?: JobRounds;
}

/** What one retention job deletes, and how it speaks of it in the service log. */
export interface RetentionJob {
  /** The lease only one instance holds. */
  readonly lease: string;
  /** The processor_checkpoints row keeping the time of the last pass. */
  readonly lastPass: string;
  readonly retentionDays: number;
  /** Deletes the rows older than `before`; answers how many. */
  readonly prune: (db: Kysely<ReadModels>, before: Date) => Promise<number>;
  /** The service log's line after a pass that deleted `deleted` rows. */
  readonly deletedLine: (deleted: number) => string;
  /** The service log's line when a pass failed (it is tried again at the next look). */
  readonly failedLine: string;
}

export class LeasedRetention {
  private readonly loop: LeasedLoop;
  private readonly everyMs: number;

  constructor(
    private readonly deps: RetentionDeps,
    private readonly job: RetentionJob,
  ) {
    this.everyMs = deps.everyMs ?? 3_600_000;
    this.loop = new LeasedLoop({
      leases: deps.leases,
      lease: job.lease,
      everyMs: deps.lookMs ?? 60_000,
      rounds: deps.rounds,
      round: async () => void (await this.passIfDue()),
      failed: (error) => deps.log.warn(`${job.failedLine}: ${String(error)}`),
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One pass if one is due: answers the rows deleted, or null when the last pass is recent. */
  async passIfDue(): Promise<number | null> {
    const now = this.deps.clock();
    const last = await this.deps.db
      .withTables<{ processor_checkpoints: { name: string; updated: Date } }>()
      .selectFrom('processor_checkpoints')
      .select('updated')
      .where('name', '=', this.job.lastPass)
      .executeTakeFirst();
    if (last && now.getTime() - new Date(last.updated).getTime() < this.everyMs) return null;
    const deleted = await this.job.prune(this.deps.db, new Date(now.getTime() - this.job.retentionDays * DAY_MS));
    await sql`INSERT INTO processor_checkpoints (name, position, updated) VALUES (${this.job.lastPass}, NULL, ${now})
      ON CONFLICT (name) DO UPDATE SET updated = EXCLUDED.updated`.execute(this.deps.db);
    if (deleted > 0) this.deps.log.info(this.job.deletedLine(deleted));
    return deleted;
  }
}
