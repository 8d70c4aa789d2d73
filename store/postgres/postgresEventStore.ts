// The PostgreSQL adapter of the event store port (the embedded default).
// `$all` order is (transaction_id, global_position), read only below pg_snapshot_xmin: a sequence value
// is taken before commit, so a plain `position > checkpoint` would lose events of slow transactions.
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { v4 as uuidv4, validate as isUuid } from 'uuid';
import { StreamNotFoundError, TransientAppendError, WrongExpectedVersionError } from '../errors.js';
import { Backoff } from '../recovery.js';
import { type ConnectionFaults, createPool } from './pool.js';
import {
  type AppendExpectedRevision,
  type AppendResult,
  type DeleteExpectedRevision,
  type EventData,
  type EventStore,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  type ResolvedEvent,
  type StreamMetadata,
  type SubscribeToAllOptions,
  type Subscription,
  type SubscriptionFilter,
} from '../port.js';

const CHANNEL = 'es_events';
/** Appends of other processes wake our subscribers this much later at most; our own, at once. */
const NOTIFY_GATHER_MS = 2;
const PAGE = 500;
const POLL_MS = 500;
/**
 * While committed events wait below the snapshot horizon, readers look again every millisecond for
 * the first 16 ms (a read-model or venue transaction usually ends within that), then back off to 50.
 */
const HELD_BACK_FIRST_MS = 1;
const HELD_BACK_EAGER_TRIES = 16;
const HELD_BACK_MAX_MS = 50;
const APPEND_ATTEMPTS = 5;

interface EventRow {
  stream_name: string;
  revision: string;
  event_id: string;
  event_type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  created: Date;
  transaction_id: string;
  global_position: string;
}

// ORDER BY names the table's columns: the text cast of transaction_id is an output column of the same
// name, and ordering by it would sort 1000 before 999.
const COLUMNS = 'stream_name, revision, event_id, event_type, data, metadata, created, transaction_id::text, global_position';
const VISIBLE = 'transaction_id < pg_snapshot_xmin(pg_current_snapshot())';

const toResolved = (row: EventRow): ResolvedEvent => ({
  event: {
    streamId: row.stream_name,
    id: row.event_id,
    revision: BigInt(row.revision),
    type: row.event_type,
    data: row.data,
    metadata: row.metadata ?? {},
    created: row.created,
    position: { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) },
  },
});

const expectation = (expected: AppendExpectedRevision): [string, string | null] =>
  typeof expected === 'bigint' ? ['exact', expected.toString()] : [expected, null];

const filterSql = (filter: SubscriptionFilter | undefined, params: unknown[]): string => {
  const clauses: string[] = [];
  if (filter?.streamNamePrefixes?.length) {
    params.push(filter.streamNamePrefixes.map((p) => `${p}%`));
    clauses.push(`stream_name LIKE ANY ($${params.length}::text[])`);
  }
  if (filter?.eventTypePrefixes?.length) {
    params.push(filter.eventTypePrefixes.map((p) => `${p}%`));
    clauses.push(`event_type LIKE ANY ($${params.length}::text[])`);
  }
  return clauses.length ? ` AND ${clauses.join(' AND ')}` : '';
};

/** Wakes subscribers when an append commits (LISTEN/NOTIFY); subscribers also poll as a fallback. */
class AppendSignal {
  private client: pg.Client | null = null;
  private readonly waiters = new Set<() => void>();
  private closed = false;
  /** Counts wake-ups, so a reader can tell whether one came while it was reading. */
  generation = 0;

  constructor(
    private readonly connectionString: string,
    private readonly faults?: ConnectionFaults,
  ) {}

  /** Connects and listens; while the server cannot be reached it tries again with backoff (subscribers poll meanwhile). */
  async start(): Promise<void> {
    const backoff = new Backoff(250, 5000);
    while (!this.closed) {
      try {
        await this.listen();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, backoff.next()).unref());
      }
    }
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('notification', () => this.wakeAll());
    client.on('error', (error) => {
      this.faults?.observe(error);
      if (this.client !== client) return;
      this.client = null;
      client.end().catch(() => undefined);
      // Nothing was heard while it was away: wake every subscriber to look, then listen again.
      this.wakeAll();
      // Not awaited: start() retries until it listens or the store closes, and never rejects.
      if (!this.closed) void this.start();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
  }

  wakeAll(): void {
    this.generation += 1;
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves at the next append after generation `seen` (at once if one came already), or after `ms` at the latest. */
  wait(ms: number, seen: number = this.generation): Promise<void> {
    if (this.generation !== seen) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  async stop(): Promise<void> {
    this.closed = true;
    this.wakeAll();
    await this.client?.end().catch(() => undefined);
    this.client = null;
  }
}

class PostgresSubscription extends EventEmitter implements Subscription {
  private readonly queue: ResolvedEvent[] = [];
  private notify: (() => void) | null = null;
  private stopped = false;
  private failure: Error | null = null;
  private caughtUp = false;

  constructor(
    private readonly store: PostgresEventStore,
    private readonly signal: AppendSignal,
    private readonly options: SubscribeToAllOptions,
  ) {
    super();
    // Not awaited: run() catches every failure and hands it to the reader (and any 'error' listener).
    void this.run();
  }

  private async run(): Promise<void> {
    try {
      let after: Position | null =
        this.options.fromPosition === 'end'
          ? await this.store.headPosition()
          : this.options.fromPosition === 'start' || this.options.fromPosition === undefined
            ? null
            : this.options.fromPosition;
      let heldBackWait = HELD_BACK_FIRST_MS;
      let heldBackTries = 0;
      while (!this.stopped) {
        if (this.queue.length > 0) {
          await new Promise<void>((resolve) => (this.notify = resolve));
          continue;
        }
        const seen = this.signal.generation;
        const page = await this.store.readPageAfter(after, PAGE, this.options.filter);
        if (this.stopped) break;
        if (page.length > 0) {
          after = page[page.length - 1]!.event.position;
          this.queue.push(...page);
          this.wakeReader();
        }
        if (page.length < PAGE) {
          if (!this.caughtUp) {
            this.caughtUp = true;
            this.emit('caughtUp');
          }
          if (page.length === 0) {
            // Nothing visible after `after`. Committed events may still wait below the snapshot
            // horizon of an older, running transaction (event-store.md §2.2); they show up when it
            // ends, which sends no notification: while any exist, look again shortly. Otherwise
            // sleep until the next append; one that committed after this check notifies after
            // `seen` was taken, so the wait cannot miss it.
            if (await this.store.hasCommittedAfter(after, this.options.filter)) {
              await new Promise((r) => setTimeout(r, heldBackWait));
              heldBackTries += 1;
              if (heldBackTries >= HELD_BACK_EAGER_TRIES) heldBackWait = Math.min(heldBackWait * 2, HELD_BACK_MAX_MS);
            } else {
              heldBackWait = HELD_BACK_FIRST_MS;
              heldBackTries = 0;
              await this.signal.wait(POLL_MS, seen);
            }
          }
        } else if (this.caughtUp) {
          this.caughtUp = false;
          this.emit('fellBehind');
        }
      }
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
      if (this.listenerCount('error') > 0) this.emit('error', this.failure);
      this.wakeReader();
    }
  }

  private wakeReader(): void {
    const n = this.notify;
    this.notify = null;
    n?.();
  }

  async unsubscribe(): Promise<void> {
    this.stopped = true;
    this.wakeReader();
    this.signal.wakeAll();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ResolvedEvent> {
    try {
      while (true) {
        const next = this.queue.shift();
        if (next) {
          if (this.queue.length === 0) this.wakeReader();
          yield next;
          continue;
        }
        if (this.failure) throw this.failure;
        if (this.stopped) return;
        await new Promise<void>((resolve) => (this.notify = resolve));
      }
    } finally {
      // Leaving the loop (break, return, error) ends the subscription, as with EventStoreDB.
      await this.unsubscribe();
    }
  }
}

export class PostgresEventStore implements EventStore {
  private readonly signal: AppendSignal;

  private constructor(
    readonly pool: pg.Pool,
    connectionString: string,
    faults?: ConnectionFaults,
  ) {
    this.signal = new AppendSignal(connectionString, faults);
  }

  private announcing = false;
  private announceAgain = false;

  /**
   * Tells subscribers that an append committed: this process's at once, other processes by a NOTIFY
   * sent after the commit, at most one per NOTIFY_GATHER_MS (es_append no longer notifies inside its
   * transaction: PostgreSQL's notify lock, taken at commit, serialised concurrent appends and cost them
   * their shared disk flush). If a NOTIFY is lost (a crash right after a commit), other processes'
   * subscribers find the event at their next poll.
   */
  private announce(): void {
    this.signal.wakeAll();
    if (this.announcing) {
      this.announceAgain = true;
      return;
    }
    this.announcing = true;
    const send = (): void => {
      this.pool
        .query(`SELECT pg_notify('${CHANNEL}', '')`)
        .catch(() => undefined)
        .finally(() => {
          if (this.announceAgain) {
            this.announceAgain = false;
            setTimeout(send, NOTIFY_GATHER_MS).unref();
          } else {
            this.announcing = false;
          }
        });
    };
    setTimeout(send, NOTIFY_GATHER_MS).unref();
  }

  /**
   * The schema must exist (migrateEventStore). Without a pool of the caller's, the store makes one
   * (createPool: no client without an error listener); `faults` hears of every connection error.
   */
  static async connect(connectionString: string, pool?: pg.Pool, faults?: ConnectionFaults): Promise<PostgresEventStore> {
    const store = new PostgresEventStore(pool ?? createPool(connectionString, 10, faults), connectionString, faults);
    await store.signal.start();
    return store;
  }

  async appendToStream(
    streamName: string,
    events: EventData | readonly EventData[],
    options: { expectedRevision?: AppendExpectedRevision } = {},
  ): Promise<AppendResult> {
    const list: readonly EventData[] = Array.isArray(events) ? events : [events as EventData];
    const expected = options.expectedRevision ?? 'any';
    if (list.length === 0) throw new Error('appendToStream needs at least one event');
    for (const e of list) if (!isUuid(e.id)) throw new Error(`event id ${e.id} is not a UUID`);
    const [kind, revision] = expectation(expected);
    const params = [
      streamName,
      kind,
      revision,
      list.map((e) => e.id),
      list.map((e) => e.type),
      list.map((e) => JSON.stringify(e.data)),
      list.map((e) => JSON.stringify(e.metadata ?? {})),
    ];
    for (let attempt = 1; ; attempt++) {
      const { rows } = await this.pool.query<{
        result: string;
        current_revision: string;
        out_commit: string | null;
        out_prepare: string | null;
      }>('SELECT result, current_revision, out_commit::text, out_prepare FROM es_append($1, $2, $3, $4::uuid[], $5::text[], $6::jsonb[], $7::jsonb[])', params);
      const row = rows[0]!;
      const current = BigInt(row.current_revision);
      switch (row.result) {
        case 'ok':
          this.announce();
          return {
            success: true,
            nextExpectedRevision: current,
            position: { commit: BigInt(row.out_commit!), prepare: BigInt(row.out_prepare!) },
          };
        case 'idempotent':
          return {
            success: true,
            nextExpectedRevision: current,
            position: { commit: BigInt(row.out_commit!), prepare: BigInt(row.out_prepare!) },
          };
        case 'wrong_expected':
          throw new WrongExpectedVersionError(streamName, expected, current < 0n ? 'no_stream' : current);
        case 'xid_inversion':
          if (attempt >= APPEND_ATTEMPTS) throw new TransientAppendError(`${streamName}: writer order inverted`);
          continue;
        default:
          throw new Error(`unexpected append result ${row.result}`);
      }
    }
  }

  async *readStream(streamName: string, options: ReadStreamOptions = {}): AsyncIterable<ResolvedEvent> {
    const { rows: streams } = await this.pool.query<{ revision: string; truncate_before: string | null }>(
      'SELECT revision, truncate_before FROM es_streams WHERE stream_name = $1',
      [streamName],
    );
    const stream = streams[0];
    const floor = BigInt(stream?.truncate_before ?? 0);
    if (!stream || BigInt(stream.revision) < floor) throw new StreamNotFoundError(streamName);
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? 'end' : 'start');
    let cursor: bigint = from === 'start' ? floor : from === 'end' ? BigInt(stream.revision) : (from as bigint);
    let remaining = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    while (remaining > 0) {
      const limit = Math.min(PAGE, remaining);
      const { rows } = await this.pool.query<EventRow>(
        backwards
          ? `SELECT ${COLUMNS} FROM es_events WHERE stream_name = $1 AND revision <= $2 AND revision >= $3 ORDER BY revision DESC LIMIT $4`
          : `SELECT ${COLUMNS} FROM es_events WHERE stream_name = $1 AND revision >= $2 AND revision >= $3 ORDER BY revision LIMIT $4`,
        [streamName, cursor.toString(), floor.toString(), limit],
      );
      for (const row of rows) yield toResolved(row);
      remaining -= rows.length;
      if (rows.length < limit) return;
      cursor = BigInt(rows[rows.length - 1]!.revision) + (backwards ? -1n : 1n);
    }
  }

  async *readAll(options: ReadAllOptions = {}): AsyncIterable<ResolvedEvent> {
    const backwards = options.direction === 'backwards';
    let remaining = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const from = options.fromPosition ?? (backwards ? 'end' : 'start');
    if (!backwards) {
      if (from === 'end') return;
      // Inclusive start: read after the position just before it.
      let after: Position | null = from === 'start' ? null : { commit: from.commit, prepare: from.prepare - 1n };
      while (remaining > 0) {
        const page = await this.readPageAfter(after, Math.min(PAGE, remaining));
        for (const e of page) yield e;
        remaining -= page.length;
        if (page.length < PAGE) return;
        after = page[page.length - 1]!.event.position;
      }
      return;
    }
    if (from === 'start') return;
    let before: Position | null = from === 'end' ? null : { commit: from.commit, prepare: from.prepare + 1n };
    while (remaining > 0) {
      const params: unknown[] = [Math.min(PAGE, remaining)];
      let where = VISIBLE;
      if (before) {
        params.push(before.commit.toString(), before.prepare.toString());
        where += ' AND (transaction_id, global_position) < ($2::text::xid8, $3::bigint)';
      }
      const { rows } = await this.pool.query<EventRow>(
        `SELECT ${COLUMNS} FROM es_events WHERE ${where} ORDER BY es_events.transaction_id DESC, es_events.global_position DESC LIMIT $1`,
        params,
      );
      for (const row of rows) yield toResolved(row);
      remaining -= rows.length;
      if (rows.length < PAGE) return;
      before = toResolved(rows[rows.length - 1]!).event.position;
    }
  }

  /** One page of `$all` strictly after `after`, below the visibility horizon. */
  async readPageAfter(after: Position | null, limit: number, filter?: SubscriptionFilter): Promise<ResolvedEvent[]> {
    const params: unknown[] = [limit];
    let where = VISIBLE;
    if (after) {
      params.push(after.commit.toString(), after.prepare.toString());
      where += ' AND (transaction_id, global_position) > ($2::text::xid8, $3::bigint)';
    }
    where += filterSql(filter, params);
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${COLUMNS} FROM es_events WHERE ${where} ORDER BY es_events.transaction_id, es_events.global_position LIMIT $1`,
      params,
    );
    return rows.map(toResolved);
  }

  async lastCommittedPosition(): Promise<Position | null> {
    const { rows } = await this.pool.query<{ transaction_id: string; global_position: string }>(
      `SELECT transaction_id::text, global_position FROM es_events
       ORDER BY es_events.transaction_id DESC, es_events.global_position DESC LIMIT 1`,
    );
    const row = rows[0];
    return row ? { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) } : null;
  }

  /**
   * Whether events after `after` (matching `filter`) have committed, visible to readers yet or not.
   * MVCC shows every committed row; the snapshot horizon only decides what readers may take.
   */
  async hasCommittedAfter(after: Position | null, filter?: SubscriptionFilter): Promise<boolean> {
    const params: unknown[] = [];
    let where = 'TRUE';
    if (after) {
      params.push(after.commit.toString(), after.prepare.toString());
      where = '(transaction_id, global_position) > ($1::text::xid8, $2::bigint)';
    }
    where += filterSql(filter, params);
    const { rows } = await this.pool.query<{ unread: boolean }>(`SELECT EXISTS (SELECT 1 FROM es_events WHERE ${where}) AS unread`, params);
    return rows[0]?.unread === true;
  }

  subscribeToAll(options: SubscribeToAllOptions = {}): Subscription {
    return new PostgresSubscription(this, this.signal, options);
  }

  async headPosition(): Promise<Position | null> {
    const { rows } = await this.pool.query<{ transaction_id: string; global_position: string }>(
      `SELECT transaction_id::text, global_position FROM es_events WHERE ${VISIBLE}
       ORDER BY es_events.transaction_id DESC, es_events.global_position DESC LIMIT 1`,
    );
    const row = rows[0];
    return row ? { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) } : null;
  }

  async setStreamMetadata(streamName: string, metadata: StreamMetadata): Promise<void> {
    await this.pool.query(
      `INSERT INTO es_streams (stream_name, metadata) VALUES ($1, $2)
       ON CONFLICT (stream_name) DO UPDATE SET metadata = EXCLUDED.metadata`,
      [streamName, JSON.stringify(metadata)],
    );
  }

  async getStreamMetadata(streamName: string): Promise<{ streamName: string; metadata?: StreamMetadata }> {
    const { rows } = await this.pool.query<{ metadata: StreamMetadata | null }>('SELECT metadata FROM es_streams WHERE stream_name = $1', [streamName]);
    const metadata = rows[0]?.metadata;
    return metadata ? { streamName, metadata } : { streamName };
  }

  async deleteStream(streamName: string, options: { expectedRevision?: DeleteExpectedRevision } = {}): Promise<void> {
    const expected = options.expectedRevision ?? 'any';
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ revision: string; truncate_before: string | null }>(
        'SELECT revision, truncate_before FROM es_streams WHERE stream_name = $1 FOR UPDATE',
        [streamName],
      );
      const revision = BigInt(rows[0]?.revision ?? -1);
      const deleted = rows[0] !== undefined && revision < BigInt(rows[0].truncate_before ?? 0);
      const exists = revision >= 0n && !deleted;
      if ((expected === 'no_stream' && exists) || (typeof expected === 'bigint' && expected !== revision)) {
        throw new WrongExpectedVersionError(streamName, expected, revision < 0n ? 'no_stream' : revision);
      }
      if (exists) {
        await client.query('UPDATE es_streams SET truncate_before = revision + 1 WHERE stream_name = $1', [streamName]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async dispose(): Promise<void> {
    await this.signal.stop();
    await this.pool.end();
  }
}

export const newEventId = (): string => uuidv4();
