// The retention of the audit log's request records (api_requests, projections/auditLogs/requests.ts):
// records older than API_REQUEST_RETENTION_DAYS are deleted by one background job. It runs under a lease
// (store/postgres/leases.ts), so of several instances of the service one prunes at a time, and it keeps
// the time of its last pass in processor_checkpoints (`retention:api_requests`), so an instance that
// takes the lease over does not prune again before the interval has passed since the last pass, by
// whichever instance. The changes the pruned requests made stay in the audit log, without their
// request members.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { setTimeout as wait } from 'node:timers/promises';
import { pruneApiRequests } from '../projections/auditLogs/requests.js';
import type { ReadModels } from '../projections/schema.js';
import type { Leases } from '../store/postgres/leases.js';
import type { RecoveryLog } from '../store/recovery.js';

export const API_REQUEST_RETENTION_LEASE = 'api-requests-retention';
const LAST_PASS = 'retention:api_requests';
const DAY_MS = 86_400_000;

export interface ApiRequestRetentionDeps {
  readonly db: Kysely<ReadModels>;
  readonly leases: Leases;
  readonly clock: () => Date;
  /** API_REQUEST_RETENTION_DAYS. */
  readonly retentionDays: number;
  readonly log: RecoveryLog;
  /** How often a pass runs (default an hour). */
  readonly everyMs?: number;
  /** How often the lease holder looks whether a pass is due (default a minute). */
  readonly lookMs?: number;
}

/** Waits `ms`, cut short when `signal` aborts, also when it aborted before the wait began. */
const sleep = (ms: number, signal: AbortSignal): Promise<void> => wait(ms, undefined, { signal }).catch(() => undefined);

export class ApiRequestRetention {
  private handle: { release(): Promise<void> } | null = null;
  private readonly everyMs: number;
  private readonly lookMs: number;

  constructor(private readonly deps: ApiRequestRetentionDeps) {
    this.everyMs = deps.everyMs ?? 3_600_000;
    this.lookMs = deps.lookMs ?? 60_000;
  }

  start(): void {
    this.handle = this.deps.leases.hold(API_REQUEST_RETENTION_LEASE, (signal) => this.work(signal));
  }

  async stop(): Promise<void> {
    await this.handle?.release();
    this.handle = null;
  }

  /** One pass if one is due: answers the records deleted, or null when the last pass is recent. */
  async passIfDue(): Promise<number | null> {
    const now = this.deps.clock();
    const last = await this.deps.db
      .withTables<{ processor_checkpoints: { name: string; updated: Date } }>()
      .selectFrom('processor_checkpoints')
      .select('updated')
      .where('name', '=', LAST_PASS)
      .executeTakeFirst();
    if (last && now.getTime() - new Date(last.updated).getTime() < this.everyMs) return null;
    const deleted = await pruneApiRequests(this.deps.db, new Date(now.getTime() - this.deps.retentionDays * DAY_MS));
    await sql`INSERT INTO processor_checkpoints (name, position, updated) VALUES (${LAST_PASS}, NULL, ${now})
      ON CONFLICT (name) DO UPDATE SET updated = EXCLUDED.updated`.execute(this.deps.db);
    if (deleted > 0) this.deps.log.info(`audit: ${deleted} request records older than ${this.deps.retentionDays} days deleted`);
    return deleted;
  }

  private async work(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.passIfDue();
      } catch (error) {
        this.deps.log.warn(`audit: the request records could not be pruned (tried again later): ${String(error)}`);
      }
      await sleep(this.lookMs, signal);
    }
  }
}
