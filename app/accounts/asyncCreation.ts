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
//
// The worker is a QueueProcessor (store/queueProcessor.ts), the one durable-queue loop the delivery
// outbox shares: a job here is a project with queued requests, its key the project (one worker per
// project per instance), its lease the project's creation lock.
import { type ColumnType, type Kysely, type Selectable, sql } from 'kysely';
import type { AccountSettings } from '../../domain/account/events.js';
import type { RequestContext } from '../../domain/shared/command.js';
import { migrateReadModels } from '../../projections/migrations.js';
import { Recovery, type RecoveryLog } from '../../store/recovery.js';
import type { Outbox } from '../../engine/delivery/outbox.js';
import { QueueProcessor, type QueueSignal } from '../../store/queueProcessor.js';
import { creationLock } from './creationLock.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations and the outbox take a database of any shape
type AnyDb = Kysely<any>;

export type AsyncStatus = 'QUEUED' | 'PROCESSING' | 'COMPLETED' | 'FAILED';

type Json<T> = ColumnType<T, string, string>;
type Timestamp = ColumnType<Date, Date, Date>;

/** The queue's tables (created by projections/migrations.ts). */
export type CreationQueueTables = {
  account_creation_sequences: { project_id: string; last_seq: ColumnType<string, number, number> };
  account_creation_requests: {
    request_id: string;
    project_id: string;
    seq: ColumnType<string, string, never>;
    status: AsyncStatus;
    account_id: string;
    settings: Json<AccountSettings>;
    fail_if_exists: boolean;
    callback_url: string;
    context: Json<RequestContext>;
    error: ColumnType<{ error: string; message: string } | null, never, string | null>;
    created: Timestamp;
    started_at: ColumnType<Date | null, never, Date>;
    completed_at: ColumnType<Date | null, never, Date>;
  };
};

export type AsyncRequestRow = Selectable<CreationQueueTables['account_creation_requests']>;

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
  /** Tells the other instances of a queued request and hears of theirs (store/postgres/queueWake.ts). */
  readonly queueWake?: QueueSignal;
  /** The idle pause, fixed (specs: a wake is then the only way to look before it ends); default 1 s backing off to 5 s. */
  readonly idlePollMs?: number;
}

/** The queue's name in the other instances' wakes. */
const CREATIONS_QUEUE = 'account-creations';
const POLL_MS = 1000;
/** An idle queue looks at most this long apart (a request another instance queued is taken within it). */
export const MAX_IDLE_POLL_MS = 5000;
const MAX_PROJECTS_AT_ONCE = 2;
const CLEANUP_EVERY_MS = 60_000;

export class AccountCreationQueue {
  /** Failures of a request's creation (not refusals): logged once per run of failures, retried with backoff. */
  private readonly retries: Recovery;
  private process: ((row: AsyncRequestRow) => Promise<Outcome>) | null = null;
  private readonly worker: QueueProcessor<string>;
  /** Projects whose creation lock was held elsewhere, until when they are left alone (one poll). */
  private readonly heldElsewhere = new Map<string, number>();

  private readonly db: Kysely<CreationQueueTables>;

  constructor(private readonly deps: QueueDeps) {
    this.db = (deps.db as Kysely<object>).withTables<CreationQueueTables>();
    this.retries = new Recovery('async account creation', deps.log, { action: 'tries the request again' });
    this.worker = new QueueProcessor(
      {
        description: 'the async account creation queue',
        action: 'looks for queued creations again',
        jobs: { description: "a project's async account creations", action: 'are looked at again at the next pass' },
        log: deps.log,
        maxInFlight: MAX_PROJECTS_AT_ONCE,
        maxInFlightPerKey: 1,
        idlePollMs: deps.idlePollMs ?? POLL_MS,
        maxIdlePollMs: deps.idlePollMs ?? MAX_IDLE_POLL_MS,
        cleanupEveryMs: CLEANUP_EVERY_MS,
        now: () => this.deps.clock().getTime(),
        ...(deps.queueWake ? { signal: { wake: deps.queueWake, queue: CREATIONS_QUEUE } } : {}),
      },
      {
        claim: (limit, busyProjects) => this.projectsWithWork(limit, busyProjects),
        keyOf: (projectId) => projectId,
        run: (projectId) => this.workProject(projectId),
        untilNextDue: () => Promise.resolve(deps.idlePollMs ?? MAX_IDLE_POLL_MS),
        cleanup: () => this.cleanup(),
      },
    );
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
    const row = await this.db.transaction().execute(async (trx) => {
      // The counter row stays locked until the commit: numbering order is commit order.
      const counter = await trx
        .insertInto('account_creation_sequences')
        .values({ project_id: request.projectId, last_seq: 1 })
        .onConflict((oc) => oc.column('project_id').doUpdateSet({ last_seq: sql`account_creation_sequences.last_seq + 1` }))
        .returning('last_seq')
        .executeTakeFirstOrThrow();
      return trx
        .insertInto('account_creation_requests')
        .values({
          request_id: request.requestId,
          project_id: request.projectId,
          seq: counter.last_seq,
          status: 'QUEUED',
          account_id: request.accountId,
          settings: JSON.stringify(request.settings),
          fail_if_exists: request.failIfExists,
          callback_url: request.callbackUrl,
          context: JSON.stringify(request.context),
          created: this.deps.clock(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    this.wake();
    return row;
  }

  private retainedSince(): Date {
    return new Date(this.deps.clock().getTime() - RETENTION_MS);
  }

  /** The project's requests not yet removed (completed less than RETENTION_MS ago, or not completed). */
  private retained(projectId: string) {
    const since = this.retainedSince();
    return this.db
      .selectFrom('account_creation_requests')
      .selectAll()
      .where('project_id', '=', projectId)
      .where((eb) => eb.or([eb('completed_at', 'is', null), eb('completed_at', '>', since)]));
  }

  /** The project's requests not yet removed, in the order they were accepted. */
  async list(projectId: string): Promise<AsyncRequestRow[]> {
    return this.retained(projectId).orderBy('seq').execute();
  }

  async find(projectId: string, requestId: string): Promise<AsyncRequestRow | undefined> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(requestId)) return undefined;
    return this.retained(projectId).where('request_id', '=', requestId).executeTakeFirst();
  }

  /** Looks for queued requests now, and tells the other instances to (after an enqueue commits). */
  wake(): void {
    this.worker.enqueued();
  }

  async start(process: (row: AsyncRequestRow) => Promise<Outcome>): Promise<void> {
    await AccountCreationQueue.migrate(this.deps.db);
    this.process = process;
    this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  /**
   * Projects with queued or unfinished requests that no worker of this instance has. The claim itself
   * is the project's creation lock, taken by the job: a project another instance works is tried again
   * at the next pass.
   */
  private async projectsWithWork(limit: number, busyProjects: readonly string[]): Promise<string[]> {
    const now = Date.now(); // wall time: a poll, whatever the service's clock says
    for (const [projectId, until] of this.heldElsewhere) if (until <= now) this.heldElsewhere.delete(projectId);
    const skip = [...busyProjects, ...this.heldElsewhere.keys()];
    let query = this.db.selectFrom('account_creation_requests').select('project_id').distinct().where('status', 'in', ['QUEUED', 'PROCESSING']);
    if (skip.length > 0) query = query.where('project_id', 'not in', skip);
    const rows = await query.limit(limit).execute();
    return rows.map((r) => r.project_id);
  }

  /** Holds the project's creation lock (if free) and works its requests in order. */
  private workProject(projectId: string): Promise<void> {
    return this.deps.db.connection().execute(async (conn) => {
      const lock = creationLock(projectId);
      const got = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(hashtext(${lock})) AS ok`.execute(conn);
      if (!got.rows[0]?.ok) {
        // Another instance, or a synchronous creation: try again at the next pass.
        this.heldElsewhere.set(projectId, Date.now() + POLL_MS);
        return;
      }
      try {
        while (!this.worker.isStopped) {
          const next = await this.db
            .selectFrom('account_creation_requests')
            .selectAll()
            .where('project_id', '=', projectId)
            .where('status', 'in', ['QUEUED', 'PROCESSING'])
            .orderBy('seq')
            .limit(1)
            .executeTakeFirst();
          if (!next) return;
          let row = next;
          if (row.status === 'QUEUED') {
            const startedAt = this.deps.clock();
            await this.db
              .updateTable('account_creation_requests')
              .set({ status: 'PROCESSING', started_at: startedAt })
              .where('request_id', '=', row.request_id)
              .execute();
            row = { ...row, status: 'PROCESSING', started_at: startedAt };
          }
          let outcome: Outcome;
          try {
            outcome = await this.process!(row);
          } catch (error) {
            // Not a refusal of the request (those are FAILED outcomes) but trouble of our own: retry until the spec's 300 s.
            const startedAt = new Date(row.started_at ?? row.created).getTime();
            if (this.deps.clock().getTime() - startedAt < MAX_DURATION_MS) {
              await this.retries.failed(error, () => this.worker.isStopped);
              continue;
            }
            outcome = { status: 'FAILED', error: { error: '[ACCOUNT_CREATION_FAILED]', message: 'the account could not be created in time; try again' } };
          }
          await this.complete(row, outcome);
          this.retries.succeeded();
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
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('account_creation_requests')
        .set({ status: outcome.status, error: outcome.status === 'FAILED' ? JSON.stringify(outcome.error) : null, completed_at: this.deps.clock() })
        .where('request_id', '=', row.request_id)
        .execute();
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
    await this.db.deleteFrom('account_creation_requests').where('completed_at', '<=', this.retainedSince()).execute();
  }
}
