// The durable outbox of outgoing HTTP deliveries (async creation callbacks, webhooks). A message
// is a row in PostgreSQL, written in the same transaction as the outcome it reports, so neither a
// crash nor a restart loses it. Each message carries its own retry policy (attempts and the wait after
// each failed attempt); the schedule lives in the row (`next_attempt_at`, `attempts`), not in memory.
//
// Several instances may run the worker: a message is claimed with FOR UPDATE SKIP LOCKED and a lease
// (`locked_until`), then sent outside any transaction. Delivery is at least once: a crash after the
// receiver answered 2xx but before the row says DELIVERED sends it again once the lease runs out, so
// receivers must deduplicate (the callback's X-Request-Id, the webhook's X-Webhook-Id is the key).
//
// The worker is a QueueProcessor (store/queueProcessor.ts), the one durable-queue loop the async
// account creation queue shares; this file is its consumer: the table, the claim, the attempt.
//
// Per message, besides its retry policy: a timeout per attempt; a rate limit, as a minimum interval
// between attempt starts shared by every message with the same rate key (a webhook): an attempt whose
// turn has not come gets the next free slot reserved and waits for it, so nothing is dropped; at most
// MAX_IN_FLIGHT_PER_KEY attempts of one key at once per instance, so a hanging endpoint cannot hold
// every other one back; and for webhooks, the authentication of each attempt (the sealed secret,
// unsealed only for the attempt; the signature covers the attempt's own timestamp).
import { type ColumnType, type Kysely, sql } from 'kysely';
import type { RecoveryLog } from '../../store/recovery.js';
import { migrateReadModels } from '../../projections/migrations.js';
import { attemptHeaders, type AttemptAuthentication } from '../../domain/webhook/headers.js';
import { type AttemptResult, postJson } from './httpSender.js';
import type { Resolver } from './outboundUrl.js';
import { QueueProcessor, type QueueSignal } from '../../store/queueProcessor.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the outbox's tables are not read models
type AnyDb = Kysely<any>;

/** The kind of a webhook delivery: its attempts carry the X-Webhook-* headers and their authentication. */
export const WEBHOOK_DELIVERY_KIND = 'WEBHOOK';

/** How a webhook message authenticates: the type and the secret as the feature stores it (sealed). */
export interface SealedAuthentication {
  readonly type: 'HMAC_SHA256' | 'BEARER';
  readonly sealed: string;
}

/** What a webhook delivery may change while it is pending (the webhook's current setting). */
export interface DeliveryTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly auth: SealedAuthentication | null;
  readonly timeoutMs: number;
  readonly minIntervalMs: number;
}

export interface OutboxMessage {
  /** Unique: enqueuing the same id again is a no-op. */
  readonly id: string;
  readonly kind: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body sent. */
  readonly body: Readonly<Record<string, unknown>>;
  /** Secret members merged into the body at delivery, stored encrypted and wiped once the message is done. */
  readonly sealed?: string | null;
  readonly maxAttempts: number;
  /** The wait after failed attempt 1, 2, ...; the last one repeats. */
  readonly backoffMs: readonly number[];
  /** The deadline of each attempt; default the outbox's own (10 s). */
  readonly timeoutMs?: number;
  /** Attempts of all messages with this key start at least `minIntervalMs` apart. */
  readonly rateLimit?: { readonly key: string; readonly minIntervalMs: number } | null;
  /** Webhooks: how each attempt authenticates (see WEBHOOK_DELIVERY_KIND). */
  readonly auth?: SealedAuthentication | null;
  /** Webhooks: what the delivery reports, for GET .../deliveries. */
  readonly webhook?: { readonly featureId: string; readonly accountId: string | null; readonly eventType: string } | null;
}

type Json<T> = ColumnType<T, string, string>;
type Timestamp = ColumnType<Date, Date, Date>;
type Optional<T> = ColumnType<T, T | undefined, T>;

/** The outbox's tables (created by projections/migrations.ts). */
export type DeliveryOutboxTables = {
  delivery_outbox: {
    id: string;
    seq: ColumnType<string, never, never>;
    kind: string;
    url: string;
    headers: Json<Record<string, string>>;
    body: string;
    sealed: string | null;
    status: Optional<DeliveryStatus>;
    attempts: Optional<number>;
    max_attempts: number;
    backoff_ms: number[];
    next_attempt_at: Timestamp;
    locked_until: Optional<Date | null>;
    last_status: Optional<number | null>;
    last_error: Optional<string | null>;
    created: ColumnType<Date, never, never>;
    finished_at: Optional<Date | null>;
    timeout_ms: number | null;
    rate_key: string | null;
    min_interval_ms: number | null;
    slot_reserved: Optional<boolean>;
    auth: ColumnType<SealedAuthentication | null, string | null, string | null>;
    feature_id: string | null;
    account_id: string | null;
    event_type: string | null;
    last_attempt_at: Optional<Date | null>;
  };
  delivery_rate_slots: { rate_key: string; next_slot: Timestamp };
};

/** Any database with the outbox's tables (the read-model database), typed as the outbox needs it. */
const outboxDb = (db: AnyDb): Kysely<DeliveryOutboxTables> => db as Kysely<DeliveryOutboxTables>;

interface OutboxRow {
  id: string;
  kind: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  sealed: string | null;
  attempts: number;
  max_attempts: number;
  backoff_ms: number[];
  timeout_ms: number | null;
  rate_key: string | null;
  min_interval_ms: number | null;
  slot_reserved: boolean;
  auth: SealedAuthentication | null;
}

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED' | 'CANCELLED';

/** A webhook delivery as GET .../deliveries shows it. */
export interface WebhookDeliveryRow {
  readonly id: string;
  readonly event_type: string;
  /** null: a notification of a project-level channel (app/notifications.ts). */
  readonly account_id: string | null;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly max_attempts: number;
  readonly next_attempt_at: Date;
  readonly last_attempt_at: Date | null;
  readonly last_status: number | null;
  readonly last_error: string | null;
  readonly created: Date;
  readonly finished_at: Date | null;
}

export interface OutboxDeps {
  readonly db: AnyDb;
  readonly log: RecoveryLog;
  readonly allowPrivateOutbound: boolean;
  /** Decrypts `sealed` (the credential cipher). */
  readonly unseal: (ciphertext: string) => string;
  readonly timeoutMs?: number;
  readonly resolve?: Resolver;
  /** Wall-clock milliseconds; retries are real waits. */
  readonly now?: () => number;
  /**
   * Messages of other kinds than HTTP posts, by kind (the notification channels' EMAIL and CHAT,
   * engine/notifications/): sent by these with the same durability, retries and rate limits.
   */
  readonly senders?: Readonly<Record<string, OutboxSender>>;
  /** Tells the other instances of a new message and hears of theirs (store/postgres/queueWake.ts). */
  readonly queueWake?: QueueSignal;
  /** The idle pause, fixed (specs: a wake is then the only way to look before it ends); default 1 s backing off to 5 s. */
  readonly idlePollMs?: number;
}

/** Sends one attempt of a message that is not an HTTP post: `url` names the recipient (mailto:, chat:). */
export type OutboxSender = (message: { readonly url: string; readonly body: string; readonly timeoutMs: number }) => Promise<AttemptResult>;

/** The outbox's name in the other instances' wakes. */
const OUTBOX_QUEUE = 'outbox';
/** How long a claimed message is left to its worker, beyond the attempt's own timeout. */
const LEASE_MS = 30_000;
const MAX_IN_FLIGHT = 32;
/** Attempts to one rate key (one webhook) at once, per instance: a hanging endpoint cannot take every slot. */
const MAX_IN_FLIGHT_PER_KEY = 4;
const IDLE_POLL_MS = 1000;
/** An idle outbox looks at most this long apart (another instance's message is attempted within it). */
export const MAX_IDLE_POLL_MS = 5000;
const KEEP_FINISHED_MS = 7 * 24 * 3600_000;
const CLEANUP_EVERY_MS = 3600_000;

export class Outbox {
  private readonly worker: QueueProcessor<OutboxRow>;

  constructor(private readonly deps: OutboxDeps) {
    this.worker = new QueueProcessor(
      {
        description: 'the delivery outbox',
        action: 'looks for due deliveries again',
        jobs: { description: 'a delivery', action: 'stays due and is tried again' },
        log: deps.log,
        maxInFlight: MAX_IN_FLIGHT,
        maxInFlightPerKey: MAX_IN_FLIGHT_PER_KEY,
        idlePollMs: deps.idlePollMs ?? IDLE_POLL_MS,
        maxIdlePollMs: deps.idlePollMs ?? MAX_IDLE_POLL_MS,
        cleanupEveryMs: CLEANUP_EVERY_MS,
        now: () => this.now(),
        ...(deps.queueWake ? { signal: { wake: deps.queueWake, queue: OUTBOX_QUEUE } } : {}),
      },
      {
        claim: (limit, busyKeys) => this.claim(limit, busyKeys),
        keyOf: (row) => row.rate_key,
        admit: (row) => this.admit(row),
        release: (row) => this.release(row),
        run: (row) => this.deliver(row),
        untilNextDue: (busyKeys) => this.untilNextDue(busyKeys),
        cleanup: () => this.cleanup(),
      },
    );
  }

  /** The outbox's tables are the read-model database's (projections/migrations.ts). */
  static migrate(db: AnyDb): Promise<void> {
    return migrateReadModels(db);
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Adds a message; pass the transaction that records the outcome it reports. */
  async enqueue(db: AnyDb, message: OutboxMessage): Promise<void> {
    await outboxDb(db)
      .insertInto('delivery_outbox')
      .values({
        id: message.id,
        kind: message.kind,
        url: message.url,
        headers: JSON.stringify(message.headers),
        body: JSON.stringify(message.body),
        sealed: message.sealed ?? null,
        max_attempts: message.maxAttempts,
        backoff_ms: message.backoffMs.map((n) => Math.round(n)),
        next_attempt_at: new Date(this.now()),
        timeout_ms: message.timeoutMs ?? null,
        rate_key: message.rateLimit?.key ?? null,
        min_interval_ms: message.rateLimit?.minIntervalMs ?? null,
        auth: message.auth ? JSON.stringify(message.auth) : null,
        feature_id: message.webhook?.featureId ?? null,
        account_id: message.webhook?.accountId ?? null,
        event_type: message.webhook?.eventType ?? null,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  /**
   * The webhook's pending deliveries follow its new setting (URL, headers, authentication, timeout,
   * rate); their payloads and retry schedules stay as queued. Pass the transaction of the change.
   */
  static async retarget(
    db: AnyDb,
    featureId: string,
    target: DeliveryTarget,
    headersOf: (fixed: Record<string, string>) => Record<string, string>,
  ): Promise<void> {
    const outbox = outboxDb(db);
    const pending = await outbox
      .selectFrom('delivery_outbox')
      .select(['id', 'headers'])
      .where('feature_id', '=', featureId)
      .where('status', '=', 'PENDING')
      .forUpdate()
      .execute();
    for (const row of pending) {
      await outbox
        .updateTable('delivery_outbox')
        .set({
          url: target.url,
          headers: JSON.stringify(headersOf(row.headers)),
          auth: target.auth ? JSON.stringify(target.auth) : null,
          timeout_ms: target.timeoutMs,
          min_interval_ms: target.minIntervalMs,
        })
        .where('id', '=', row.id)
        .execute();
    }
  }

  /** A removed webhook's pending deliveries end as CANCELLED. Pass the transaction of the removal. */
  static async cancel(db: AnyDb, featureId: string, reason: string, at: Date): Promise<void> {
    await outboxDb(db)
      .updateTable('delivery_outbox')
      .set({ status: 'CANCELLED', auth: null, last_error: reason, finished_at: at, locked_until: null })
      .where('feature_id', '=', featureId)
      .where('status', '=', 'PENDING')
      .execute();
  }

  /** A webhook's deliveries, newest first (finished ones are kept 7 days). */
  static deliveries(db: AnyDb, featureId: string, options: { limit: number; status?: DeliveryStatus; accountId?: string }): Promise<WebhookDeliveryRow[]> {
    let q = outboxDb(db)
      .selectFrom('delivery_outbox')
      .select([
        'id',
        'event_type',
        'account_id',
        'status',
        'attempts',
        'max_attempts',
        'next_attempt_at',
        'last_attempt_at',
        'last_status',
        'last_error',
        'created',
        'finished_at',
      ])
      .where('feature_id', '=', featureId);
    if (options.status) q = q.where('status', '=', options.status);
    if (options.accountId) q = q.where('account_id', '=', options.accountId);
    return q.orderBy('created', 'desc').orderBy('seq', 'desc').limit(options.limit).execute() as Promise<WebhookDeliveryRow[]>;
  }

  /** Looks for due messages now, and tells the other instances to (after an enqueue in this process commits). */
  wake(): void {
    this.worker.enqueued();
  }

  async start(): Promise<void> {
    await Outbox.migrate(this.deps.db);
    this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  /** A condition on delivery_outbox rows: not of a busy key (their end wakes the loop). */
  private notBusy(busyKeys: readonly string[]) {
    return busyKeys.length === 0 ? sql<boolean>`true` : sql<boolean>`(rate_key IS NULL OR NOT (rate_key = ANY(${busyKeys}::text[])))`;
  }

  /**
   * Back to the queue, due as it was, for when its key has room; a reserved slot is given up, as it
   * has passed by then: the rate limit admits the message again.
   */
  private async release(row: OutboxRow): Promise<void> {
    await outboxDb(this.deps.db).updateTable('delivery_outbox').set({ locked_until: null, slot_reserved: false }).where('id', '=', row.id).execute();
  }

  private async claim(limit: number, busyKeys: readonly string[]): Promise<OutboxRow[]> {
    const now = new Date(this.now());
    const result =
      await sql<OutboxRow>`UPDATE delivery_outbox SET locked_until = ${now}::timestamptz + (${LEASE_MS} + coalesce(timeout_ms, 0)) * interval '1 millisecond'
      WHERE id IN (SELECT id FROM delivery_outbox WHERE status = 'PENDING' AND next_attempt_at <= ${now}
        AND (locked_until IS NULL OR locked_until < ${now}) AND ${this.notBusy(busyKeys)}
        ORDER BY next_attempt_at, seq LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING id, kind, url, headers, body, sealed, attempts, max_attempts, backoff_ms, timeout_ms, rate_key, min_interval_ms, slot_reserved, auth,
        next_attempt_at, seq`.execute(this.deps.db);
    // RETURNING gives no order: take them as the queue had them.
    return (result.rows as (OutboxRow & { next_attempt_at: Date; seq: string })[]).sort(
      (a, b) => a.next_attempt_at.getTime() - b.next_attempt_at.getTime() || Number(BigInt(a.seq) - BigInt(b.seq)),
    );
  }

  /**
   * The rate limit: an attempt may start when its key's next slot has come; otherwise it reserves the
   * next free slot and waits for it (the row goes back to the queue, due then, its turn kept).
   */
  private async admit(row: OutboxRow): Promise<boolean> {
    if (!row.rate_key || !row.min_interval_ms || row.slot_reserved) return true;
    const key = row.rate_key;
    const interval = row.min_interval_ms;
    const now = new Date(this.now());
    return this.deps.db.transaction().execute(async (trx) => {
      await sql`INSERT INTO delivery_rate_slots (rate_key, next_slot) VALUES (${key}, ${now}) ON CONFLICT (rate_key) DO NOTHING`.execute(trx);
      const slot = await sql<{ next_slot: Date }>`SELECT next_slot FROM delivery_rate_slots WHERE rate_key = ${key} FOR UPDATE`.execute(trx);
      const start = Math.max(new Date(slot.rows[0]!.next_slot).getTime(), now.getTime());
      await sql`UPDATE delivery_rate_slots SET next_slot = ${new Date(start + interval)} WHERE rate_key = ${key}`.execute(trx);
      if (start <= now.getTime()) return true;
      await sql`UPDATE delivery_outbox SET next_attempt_at = ${new Date(start)}, slot_reserved = true, locked_until = NULL
        WHERE id = ${row.id}`.execute(trx);
      return false;
    });
  }

  /** Milliseconds until the next message falls due (at most the longest idle poll, for other instances' work). */
  private async untilNextDue(busyKeys: readonly string[]): Promise<number> {
    const result = await sql<{ next: Date | null }>`SELECT min(greatest(next_attempt_at, coalesce(locked_until, next_attempt_at))) AS next
      FROM delivery_outbox WHERE status = 'PENDING' AND ${this.notBusy(busyKeys)}`.execute(this.deps.db);
    const next = result.rows[0]?.next;
    const longest = this.deps.idlePollMs ?? MAX_IDLE_POLL_MS;
    if (!next) return longest;
    return Math.max(0, Math.min(longest, new Date(next).getTime() - this.now()));
  }

  private bodyOf(row: OutboxRow): string {
    if (!row.sealed) return row.body;
    const secret = JSON.parse(this.deps.unseal(row.sealed)) as Record<string, unknown>;
    return JSON.stringify({ ...(JSON.parse(row.body) as Record<string, unknown>), ...secret });
  }

  /** The headers of this attempt: a webhook's carry its time, number and authentication. */
  private headersOf(row: OutboxRow, attempt: number, body: string, startedAt: number): Readonly<Record<string, string>> {
    if (row.kind !== WEBHOOK_DELIVERY_KIND) return row.headers;
    const auth = row.auth;
    let authentication: AttemptAuthentication = null;
    if (auth?.type === 'HMAC_SHA256') authentication = { type: 'HMAC_SHA256', secret: this.deps.unseal(auth.sealed) };
    if (auth?.type === 'BEARER') authentication = { type: 'BEARER', token: this.deps.unseal(auth.sealed) };
    return attemptHeaders(row.headers, { unixSeconds: Math.floor(startedAt / 1000), number: attempt, body, authentication });
  }

  private async deliver(row: OutboxRow): Promise<void> {
    const attempt = row.attempts + 1;
    const startedAt = new Date(this.now());
    let result: AttemptResult;
    try {
      const body = this.bodyOf(row);
      const sender = this.deps.senders?.[row.kind];
      const timeoutMs = row.timeout_ms ?? this.deps.timeoutMs ?? 10_000;
      if (sender) result = await sender({ url: row.url, body, timeoutMs });
      else
        result = await postJson(row.url, body, this.headersOf(row, attempt, body, startedAt.getTime()), {
          allowPrivate: this.deps.allowPrivateOutbound,
          timeoutMs,
          ...(this.deps.resolve ? { resolve: this.deps.resolve } : {}),
        });
    } catch (error) {
      result = { ok: false, status: null, error: error instanceof Error ? error.message : String(error) };
    }
    const now = new Date(this.now());
    try {
      if (result.ok || attempt >= row.max_attempts) {
        // A delivery cancelled meanwhile stays CANCELLED unless this attempt got through.
        await sql`UPDATE delivery_outbox SET status = ${result.ok ? 'DELIVERED' : 'FAILED'}, attempts = ${attempt}, sealed = NULL, auth = NULL,
          locked_until = NULL, slot_reserved = false, last_status = ${result.status}, last_error = ${result.error}, finished_at = ${now},
          last_attempt_at = ${startedAt}
          WHERE id = ${row.id} AND (status = 'PENDING' OR ${result.ok})`.execute(this.deps.db);
        if (!result.ok) this.deps.log.warn(`${row.kind} ${row.id} to ${row.url} failed ${attempt} times; last: ${result.error}`);
        return;
      }
      const waits = row.backoff_ms.length > 0 ? row.backoff_ms : [0];
      const wait = waits[Math.min(attempt, waits.length) - 1]!;
      await sql`UPDATE delivery_outbox SET attempts = ${attempt}, locked_until = NULL, slot_reserved = false, last_status = ${result.status},
        last_error = ${result.error}, last_attempt_at = ${startedAt}, next_attempt_at = ${new Date(now.getTime() + wait)}
        WHERE id = ${row.id} AND status = 'PENDING'`.execute(this.deps.db);
    } catch (error) {
      // The lease runs out and the message is sent again: at least once.
      this.deps.log.error(`recording delivery attempt ${attempt} of ${row.id} failed`, error);
    }
  }

  private async cleanup(): Promise<void> {
    await outboxDb(this.deps.db)
      .deleteFrom('delivery_outbox')
      .where('status', '<>', 'PENDING')
      .where('finished_at', '<', new Date(this.now() - KEEP_FINISHED_MS))
      .execute();
  }
}
