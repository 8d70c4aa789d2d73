// The PostgreSQL adapter of the event store port (the embedded default).
// `$all` order is (transaction_id, global_position), read only below pg_snapshot_xmin: a sequence value
// is taken before commit, so a plain `position > checkpoint` would lose events of slow transactions.
import pg from 'pg';
import { v4 as uuidv4 } from 'uuid';
import { StreamNotFoundError, TransientAppendError, WrongExpectedVersionError } from '../errors.js';
import { type ConnectionFaults, createPool } from './pool.js';
import { AppendSignal, CHANNEL, PAGE, PostgresSubscription } from './subscription.js';
import {
  APPEND_GROUP_SQL,
  APPEND_MANY_SQL,
  APPEND_ONE_SQL,
  type AppendRow,
  appendGroupParams,
  appendManyParams,
  appendOneParams,
  checkEvents,
  toAppendResult,
} from './appendStatements.js';
import {
  type AppendExpectedRevision,
  type AppendResult,
  type DeleteExpectedRevision,
  type EventData,
  type EventMetadata,
  type EventStore,
  type Position,
  type ReadAllOptions,
  type RecordedEvent,
  type START,
  type StreamAppend,
  type ReadStreamOptions,
  type ResolvedEvent,
  type StreamMetadata,
  type SubscribeToAllOptions,
  type Subscription,
  type SubscriptionFilter,
} from '../port.js';

/** Appends of other processes wake our subscribers this much later at most; our own, at once. */
const NOTIFY_GATHER_MS = 2;
const APPEND_ATTEMPTS = 5;
/**
 * Group commit (appendToStream): how many transactions of appends may run at once (beyond them,
 * appends queue and go out together), and how many appends one of them takes at most. Issue 16: an
 * append that finds another in flight also waits for the rest of the event loop's turn
 * (groupCommitGather), so the appends of concurrent writers go out together from 2 writers on, not
 * only beyond the limit; a lone append still goes at once. With 8 writers a group then holds about 4
 * appends, and PostgreSQL spends half the CPU time per append (less than a plain INSERT's), so on a
 * machine whose cores are busy the rate follows (BENCHMARKS.md 1, 2).
 */
export const GROUP_COMMITS_IN_FLIGHT = 4;
const GROUP_COMMIT_MAX_ENTRIES = 200;

interface QueuedAppend {
  readonly append: StreamAppend;
  attempts: number;
  readonly resolve: (result: AppendResult) => void;
  readonly reject: (error: Error) => void;
}

interface EventRow {
  stream_name: string;
  revision: string;
  event_id: string;
  event_type: string;
  data: unknown;
  /** The metadata's JSON text: parsed only when an event's metadata is read (toResolved). */
  metadata: string | null;
  created: Date;
  transaction_id: string;
  global_position: string;
}

// ORDER BY names the table's columns: the text cast of transaction_id is an output column of the same
// name, and ordering by it would sort 1000 before 999. The metadata comes as its text (toResolved).
const COLUMNS = 'stream_name, revision, event_id, event_type, data, metadata::text AS metadata, created, transaction_id::text, global_position';
const VISIBLE = 'transaction_id < pg_snapshot_xmin(pg_current_snapshot())';

/**
 * An event as the port gives it. Its metadata is parsed from its JSON text when first read, once: most
 * readers never look at it (of the read models, only the audit logs do), and a rebuild reads every
 * event of the history.
 */
const toResolved = (row: EventRow): ResolvedEvent => {
  const text = row.metadata;
  let metadata: EventMetadata | undefined;
  return {
    event: {
      streamId: row.stream_name,
      id: row.event_id,
      revision: BigInt(row.revision),
      type: row.event_type,
      data: row.data,
      get metadata(): EventMetadata {
        return (metadata ??= text === null ? {} : (JSON.parse(text) as EventMetadata));
      },
      created: row.created,
      position: { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) },
    },
  };
};

/** COLUMNS, read as arrays (rowMode 'array'), not as an object per row: readAllPages. */
type EventTuple = [
  stream_name: string,
  revision: string,
  event_id: string,
  event_type: string,
  data: unknown,
  metadata: string | null,
  created: Date,
  transaction_id: string,
  global_position: string,
];

/** toResolved's event, of a row read as an array. */
const toRecorded = (row: EventTuple): RecordedEvent => {
  const text = row[5];
  let metadata: EventMetadata | undefined;
  return {
    streamId: row[0],
    id: row[2],
    revision: BigInt(row[1]),
    type: row[3],
    data: row[4],
    get metadata(): EventMetadata {
      return (metadata ??= text === null ? {} : (JSON.parse(text) as EventMetadata));
    },
    created: row[6],
    position: { commit: BigInt(row[7]), prepare: BigInt(row[8]) },
  };
};

const isPgError = (error: unknown, code: string): error is Error & { code: string; detail?: string } =>
  error instanceof Error && (error as { code?: unknown }).code === code;

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

/**
 * The conditions of `$all` strictly after `after` (and matching `filter`), with their values after the
 * page's LIMIT, $1: every reader of a page (pageSql) shares them.
 */
const sinceSql = (after: Position | null, limit: number, filter?: SubscriptionFilter): { since: string; values: unknown[] } => {
  const values: unknown[] = [limit];
  let since = '';
  if (after) {
    values.push(after.commit.toString(), after.prepare.toString());
    since = ' AND (transaction_id, global_position) > ($2::text::xid8, $3::bigint)';
  }
  return { since: since + filterSql(filter, values), values };
};

/** One page of `$all` under the conditions `since` (sinceSql), below the visibility horizon, in order. */
const pageSql = (since: string): string =>
  `SELECT ${COLUMNS} FROM es_events WHERE ${VISIBLE}${since} ORDER BY es_events.transaction_id, es_events.global_position LIMIT $1`;

export class PostgresEventStore implements EventStore {
  private readonly signal: AppendSignal;

  private constructor(
    readonly pool: pg.Pool,
    connectionString: string,
    faults?: ConnectionFaults,
  ) {
    this.signal = new AppendSignal(connectionString, faults, () => this.committedHead());
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

  /**
   * Group commit: concurrent appends share transactions. An append goes out at once when nothing else
   * is in flight; one that finds appends in flight waits for the current turn of the event loop to end
   * (setImmediate: the appends other writers make meanwhile join it) and goes out with them, or, while
   * GROUP_COMMITS_IN_FLIGHT transactions are running, when one of them finishes, with every append that
   * queued meanwhile: one es_append_group call (not atomic: each entry keeps its own expected-revision
   * check and idempotency, and a refused entry fails only its own caller). Each caller is answered after
   * the commit that holds its events, so an acknowledged append is as durable as before; what the
   * appends share is the commit's round trip, its statements and its flush.
   */
  appendToStream(
    streamName: string,
    events: EventData | readonly EventData[],
    options: { expectedRevision?: AppendExpectedRevision } = {},
  ): Promise<AppendResult> {
    const list: readonly EventData[] = Array.isArray(events) ? events : [events as EventData];
    try {
      checkEvents(streamName, list);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return new Promise<AppendResult>((resolve, reject) => {
      this.queued.push({ append: { streamName, events: list, expectedRevision: options.expectedRevision ?? 'any' }, attempts: 0, resolve, reject });
      if (this.inFlight === 0 || !this.groupCommitGather) this.sendQueued();
      else if (!this.gathering) {
        this.gathering = true;
        setImmediate(() => {
          this.gathering = false;
          this.sendQueued();
        });
      }
    });
  }

  /** Whether an append that finds others in flight waits for the rest of this turn of the event loop to gather more (see appendToStream). */
  groupCommitGather = true;
  private gathering = false;

  private readonly queued: QueuedAppend[] = [];
  private inFlight = 0;
  /** Append transactions running at once before appends queue and share one (scripts/bench/eventStore/groupCommit.ts varies it). */
  groupCommitsInFlight = GROUP_COMMITS_IN_FLIGHT;

  private sendQueued(): void {
    while (this.inFlight < this.groupCommitsInFlight && this.queued.length > 0) {
      const group = this.queued.splice(0, GROUP_COMMIT_MAX_ENTRIES);
      this.inFlight++;
      void this.commitGroup(group).finally(() => {
        this.inFlight--;
        this.sendQueued();
      });
    }
  }

  /** Settles every append of the group (never rejects); a transient refusal queues the append again. */
  private async commitGroup(group: QueuedAppend[]): Promise<void> {
    const retry = (queued: QueuedAppend, why: string): void => {
      if (++queued.attempts >= APPEND_ATTEMPTS) queued.reject(new TransientAppendError(`${queued.append.streamName}: ${why}`));
      else this.queued.push(queued);
    };
    let rows: AppendRow[];
    try {
      rows =
        group.length === 1
          ? (await this.pool.query<AppendRow>(APPEND_ONE_SQL, appendOneParams(group[0]!.append))).rows
          : (await this.pool.query<AppendRow>(APPEND_GROUP_SQL, appendGroupParams(group.map((q) => q.append)))).rows;
    } catch (error) {
      if (isPgError(error, '40P01')) {
        for (const queued of group) retry(queued, 'deadlock');
      } else if (group.length > 1) {
        // One bad entry (or a lost connection) must not fail the others: each goes again on its own.
        // Appends already committed are recognised by their event ids.
        await Promise.all(group.map((queued) => this.commitGroup([queued])));
      } else {
        group[0]!.reject(error as Error);
      }
      return;
    }
    let appended = false;
    group.forEach((queued, i) => {
      const row = rows[i]!;
      switch (row.result) {
        case 'ok':
          appended = true;
          queued.resolve(toAppendResult(row));
          return;
        case 'idempotent':
          queued.resolve(toAppendResult(row));
          return;
        case 'wrong_expected': {
          const current = BigInt(row.current_revision);
          queued.reject(new WrongExpectedVersionError(queued.append.streamName, queued.append.expectedRevision ?? 'any', current < 0n ? 'no_stream' : current));
          return;
        }
        case 'xid_inversion':
          retry(queued, 'writer order inverted');
          return;
        default:
          queued.reject(new Error(`unexpected append result ${row.result}`));
      }
    });
    if (appended) this.announce();
  }

  /**
   * One transaction (es_append_many, atomic): a refused entry raises inside the function, which rolls
   * back every entry of the call; a writer-order inversion or a deadlock retries the whole call.
   */
  async appendToStreams(appends: readonly StreamAppend[]): Promise<readonly AppendResult[]> {
    if (appends.length === 0) return [];
    for (const a of appends) checkEvents(a.streamName, a.events);
    const params = [true, ...appendManyParams(appends)];
    for (let attempt = 1; ; attempt++) {
      try {
        const { rows } = await this.pool.query<AppendRow>(APPEND_MANY_SQL, params);
        if (rows.some((row) => row.result === 'ok')) this.announce();
        return rows.map(toAppendResult);
      } catch (error) {
        if (isPgError(error, 'ES001')) {
          const [entry, revision] = (error.detail ?? '').split(':');
          const refused = appends[Number(entry) - 1]!;
          const current = BigInt(revision!);
          throw new WrongExpectedVersionError(refused.streamName, refused.expectedRevision ?? 'any', current < 0n ? 'no_stream' : current);
        }
        const transient = isPgError(error, 'ES002') || isPgError(error, '40P01');
        if (!transient) throw error;
        if (attempt >= APPEND_ATTEMPTS) throw new TransientAppendError(`appendToStreams: ${error.message}`);
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

  /**
   * `$all` in pages of `pageSize`, one ahead: the next page's query is sent as a page is handed over, so
   * PostgreSQL reads it while the caller works (at most two pages in memory beside what the caller
   * keeps). Each row comes as an array (no object per row and per column name).
   */
  async *readAllPages({
    fromPosition = 'start',
    pageSize,
  }: {
    readonly fromPosition?: typeof START | Position;
    readonly pageSize: number;
  }): AsyncIterable<readonly RecordedEvent[]> {
    const read = (after: Position | null): Promise<RecordedEvent[]> => {
      const { since, values } = sinceSql(after, pageSize);
      return this.pool.query<EventTuple>({ text: pageSql(since), values, rowMode: 'array' }).then(({ rows }) => rows.map(toRecorded));
    };
    // Inclusive start: read after the position just before it.
    let next = read(fromPosition === 'start' ? null : { commit: fromPosition.commit, prepare: fromPosition.prepare - 1n });
    for (;;) {
      const page = await next;
      const full = page.length === pageSize;
      if (full) {
        next = read(page[page.length - 1]!.position);
        // A caller that stops here never awaits it: its failure must not count as unhandled.
        next.catch(() => undefined);
      }
      if (page.length > 0) yield page;
      if (!full) return;
    }
  }

  /** One page of `$all` strictly after `after`, below the visibility horizon. */
  async readPageAfter(after: Position | null, limit: number, filter?: SubscriptionFilter): Promise<ResolvedEvent[]> {
    const { since, values } = sinceSql(after, limit, filter);
    const { rows } = await this.pool.query<EventRow>(pageSql(since), values);
    return rows.map(toResolved);
  }

  /**
   * A subscription's read (issue 16): readPageAfter's page, and in the same statement (one snapshot)
   * whether committed events wait below the visibility horizon after `after`. Those sort after every
   * visible event (their transaction ids are at or above the horizon), so when the page is not full
   * they are exactly the committed events after it that the reader has not got. A subscriber woken by
   * an append read its page, read an empty page and then asked hasCommittedAfter: three round trips
   * per subscriber and append, a third of a copy fan-out's statements; this is one. Events that commit
   * after the statement's snapshot wake the subscriber through the append signal instead.
   */
  async readPageLooking(after: Position | null, limit: number, filter?: SubscriptionFilter): Promise<{ events: ResolvedEvent[]; heldBack: boolean }> {
    const { since, values } = sinceSql(after, limit, filter);
    // One row even for an empty page (its columns null), ordered as the page: the lateral page is
    // joined to the single row of the flag.
    const { rows } = await this.pool.query<EventRow & { held_back: boolean }>(
      `SELECT p.*, h.held_back
         FROM (SELECT EXISTS (SELECT 1 FROM es_events WHERE NOT (${VISIBLE})${since}) AS held_back) h
         LEFT JOIN LATERAL (${pageSql(since)}) p ON TRUE
         ORDER BY p.transaction_id::xid8, p.global_position`,
      values,
    );
    const events: ResolvedEvent[] = [];
    for (const row of rows) if (row.stream_name !== null) events.push(toResolved(row));
    return { events, heldBack: rows[0]?.held_back === true };
  }

  async lastCommittedPosition(): Promise<Position | null> {
    const { rows } = await this.pool.query<{ transaction_id: string; global_position: string }>(
      `SELECT transaction_id::text, global_position FROM es_events
       ORDER BY es_events.transaction_id DESC, es_events.global_position DESC LIMIT 1`,
    );
    const row = rows[0];
    return row ? { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) } : null;
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

  /** A token of the head of `$all` among committed events, visible yet or not (the append signal's probe). */
  private async committedHead(): Promise<string> {
    const { rows } = await this.pool.query<{ head: string | null }>(
      `SELECT (SELECT transaction_id::text || '/' || global_position FROM es_events
         ORDER BY es_events.transaction_id DESC, es_events.global_position DESC LIMIT 1) AS head`,
    );
    return rows[0]?.head ?? '';
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
