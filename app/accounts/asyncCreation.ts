// Asynchronous account creation (spec "Asynchronous account creation request", "Events" 1, "Limits").
//
// POST /accounts with callbackUrl validates synchronously, then queues the request and answers 202.
// The queue is a table: a request is QUEUED, then PROCESSING, then COMPLETED (with the account) or
// FAILED (with the error), and is removed 1 hour after completion. Requests of one project run one at a
// time and in the order they were accepted: the sequence number comes from a per-project counter row
// that each enqueue locks until it commits, so numbering order is commit order; a worker takes the
// project's creation lock (the advisory lock synchronous creations wait for) and works the project's
// requests by number. Any instance may be the worker; the lock makes it one at a time across all.
//
// The outcome and its callback are written in one transaction (the callback is a row of the durable
// outbox, engine/delivery/outbox.ts): a restart neither loses queued work nor an undelivered callback.
// A crash while PROCESSING leaves the row PROCESSING; the next worker runs it again with the same
// account id, and creation takes an account already in the store as created (see create.ts).
import { type Kysely, sql } from 'kysely';
import type { AccountSettings } from '../../domain/account/events.js';
import type { RequestContext } from '../../domain/shared/command.js';
import { migrateReadModels } from '../../projections/migrations.js';
import { Recovery, type RecoveryLog } from '../../store/recovery.js';
import type { Outbox } from '../../engine/delivery/outbox.js';
import { Waker } from '../../engine/delivery/waker.js';
import { creationLock } from './creationLock.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the queue's tables are not read models
type AnyDb = Kysely<any>;

export type AsyncStatus = 'QUEUED' | 'PROCESSING' | 'COMPLETED' | 'FAILED';

export interface AsyncRequestRow {
  request_id: string;
  project_id: string;
  seq: string;
  status: AsyncStatus;
  account_id: string;
  settings: AccountSettings;
  fail_if_exists: boolean;
  callback_url: string;
  context: RequestContext;
  error: { error: string; message: string } | null;
  created: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

export type Outcome =
  | { readonly status: 'COMPLETED'; readonly callbackBody: Record<string, unknown>; readonly sealed: string | null }
  | { readonly status: 'FAILED'; readonly error: { error: string; message: string } };

/** Spec "Limits": status retention 1 hour after completion. */
export const RETENTION_MS = 3600_000;
/** Spec "Limits": an async creation takes up to 300 seconds, internal retries included. */
export const MAX_DURATION_MS = 300_000;
/** Spec "Events" 1: 3 attempts; wait 2 s after the first, 4 s after the second. */
export const CALLBACK_POLICY = { maxAttempts: 3, backoffMs: [2000, 4000] } as const;

export interface QueueDeps {
  readonly db: AnyDb;
  readonly outbox: Outbox;
  readonly clock: () => Date;
  readonly log: RecoveryLog;
}

const POLL_MS = 1000;
const MAX_PROJECTS_AT_ONCE = 2;
const CLEANUP_EVERY_MS = 60_000;

export class AccountCreationQueue {
  private stopped = true;
  /** Failures of a project's creations: logged once per run of failures, retried with backoff. */
  private readonly projects: Recovery;
  private loop: Promise<void> | null = null;
  private process: ((row: AsyncRequestRow) => Promise<Outcome>) | null = null;
  private readonly working = new Map<string, Promise<void>>();
  private readonly waker = new Waker();
  private lastCleanup = 0;

  constructor(private readonly deps: QueueDeps) {
    this.projects = new Recovery('async account creation', deps.log, { action: 'tries the request again' });
  }

  /** The queue's tables are the read-model database's (projections/migrations.ts). */
  static migrate(db: AnyDb): Promise<void> {
    return migrateReadModels(db);
  }

  /** Queues a request (QUEUED) behind the project's earlier ones. */
  async enqueue(request: {
    requestId: string;
    projectId: string;
    accountId: string;
    settings: AccountSettings;
    failIfExists: boolean;
    callbackUrl: string;
    context: RequestContext;
  }): Promise<AsyncRequestRow> {
    const row = await this.deps.db.transaction().execute(async (trx) => {
      const counter = await sql<{ last_seq: string }>`INSERT INTO account_creation_sequences (project_id, last_seq) VALUES (${request.projectId}, 1)
        ON CONFLICT (project_id) DO UPDATE SET last_seq = account_creation_sequences.last_seq + 1 RETURNING last_seq`.execute(trx);
      const inserted = await sql<AsyncRequestRow>`INSERT INTO account_creation_requests
        (request_id, project_id, seq, status, account_id, settings, fail_if_exists, callback_url, context, created)
        VALUES (${request.requestId}, ${request.projectId}, ${counter.rows[0]!.last_seq}, 'QUEUED', ${request.accountId},
          ${JSON.stringify(request.settings)}::jsonb, ${request.failIfExists}, ${request.callbackUrl}, ${JSON.stringify(request.context)}::jsonb,
          ${this.deps.clock()})
        RETURNING *`.execute(trx);
      return inserted.rows[0]!;
    });
    this.wake();
    return row;
  }

  private retainedSince(): Date {
    return new Date(this.deps.clock().getTime() - RETENTION_MS);
  }

  /** The project's requests not yet removed, in the order they were accepted. */
  async list(projectId: string): Promise<AsyncRequestRow[]> {
    const result = await sql<AsyncRequestRow>`SELECT * FROM account_creation_requests WHERE project_id = ${projectId}
      AND (completed_at IS NULL OR completed_at > ${this.retainedSince()}) ORDER BY seq`.execute(this.deps.db);
    return result.rows;
  }

  async find(projectId: string, requestId: string): Promise<AsyncRequestRow | undefined> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(requestId)) return undefined;
    const result = await sql<AsyncRequestRow>`SELECT * FROM account_creation_requests WHERE project_id = ${projectId}
      AND request_id = ${requestId} AND (completed_at IS NULL OR completed_at > ${this.retainedSince()})`.execute(this.deps.db);
    return result.rows[0];
  }

  wake(): void {
    this.waker.wake();
  }

  async start(process: (row: AsyncRequestRow) => Promise<Outcome>): Promise<void> {
    await AccountCreationQueue.migrate(this.deps.db);
    this.process = process;
    this.stopped = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
    await Promise.all([...this.working.values()]);
  }

  private async run(): Promise<void> {
    const recovery = new Recovery('the async account creation queue', this.deps.log, { action: 'looks for queued creations again' });
    while (!this.stopped) {
      let waitMs = POLL_MS;
      try {
        if (this.deps.clock().getTime() - this.lastCleanup > CLEANUP_EVERY_MS) await this.cleanup();
        const pending = await sql<{ project_id: string }>`SELECT DISTINCT project_id FROM account_creation_requests
          WHERE status IN ('QUEUED', 'PROCESSING')`.execute(this.deps.db);
        for (const { project_id: projectId } of pending.rows) {
          if (this.working.has(projectId) || this.working.size >= MAX_PROJECTS_AT_ONCE) continue;
          const work = this.workProject(projectId)
            .then(
              () => this.projects.succeeded(),
              (error: unknown) => void this.projects.noted(error),
            )
            .finally(() => {
              this.working.delete(projectId);
              this.wake();
            });
          this.working.set(projectId, work);
        }
        recovery.succeeded();
      } catch (error) {
        waitMs = Math.max(POLL_MS, recovery.noted(error));
      }
      if (!this.stopped) await this.waker.sleep(waitMs);
    }
  }

  /** Holds the project's creation lock (if free) and works its requests in order. */
  private workProject(projectId: string): Promise<void> {
    return this.deps.db.connection().execute(async (conn) => {
      const lock = creationLock(projectId);
      const got = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(hashtext(${lock})) AS ok`.execute(conn);
      if (!got.rows[0]?.ok) return; // another instance, or a synchronous creation: try again at the next pass
      try {
        while (!this.stopped) {
          const next = await sql<AsyncRequestRow>`SELECT * FROM account_creation_requests WHERE project_id = ${projectId}
            AND status IN ('QUEUED', 'PROCESSING') ORDER BY seq LIMIT 1`.execute(this.deps.db);
          const row = next.rows[0];
          if (!row) return;
          if (row.status === 'QUEUED') {
            row.started_at = this.deps.clock();
            await sql`UPDATE account_creation_requests SET status = 'PROCESSING', started_at = ${row.started_at}
              WHERE request_id = ${row.request_id}`.execute(this.deps.db);
          }
          let outcome: Outcome;
          try {
            outcome = await this.process!(row);
          } catch (error) {
            // Not a refusal of the request (those are FAILED outcomes) but trouble of our own: retry until the spec's 300 s.
            const startedAt = new Date(row.started_at ?? row.created).getTime();
            if (this.deps.clock().getTime() - startedAt < MAX_DURATION_MS) {
              await this.projects.failed(error, () => this.stopped);
              continue;
            }
            outcome = { status: 'FAILED', error: { error: '[ACCOUNT_CREATION_FAILED]', message: 'the account could not be created in time; try again' } };
          }
          await this.complete(row, outcome);
        }
      } finally {
        await sql`SELECT pg_advisory_unlock(hashtext(${lock}))`.execute(conn);
      }
    });
  }

  /** The outcome and its callback, in one transaction. */
  private async complete(row: AsyncRequestRow, outcome: Outcome): Promise<void> {
    const body =
      outcome.status === 'COMPLETED'
        ? { requestId: row.request_id, status: 'COMPLETED', ...outcome.callbackBody }
        : { requestId: row.request_id, status: 'FAILED', error: outcome.error };
    await this.deps.db.transaction().execute(async (trx) => {
      await sql`UPDATE account_creation_requests SET status = ${outcome.status},
        error = ${outcome.status === 'FAILED' ? JSON.stringify(outcome.error) : null}::jsonb, completed_at = ${this.deps.clock()}
        WHERE request_id = ${row.request_id}`.execute(trx);
      await this.deps.outbox.enqueue(trx, {
        id: row.request_id,
        kind: 'ACCOUNT_CREATION_CALLBACK',
        url: row.callback_url,
        headers: { 'Content-Type': 'application/json', 'X-Request-Id': row.request_id, 'User-Agent': 'copy-trading-service' },
        body,
        sealed: outcome.status === 'COMPLETED' ? outcome.sealed : null,
        ...CALLBACK_POLICY,
      });
    });
    this.deps.outbox.wake();
  }

  private async cleanup(): Promise<void> {
    this.lastCleanup = this.deps.clock().getTime();
    await sql`DELETE FROM account_creation_requests WHERE completed_at <= ${this.retainedSince()}`.execute(this.deps.db);
  }
}
