// The retention of the data collector's samples (FeatureDataCollectorDTO.retentionDays, the reference's
// fixed system value DATA_COLLECTOR_RETENTION_DAYS): samples older than it, hidden from GET
// .../dataCollector already, are deleted from the read model by one background job. As the audit log's
// retention (apiRequestRetention.ts), it runs under a lease (store/postgres/leases.ts), so of several
// instances one prunes at a time, and keeps the time of its last pass in processor_checkpoints
// (`retention:data_collector_samples`), so an instance taking the lease over does not prune again before
// the interval has passed. The AccountSampled events stay in the event store (its port deletes no single
// events): a rebuild of the read model brings old samples back until the next pass, hidden meanwhile.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { setTimeout as wait } from 'node:timers/promises';
import { DATA_COLLECTOR_RETENTION_DAYS } from '../domain/analytics/dataCollector.js';
import { pruneSamples } from '../projections/dataCollector/queries.js';
import type { ReadModels } from '../projections/schema.js';
import type { Leases } from '../store/postgres/leases.js';
import type { RecoveryLog } from '../store/recovery.js';

export const DATA_COLLECTOR_RETENTION_LEASE = 'data-collector-retention';
const LAST_PASS = 'retention:data_collector_samples';
const DAY_MS = 86_400_000;

export interface DataCollectorRetentionDeps {
  readonly db: Kysely<ReadModels>;
  readonly leases: Leases;
  readonly clock: () => Date;
  readonly log: RecoveryLog;
  /** How often a pass runs (default an hour). */
  readonly everyMs?: number;
  /** How often the lease holder looks whether a pass is due (default a minute). */
  readonly lookMs?: number;
}

/** Waits `ms`, cut short when `signal` aborts, also when it aborted before the wait began. */
const sleep = (ms: number, signal: AbortSignal): Promise<void> => wait(ms, undefined, { signal }).catch(() => undefined);

export class DataCollectorRetention {
  private handle: { release(): Promise<void> } | null = null;
  private readonly everyMs: number;
  private readonly lookMs: number;

  constructor(private readonly deps: DataCollectorRetentionDeps) {
    this.everyMs = deps.everyMs ?? 3_600_000;
    this.lookMs = deps.lookMs ?? 60_000;
  }

  start(): void {
    this.handle = this.deps.leases.hold(DATA_COLLECTOR_RETENTION_LEASE, (signal) => this.work(signal));
  }

  async stop(): Promise<void> {
    await this.handle?.release();
    this.handle = null;
  }

  /** One pass if one is due: answers the samples deleted, or null when the last pass is recent. */
  async passIfDue(): Promise<number | null> {
    const now = this.deps.clock();
    const last = await this.deps.db
      .withTables<{ processor_checkpoints: { name: string; updated: Date } }>()
      .selectFrom('processor_checkpoints')
      .select('updated')
      .where('name', '=', LAST_PASS)
      .executeTakeFirst();
    if (last && now.getTime() - new Date(last.updated).getTime() < this.everyMs) return null;
    const deleted = await pruneSamples(this.deps.db, new Date(now.getTime() - DATA_COLLECTOR_RETENTION_DAYS * DAY_MS));
    await sql`INSERT INTO processor_checkpoints (name, position, updated) VALUES (${LAST_PASS}, NULL, ${now})
      ON CONFLICT (name) DO UPDATE SET updated = EXCLUDED.updated`.execute(this.deps.db);
    if (deleted > 0) this.deps.log.info(`data collector: ${deleted} samples older than ${DATA_COLLECTOR_RETENTION_DAYS} days deleted`);
    return deleted;
  }

  private async work(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.passIfDue();
      } catch (error) {
        this.deps.log.warn(`data collector: old samples could not be deleted (tried again later): ${String(error)}`);
      }
      await sleep(this.lookMs, signal);
    }
  }
}
