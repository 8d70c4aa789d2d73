// The projection runner: one StreamProcessor (store/processor.ts) on `$all`, leased as the partition
// "projections", feeds every read model. Each batch goes to each read model that handles one of its
// events in a transaction of its own (up to LANES at once), together with that read model's checkpoint
// (`projection:<name>`, store/postgres/checkpoints.ts) and under a row lock on its registry row: exactly
// once, and a blue-green rebuild (rebuild.ts) taking the same locks never sees half a batch.
//
// Read models move on independently: a request waits only for the read models it reads (`waitFor`'s
// names), so a copier write answers once `copiers` has it, whatever the audit log is doing. A read
// model with nothing to do in a batch moves on in memory at once, and its checkpoint with one statement
// for all of them (moveIdle), so a restart does not read far back for it and a standby instance sees it.
//
// On an instance that does not hold the lease, `waitFor` reads the checkpoints the holder writes.
import { EventEmitter } from 'node:events';
import { type Kysely, sql } from 'kysely';
import { comparePositions, type EventStore, type Position, positionToString, type RecordedEvent } from '../store/port.js';
import { loadCheckpoint, loadCheckpoints, projectionCheckpoint, saveCheckpoints } from '../store/postgres/checkpoints.js';
import type { Leases } from '../store/postgres/leases.js';
import { StreamProcessor } from '../store/processor.js';
import type { RecoveryLog } from '../store/recovery.js';
import { generationSchema, type Projection } from './projection.js';
import { applyEvents, rebuildProjections } from './rebuild.js';
import type { ReadModels } from './schema.js';

const MAX_BATCH = 500;
/** The runner's lease (one instance applies the read models at a time). */
export const PROJECTIONS_LEASE = 'projections';
/** Read models applying one batch at once, each on a connection of the pool. */
const LANES = 4;
/** How often an instance without the lease looks at the holder's checkpoints while someone waits. */
const STANDBY_POLL_MS = 20;

/** A rebuild moved a checkpoint behind what this runner applied: read again from the checkpoints. */
class Restart extends Error {}

const earlier = (a: Position | null, b: Position | null): boolean => (a === null ? b !== null : b !== null && comparePositions(a, b) < 0);
const same = (a: Position | null, b: Position | null): boolean => (a === null ? b === null : b !== null && comparePositions(a, b) === 0);

export type RunnerLog = RecoveryLog;

/** Runs `work` over `items`, `lanes` at a time. */
const inLanes = async <T>(items: readonly T[], lanes: number, work: (item: T) => Promise<void>): Promise<void> => {
  const queue = [...items];
  const lane = async (): Promise<void> => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, queue.length) }, lane));
};

export class ProjectionRunner extends EventEmitter {
  /** How far each read model is, in memory (what `waitFor` reads on the lease holder). */
  private readonly cursors = new Map<string, Position | null>();
  /** Each read model's checkpoint as this runner last read or wrote it. */
  private readonly saved = new Map<string, Position | null>();
  private readonly processor: StreamProcessor;
  /** Per read model, how many batches this runner applied to it this term (see `version`). */
  private readonly changes = new Map<string, number>();
  /** Counts the checkpoint loads (a term's start, a restart): versions of different terms differ. */
  private term = 0;

  constructor(
    private readonly db: Kysely<ReadModels>,
    private readonly store: EventStore,
    private readonly projections: readonly Projection[],
    private readonly log: RunnerLog,
    leases: Leases | null = null,
  ) {
    super();
    this.setMaxListeners(0);
    this.processor = new StreamProcessor({
      name: PROJECTIONS_LEASE,
      description: 'the projection runner',
      store,
      leases,
      maxBatch: MAX_BATCH,
      log,
      consumer: {
        resume: () => this.loadCursors(),
        reload: () => this.loadCursors(),
        apply: (batch) => this.applyBatch(batch),
        // A rebuild switched generations or a registry row is missing: resume lower, at once.
        restarts: (error) => error instanceof Restart,
      },
    });
  }

  /** The names of the read models this runner feeds. */
  get names(): readonly string[] {
    return this.projections.map((p) => p.name);
  }

  /** Builds missing or outdated read models (blue-green), then follows `$all` while leased. */
  async start(): Promise<void> {
    const rows = await this.registry();
    const outdated = this.projections.filter((p) => rows.get(p.name)?.version !== p.version);
    if (outdated.length > 0) {
      this.log.info(`read models ${outdated.map((p) => `${p.name} v${p.version}`).join(', ')}: building`);
      for (const result of await rebuildProjections(this.db, this.store, outdated)) {
        this.log.info(`read model ${result.projection}: ${result.events} events, generation ${result.generation}`);
      }
    }
    await this.loadCursors();
    await this.processor.start();
  }

  async stop(): Promise<void> {
    await this.processor.stop();
  }

  /**
   * Resolves true once the read models named (all when none are) include `position`, false after
   * `timeoutMs`.
   */
  waitFor(position: Position, timeoutMs: number, readModels?: readonly string[]): Promise<boolean> {
    const names = readModels ?? this.names;
    const reached = () => names.every((name) => !earlier(this.cursors.get(name) ?? null, position));
    if (reached()) return Promise.resolve(true);
    return new Promise((resolve) => {
      let poll: NodeJS.Timeout | null = null;
      const check = (): void => {
        if (reached()) done(true);
      };
      const done = (value: boolean): void => {
        clearTimeout(timer);
        if (poll) clearInterval(poll);
        this.off('advanced', check);
        resolve(value);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      this.on('advanced', check);
      // Another instance holds the lease: its checkpoints say how far the read models are.
      if (!this.processor.active) poll = setInterval(() => void this.pollCheckpoints(names).then(check, () => undefined), STANDBY_POLL_MS);
    });
  }

  /**
   * A mark that moves whenever the read model `name` may have changed, as far as this instance can
   * tell; null before this runner first loaded its checkpoints (not started yet) and while another
   * instance applies the read models (their changes are not seen here). Taken
   * before a read and found the same afterwards, it says the read model did not change in between:
   * it moves when a transaction that applied events commits, before the waiters of `waitFor` hear of
   * it, so whoever learnt of a change from this runner finds the mark moved (kept reads, engine/copy).
   */
  version(name: string): string | null {
    return this.term > 0 && this.processor.active ? `${this.term}:${this.changes.get(name) ?? 0}` : null;
  }

  private async pollCheckpoints(names: readonly string[]): Promise<void> {
    if (this.processor.active) return;
    const saved = await loadCheckpoints(this.db, names.map(projectionCheckpoint));
    for (const name of names) {
      const position = saved.get(projectionCheckpoint(name)) ?? null;
      if (earlier(this.cursors.get(name) ?? null, position)) this.cursors.set(name, position);
    }
  }

  private async registry() {
    const rows = await this.db.selectFrom('projection_registry').selectAll().execute();
    return new Map(rows.map((r) => [r.name, r]));
  }

  /** Reads every checkpoint again; reading starts after the lowest. */
  private async loadCursors(): Promise<Position | null> {
    this.term += 1;
    const saved = await loadCheckpoints(this.db, this.names.map(projectionCheckpoint));
    let lowest: Position | null | undefined;
    for (const name of this.names) {
      const position = saved.get(projectionCheckpoint(name)) ?? null;
      this.cursors.set(name, position);
      this.saved.set(name, position);
      if (lowest === undefined || earlier(position, lowest)) lowest = position;
    }
    return lowest ?? null;
  }

  private async applyBatch(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1]!.position;
    const busy = this.projections.filter((p) => batch.some((e) => p.handles.includes(e.type) && earlier(this.cursors.get(p.name) ?? null, e.position)));
    const idle = this.projections.filter((p) => !busy.includes(p));
    for (const p of idle) if (earlier(this.cursors.get(p.name) ?? null, last)) this.cursors.set(p.name, last);
    if (idle.length > 0) this.emit('advanced');
    if (busy.length === 0) {
      this.markSaved(await this.moveIdle(this.db, idle, last), last);
      return;
    }
    // The idle checkpoints move in the first busy read model's transaction: no commit of their own.
    let idleMoves: typeof idle | null = idle;
    await inLanes(busy, LANES, (p) => {
      const alongside = idleMoves;
      idleMoves = null;
      return this.applyTo(p, batch, last, alongside ?? []);
    });
  }

  private markSaved(names: readonly string[], position: Position): void {
    for (const name of names) this.saved.set(name, position);
  }

  /**
   * The checkpoints of read models with nothing in the batch move to its end, in one statement, each
   * only if it is still where this runner left it: one a rebuild moved meanwhile stays, and the next
   * batch that has work for it sees the move (applyTo). Only forwards: a checkpoint this runner found
   * ahead of its reading (another instance or a rebuild went further, applyTo) stays until the reading
   * passes it, or the events between would be applied a second time. Answers the names moved.
   */
  private async moveIdle(db: Kysely<ReadModels>, idle: readonly Projection[], last: Position): Promise<string[]> {
    const names = idle.map((p) => p.name).filter((name) => earlier(this.saved.get(name) ?? null, last));
    if (names.length === 0) return [];
    const savedValues = names.map((name) => {
      const saved = this.saved.get(name) ?? null;
      return saved ? positionToString(saved) : null;
    });
    const moved = await sql<{ name: string }>`UPDATE processor_checkpoints c SET position = ${positionToString(last)}, updated = now()
      FROM unnest(${names.map(projectionCheckpoint)}::text[], ${savedValues}::text[]) AS v(name, saved)
      WHERE c.name = v.name AND c.position IS NOT DISTINCT FROM v.saved
      RETURNING c.name`.execute(db);
    const byCheckpoint = new Map(names.map((name) => [projectionCheckpoint(name), name]));
    return moved.rows.map((row) => byCheckpoint.get(row.name)!);
  }

  /**
   * One transaction: the read model's registry row and checkpoint locked (as a rebuild's switch takes
   * them), the events after the checkpoint applied to the active generation, the checkpoint moved to
   * `last` (and the idle read models' checkpoints given, moveIdle).
   */
  private async applyTo(projection: Projection, batch: readonly RecordedEvent[], last: Position, idle: readonly Projection[]): Promise<void> {
    const { name } = projection;
    const checkpointName = projectionCheckpoint(name);
    const { reached, idleMoved, applied } = await this.db.transaction().execute(async (trx) => {
      // The registry row first, as a rebuild's switch locks it; then, in a statement of its own (a fresh
      // snapshot), the checkpoint a switch that went before may have moved.
      const registry = await trx.selectFrom('projection_registry').select('generation').where('name', '=', name).forUpdate().executeTakeFirst();
      const checkpoint = await loadCheckpoint(trx, checkpointName);
      if (!registry) throw new Restart();
      if (checkpoint === undefined) {
        await saveCheckpoints(trx, [checkpointName], null);
        throw new Restart();
      }
      // Someone else moved it (a rebuild switched generations): behind what we applied, read again.
      if (!same(checkpoint, this.saved.get(name) ?? null) && earlier(checkpoint, this.cursors.get(name) ?? null)) throw new Restart();
      const idleMoved = await this.moveIdle(trx, idle, last);
      // Ahead of this batch (a rebuild read further): nothing to apply, and the checkpoint stays.
      if (!earlier(checkpoint, last)) return { reached: checkpoint!, idleMoved, applied: false };
      const fresh = checkpoint ? batch.filter((e) => comparePositions(e.position, checkpoint) > 0) : batch;
      if (fresh.length > 0) await applyEvents(trx, generationSchema(name, registry.generation), projection, fresh);
      await sql`UPDATE processor_checkpoints SET position = ${positionToString(last)}, updated = now() WHERE name = ${checkpointName}`.execute(trx);
      return { reached: last, idleMoved, applied: fresh.length > 0 };
    });
    if (applied) this.changes.set(name, (this.changes.get(name) ?? 0) + 1);
    this.markSaved(idleMoved, last);
    this.saved.set(name, reached);
    if (earlier(this.cursors.get(name) ?? null, reached)) this.cursors.set(name, reached);
    this.emit('advanced');
  }
}
