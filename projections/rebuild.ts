// Blue-green rebuild of read models: build generation N+1 in its own schema beside N while N keeps
// serving, catch up under the registry lock, point the public views at N+1, drop N.
import { performance } from 'node:perf_hooks';
import { type Kysely, sql } from 'kysely';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '../store/port.js';
import { projectionCheckpoint, saveCheckpoints } from '../store/postgres/checkpoints.js';
import { generationSchema, type Projection, type RebuildFold } from './projection.js';
import type { ReadModels } from './schema.js';

const BATCH = 4000;

export interface RebuildProgress {
  readonly projection: string;
  readonly processed: number;
}

export interface RebuildResult {
  readonly projection: string;
  readonly generation: number;
  readonly events: number;
  readonly applied: number;
}

const lockKey = (name: string) => sql`pg_advisory_lock(hashtext(${`projection:${name}`}))`;
const unlockKey = (name: string) => sql`pg_advisory_unlock(hashtext(${`projection:${name}`}))`;

type BatchFold = (db: Kysely<ReadModels>, events: readonly RecordedEvent[]) => Promise<void>;

const handledTypes = new WeakMap<Projection, ReadonlySet<string>>();
/** The event types a projection handles, as a set (every event of the history is looked up in each). */
const handles = (projection: Projection): ReadonlySet<string> => {
  let types = handledTypes.get(projection);
  if (!types) handledTypes.set(projection, (types = new Set(projection.handles)));
  return types;
};

/**
 * Applies the events a projection handles, in order, inside `schema` (with `fold` instead of its
 * applyBatch: a rebuild's Projection.rebuildFold). Returns how many it applied.
 */
export const applyEvents = async (
  db: Kysely<ReadModels>,
  schema: string,
  projection: Projection,
  events: readonly RecordedEvent[],
  fold: BatchFold | undefined = projection.applyBatch,
): Promise<number> => {
  const types = handles(projection);
  return applyHandled(
    db,
    schema,
    projection,
    events.filter((e) => types.has(e.type)),
    fold,
  );
};

/** applyEvents of events the projection handles, every one of them. */
const applyHandled = async (
  db: Kysely<ReadModels>,
  schema: string,
  projection: Projection,
  handled: readonly RecordedEvent[],
  fold: BatchFold | undefined = projection.applyBatch,
): Promise<number> => {
  if (handled.length === 0) return 0;
  const scoped = db.withSchema(schema);
  if (fold) await fold(scoped, handled);
  else for (const event of handled) await projection.apply(scoped, event);
  return handled.length;
};

/**
 * Events a projection handles, in `count` groups by partition key (order kept within each): a key is
 * always in the group of the same index.
 */
const partitions = (projection: Projection, handled: readonly RecordedEvent[], count: number): RecordedEvent[][] => {
  const groups: RecordedEvent[][] = Array.from({ length: count }, () => []);
  for (const event of handled) {
    const key = projection.partitionOf!(event);
    let hash = 0;
    for (let i = 0; i < key.length; i++) hash = (Math.imul(hash, 31) + key.charCodeAt(i)) | 0;
    groups[Math.abs(hash) % count]!.push(event);
  }
  return groups;
};

/**
 * What applying `events` to `build` is expected to cost, from what its batches cost so far per event
 * it was given (before any, the events' count). Only the order of a batch's pieces depends on it.
 */
const expectedMs = (build: Build, events: readonly RecordedEvent[]): number => (build.given > 0 ? (build.ms / build.given) * events.length : events.length);

const pointViews = async (db: Kysely<ReadModels>, projection: Projection, schema: string): Promise<void> => {
  for (const table of projection.tables) {
    await sql`DROP VIEW IF EXISTS ${sql.id('public', table)}`.execute(db);
    await sql`CREATE VIEW ${sql.id('public', table)} AS SELECT * FROM ${sql.id(schema, table)}`.execute(db);
  }
};

export interface RebuildOptions {
  readonly onProgress?: (p: RebuildProgress) => void;
  /**
   * How many read models apply a batch at the same time, each in a transaction of its own on its own
   * connection: the pool needs this many connections plus one (the session holding the locks).
   */
  readonly lanes?: number;
  /**
   * From how many events of history the new generations are built UNLOGGED (default: one batch). Below
   * it, switching them to LOGGED afterwards costs more (a file and its sync per table and index) than
   * the WAL they spare.
   */
  readonly unloggedFrom?: number;
  /**
   * Take the read models' locks only if free: when another session (another rebuild, on this instance or
   * another) holds one, throw RebuildBusyError at once instead of waiting for it, having built nothing.
   */
  readonly tryLock?: boolean;
  /** Called once every lock is held, before anything is built. */
  readonly onLocked?: () => void;
  /** Called as the rebuild moves from the bulk of the history to finishing the tables, then to the tail and the switch. */
  readonly onPhase?: (phase: RebuildPhase) => void;
}

/** Where a rebuild is: the bulk of the history, the new generation made durable and indexed, the tail and the switch. */
export type RebuildPhase = 'HISTORY' | 'FINISHING' | 'SWITCHING';

/** RebuildOptions.tryLock: a read model is being rebuilt by another session. */
export class RebuildBusyError extends Error {
  constructor(readonly projection: string) {
    super(`read model ${projection} is being rebuilt already`);
  }
}

/** How much longer than the rest a read model took: the time its batches spent applying. */
export interface RebuildTiming extends RebuildResult {
  /**
   * Wall time during which at least one piece of the read model was applying. A partitioned read model
   * (Projection.partitionOf) applies its pieces side by side on several lanes: their times added up
   * would count the same seconds up to `lanes` times over.
   */
  readonly applySeconds: number;
  /** Its pieces' times added up (lane seconds): applySeconds, or more for a partitioned read model. */
  readonly laneSeconds: number;
}

const DEFAULT_LANES = 4;

/** One read model being built: its new generation's schema, and what applying it has cost. */
interface Build {
  readonly projection: Projection;
  readonly schema: string;
  readonly generation: number;
  readonly current: { readonly generation: number } | undefined;
  applied: number;
  /** Lane time spent applying it, its pieces' times added up (what the order of a batch's pieces goes by). */
  ms: number;
  /** Wall time during which at least one of its pieces was applying (RebuildTiming.applySeconds). */
  wallMs: number;
  /** Its pieces applying now, and since when one has been (for wallMs). */
  running: number;
  runningSince: number;
  /** Events given to its pieces of the bulk (for the order of a batch's pieces: expectedMs). */
  given: number;
  /** Its Projection.rebuildFold, one per partition (a single one without partitions), if it has one. */
  readonly folds: RebuildFold[] | undefined;
  /** Its tables are UNLOGGED until finishBuilds. */
  readonly unlogged: boolean;
}

/** Marks a piece of `build` as applying from now on; returns when it began. */
const pieceStarts = (build: Build): number => {
  const now = performance.now();
  if (build.running++ === 0) build.runningSince = now;
  return now;
};

/** Marks a piece of `build` that began at `began` as done: its lane time, and the wall time once no piece of it is left applying. */
const pieceEnds = (build: Build, began: number): void => {
  const now = performance.now();
  build.ms += now - began;
  if (--build.running === 0) build.wallMs += now - build.runningSince;
};

/** How far a rebuild has read `$all`, reported as it goes. */
class Reading {
  checkpoint: Position | null = null;
  processed = 0;

  constructor(
    private readonly label: string,
    private readonly onProgress: (p: RebuildProgress) => void,
  ) {}

  done(batch: readonly RecordedEvent[]): void {
    this.processed += batch.length;
    this.checkpoint = batch[batch.length - 1]!.position;
    this.onProgress({ projection: this.label, processed: this.processed });
  }
}

/** `$all` from the start: its first events, read already, and an iterator on the rest, a page at a time. */
interface BufferedHistory {
  readonly first: readonly RecordedEvent[];
  readonly rest: AsyncIterator<readonly RecordedEvent[]>;
}

/**
 * `$all` from the start in pages of BATCH events: the store's own pages where it has them
 * (EventStore.readAllPages: the next page is read while a batch is applied), else readAll's events
 * gathered into pages.
 */
async function* historyPages(store: EventStore): AsyncGenerator<readonly RecordedEvent[]> {
  if (store.readAllPages) {
    yield* store.readAllPages({ fromPosition: 'start', pageSize: BATCH });
    return;
  }
  let page: RecordedEvent[] = [];
  for await (const { event } of store.readAll({ fromPosition: 'start' })) {
    page.push(event);
    if (page.length >= BATCH) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}

/** Generation N+1 of each read model, an empty schema beside N (the registry says it is building). */
const prepareBuilds = async (conn: Kysely<ReadModels>, ordered: readonly Projection[], lanes: number, unlogged: boolean): Promise<Build[]> => {
  const builds: Build[] = [];
  for (const projection of ordered) {
    const current = await conn.selectFrom('projection_registry').selectAll().where('name', '=', projection.name).executeTakeFirst();
    const generation = (current ? Math.max(current.generation, current.building_generation ?? 0) : 0) + 1;
    const schema = generationSchema(projection.name, generation);
    // One transaction, whose commit need not wait for the disk: lost in a crash, it is lost whole.
    await conn.transaction().execute(async (trx) => {
      await sql`SET LOCAL synchronous_commit = off`.execute(trx);
      await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(trx);
      await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(trx);
      await projection.createTables(trx, schema);
      // Not written to the WAL while it is built (finishBuilds makes it durable before it serves).
      if (unlogged) for (const table of projection.tables) await sql`ALTER TABLE ${sql.id(schema, table)} SET UNLOGGED`.execute(trx);
      if (current) await trx.updateTable('projection_registry').set({ building_generation: generation }).where('name', '=', projection.name).execute();
    });
    const { rebuildFold } = projection;
    const folds = rebuildFold ? Array.from({ length: projection.partitionOf ? lanes : 1 }, () => rebuildFold()) : undefined;
    builds.push({ projection, schema, generation, current, applied: 0, ms: 0, wallMs: 0, running: 0, runningSince: 0, given: 0, folds, unlogged });
  }
  return builds;
};

/**
 * The bulk of the history: each batch applied to every read model, `lanes` at a time, each in its own
 * transaction. These generations serve nobody yet, so their commits need not wait for the disk: a
 * crash leaves a building generation the next rebuild starts again. A read model that names its
 * partitions (Projection.partitionOf) gives one piece of work per partition. A batch's pieces start
 * longest first, by what each read model's pieces cost so far per event.
 */
const applyHistory = async (db: Kysely<ReadModels>, history: BufferedHistory, builds: readonly Build[], lanes: number, reading: Reading): Promise<void> => {
  // Each event type's read models: a batch is split among them in one pass.
  const byType = new Map<string, Build[]>();
  for (const build of builds) {
    for (const type of handles(build.projection)) byType.set(type, [...(byType.get(type) ?? []), build]);
  }
  const applyBulk = async (batch: readonly RecordedEvent[]): Promise<void> => {
    const handled = new Map<Build, RecordedEvent[]>();
    for (const event of batch) {
      for (const build of byType.get(event.type) ?? []) {
        const events = handled.get(build);
        if (events) events.push(event);
        else handled.set(build, [event]);
      }
    }
    const work: { build: Build; events: readonly RecordedEvent[]; fold: BatchFold | undefined }[] = [];
    for (const build of builds.filter((b) => b.projection.partitionOf && handled.has(b))) {
      partitions(build.projection, handled.get(build)!, lanes).forEach((events, i) => {
        if (events.length > 0) work.push({ build, events, fold: build.folds?.[i]?.apply ?? build.projection.applyBatch });
      });
    }
    for (const build of builds.filter((b) => !b.projection.partitionOf && handled.has(b))) {
      work.push({ build, events: handled.get(build)!, fold: build.folds?.[0]?.apply ?? build.projection.applyBatch });
    }
    // Longest first: the lanes wait for the last piece of a batch, so a long piece that starts last
    // (a read model applied in one piece, after the parts of a partitioned one) leaves the others idle.
    const cost = new Map(work.map((piece) => [piece, expectedMs(piece.build, piece.events)]));
    work.sort((a, b) => cost.get(b)! - cost.get(a)!);
    const lane = async (): Promise<void> => {
      for (let piece = work.shift(); piece; piece = work.shift()) {
        const { build, events, fold } = piece;
        const began = pieceStarts(build);
        try {
          // Awaited before it is added: `build.applied += await ...` reads build.applied before the
          // await, so the partitions of one read model, applied side by side, lost each other's counts.
          const applied = await db.transaction().execute(async (trx) => {
            await sql`SET LOCAL synchronous_commit = off`.execute(trx);
            return applyHandled(trx, build.schema, build.projection, events, fold);
          });
          build.applied += applied;
        } finally {
          pieceEnds(build, began);
        }
        build.given += events.length;
      }
    };
    await Promise.all(Array.from({ length: lanes }, lane));
  };
  // The next batch is read while the previous one is applied.
  let applying: Promise<void> = Promise.resolve();
  const apply = async (batch: readonly RecordedEvent[]): Promise<void> => {
    await applying;
    applying = applyBulk(batch).then(() => reading.done(batch));
    // Handled when awaited with the next batch; until then a failure must not count as unhandled.
    applying.catch(() => undefined);
  };
  if (history.first.length > 0) await apply(history.first);
  for (let next = await history.rest.next(); !next.done; next = await history.rest.next()) await apply(next.value);
  await applying;
};

/**
 * After the bulk of the history, each new generation is made durable, gets what its folds still held
 * in memory (RebuildFold.finish) and the indexes it left for later (Projection.createIndexes), `lanes`
 * read models at a time. Its tables were UNLOGGED until now:
 * nothing they held went through the WAL, and a crash empties them, which costs nothing, as a crash
 * leaves a building generation that the next rebuild starts again. SET LOGGED writes each table once;
 * the indexes made after it are built in one pass each. The tail and the switch follow, durable.
 */
const finishBuilds = async (db: Kysely<ReadModels>, builds: readonly Build[], lanes: number): Promise<void> => {
  const work = [...builds];
  const lane = async (): Promise<void> => {
    for (let build = work.shift(); build; build = work.shift()) {
      const began = pieceStarts(build);
      const { projection, schema } = build;
      // The switch's commit, which waits for the disk, makes this durable too (the WAL is written in order).
      await db.transaction().execute(async (trx) => {
        await sql`SET LOCAL synchronous_commit = off`.execute(trx);
        if (build.unlogged) for (const table of projection.tables) await sql`ALTER TABLE ${sql.id(schema, table)} SET LOGGED`.execute(trx);
        // After SET LOGGED, which rewrites every table and index: what a fold writes last is little, but
        // a key it makes again (account logs) is built once, not twice.
        for (const fold of build.folds ?? []) await fold.finish(trx.withSchema(schema));
        await projection.createIndexes?.(trx, schema);
      });
      pieceEnds(build, began);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
};

/**
 * The tail, and the switch, in one transaction under the registry locks the live runner takes for
 * every batch: what was appended since the history was read is applied, then every view points at
 * the new generation and each read model's checkpoint is where the tail ended.
 */
const switchOver = async (conn: Kysely<ReadModels>, store: EventStore, builds: readonly Build[], reading: Reading): Promise<void> => {
  const names = builds.map((b) => b.projection.name);
  await conn.transaction().execute(async (trx) => {
    const locked = await trx.selectFrom('projection_registry').select('name').where('name', 'in', names).orderBy('name').forUpdate().execute();
    const tail: RecordedEvent[] = [];
    const apply = async (events: readonly RecordedEvent[]): Promise<void> => {
      for (const build of builds) {
        const began = pieceStarts(build);
        const applied = await applyEvents(trx, build.schema, build.projection, events);
        build.applied += applied;
        pieceEnds(build, began);
      }
      reading.done(events);
    };
    const after: Position | null = reading.checkpoint;
    for await (const { event } of store.readAll({ fromPosition: after ?? 'start' })) {
      if (after && comparePositions(event.position, after) <= 0) continue;
      tail.push(event);
      if (tail.length >= BATCH) await apply(tail.splice(0));
    }
    if (tail.length) await apply(tail);
    // Our tail reaches the visible head, so the live checkpoint is never ahead of it; should it be,
    // the live runner sees a checkpoint behind its cursor and resumes from ours (runner.ts).
    const final: Position | null = reading.checkpoint;
    for (const build of builds) {
      await pointViews(trx, build.projection, build.schema);
      const values = { version: build.projection.version, generation: build.generation, building_generation: null };
      await saveCheckpoints(trx, [projectionCheckpoint(build.projection.name)], final);
      if (locked.some((r) => r.name === build.projection.name)) {
        await trx.updateTable('projection_registry').set(values).where('name', '=', build.projection.name).execute();
      } else {
        await trx
          .insertInto('projection_registry')
          .values({ name: build.projection.name, ...values })
          .execute();
      }
    }
  });
};

/**
 * Rebuilds several read models blue-green in one pass over `$all`: the history is read once and each
 * batch is applied to every read model, up to `lanes` of them at once. Each gets generation N+1 beside
 * N, which keeps serving until the tail is caught up and every view switches, in one transaction under
 * the registry locks (the same rows, in the same order, the live runner locks for its batches).
 */
export const rebuildProjections = async (
  db: Kysely<ReadModels>,
  store: EventStore,
  projections: readonly Projection[],
  options: RebuildOptions = {},
): Promise<RebuildTiming[]> => {
  if (projections.length === 0) return [];
  const lanes = Math.max(1, Math.min(options.lanes ?? DEFAULT_LANES, projections.length));
  const ordered = [...projections].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const reading = new Reading(ordered.length === 1 ? ordered[0]!.name : `${ordered.length} read models`, options.onProgress ?? (() => undefined));
  // One session holds the advisory locks (in name order, so two rebuilds never wait on each other in a
  // cycle): two processes never build the same read model at once.
  return db.connection().execute(async (conn) => {
    const held: Projection[] = [];
    try {
      for (const projection of ordered) {
        if (options.tryLock) {
          const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(hashtext(${`projection:${projection.name}`})) AS locked`.execute(conn);
          if (!rows[0]?.locked) throw new RebuildBusyError(projection.name);
        } else await sql`SELECT ${lockKey(projection.name)}`.execute(conn);
        held.push(projection);
      }
      options.onLocked?.();
      options.onPhase?.('HISTORY');
      // A long enough history is built into UNLOGGED tables (RebuildOptions.unloggedFrom).
      const unloggedFrom = options.unloggedFrom ?? BATCH;
      const rest = historyPages(store);
      const first: RecordedEvent[] = [];
      while (first.length < unloggedFrom) {
        const next = await rest.next();
        if (next.done) break;
        for (const event of next.value) first.push(event);
      }
      const builds = await prepareBuilds(conn, ordered, lanes, first.length >= unloggedFrom);
      await applyHistory(db, { first, rest }, builds, lanes, reading);
      options.onPhase?.('FINISHING');
      await finishBuilds(db, builds, lanes);
      options.onPhase?.('SWITCHING');
      await switchOver(conn, store, builds, reading);
      for (const build of builds) {
        if (build.current) await sql`DROP SCHEMA IF EXISTS ${sql.id(generationSchema(build.projection.name, build.current.generation))} CASCADE`.execute(conn);
      }
      return builds.map((b) => ({
        projection: b.projection.name,
        generation: b.generation,
        events: reading.processed,
        applied: b.applied,
        applySeconds: b.wallMs / 1000,
        laneSeconds: b.ms / 1000,
      }));
    } finally {
      for (const projection of held.reverse()) await sql`SELECT ${unlockKey(projection.name)}`.execute(conn);
    }
  });
};

/** Rebuilds one read model blue-green (rebuildProjections of one). */
export const rebuildProjection = async (
  db: Kysely<ReadModels>,
  store: EventStore,
  projection: Projection,
  onProgress: (p: RebuildProgress) => void = () => undefined,
): Promise<RebuildResult> => {
  const [result] = await rebuildProjections(db, store, [projection], { onProgress, lanes: 1 });
  const { applySeconds: _, laneSeconds: __, ...rest } = result!;
  return rest;
};
