// The projection runner: one catch-up subscription to `$all` feeds every read model. Each batch is
// applied and checkpointed in one Postgres transaction (exactly-once effects), under a row lock on the
// registry, so a second service instance or a blue-green rebuild never applies an event twice.
import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import {
  comparePositions,
  type EventStore,
  type Position,
  positionFromString,
  positionToString,
  type RecordedEvent,
  type Subscription,
} from '../store/port.js';
import { followInBatches } from '../store/batches.js';
import { Recovery, type RecoveryLog } from '../store/recovery.js';
import { generationSchema, type Projection } from './projection.js';
import { applyEvents, rebuildProjections } from './rebuild.js';
import type { ReadModels } from './schema.js';

const MAX_BATCH = 500;

class Restart extends Error {}

const earlier = (a: Position | null, b: Position | null): boolean => (a === null ? b !== null : b !== null && comparePositions(a, b) < 0);

export type RunnerLog = RecoveryLog;

export class ProjectionRunner extends EventEmitter {
  private cursor: Position | null = null;
  private subscription: Subscription | null = null;
  private stopped = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly db: Kysely<ReadModels>,
    private readonly store: EventStore,
    private readonly projections: readonly Projection[],
    private readonly log: RunnerLog,
  ) {
    super();
    this.setMaxListeners(0);
  }

  /** Builds missing or outdated read models (blue-green), then follows `$all`. */
  async start(): Promise<void> {
    const rows = await this.registry();
    const outdated = this.projections.filter((p) => rows.get(p.name)?.version !== p.version);
    if (outdated.length > 0) {
      this.log.info(`read models ${outdated.map((p) => `${p.name} v${p.version}`).join(', ')}: building`);
      for (const result of await rebuildProjections(this.db, this.store, outdated)) {
        this.log.info(`read model ${result.projection}: ${result.events} events, generation ${result.generation}`);
      }
    }
    this.cursor = await this.lowestCheckpoint();
    this.loop = this.run();
  }

  /** The position every read model has reached. */
  get position(): Position | null {
    return this.cursor;
  }

  /** Resolves true once every read model includes `position`, false after `timeoutMs`. */
  waitFor(position: Position, timeoutMs: number): Promise<boolean> {
    if (!earlier(this.cursor, position)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const onAdvance = (): void => {
        if (earlier(this.cursor, position)) return;
        done(true);
      };
      const done = (value: boolean): void => {
        clearTimeout(timer);
        this.off('advanced', onAdvance);
        resolve(value);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      this.on('advanced', onAdvance);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.unsubscribe();
    await this.loop;
  }

  private async registry() {
    const rows = await this.db.selectFrom('projection_registry').selectAll().execute();
    return new Map(rows.map((r) => [r.name, r]));
  }

  private async lowestCheckpoint(): Promise<Position | null> {
    const rows = await this.registry();
    let lowest: Position | null | undefined;
    for (const p of this.projections) {
      const cp = rows.get(p.name)?.checkpoint;
      const pos = cp ? positionFromString(cp) : null;
      if (lowest === undefined || earlier(pos, lowest)) lowest = pos;
    }
    return lowest ?? null;
  }

  private run(): Promise<void> {
    return followInBatches({
      store: this.store,
      max: MAX_BATCH,
      recovery: new Recovery('the projection runner', this.log, { action: 'resubscribes from its checkpoint' }),
      stopped: () => this.stopped,
      cursor: () => this.cursor,
      reload: async () => {
        this.cursor = await this.lowestCheckpoint().catch(() => this.cursor);
      },
      apply: (batch) => this.applyBatch(batch),
      onSubscribe: (subscription) => (this.subscription = subscription),
      // A rebuild switched generations or a registry row is missing: resume lower, at once.
      restarts: (error) => error instanceof Restart,
    });
  }

  private async applyBatch(batch: readonly RecordedEvent[]): Promise<void> {
    const before = this.cursor;
    const last = batch[batch.length - 1]!.position;
    await this.db.transaction().execute(async (trx) => {
      const advanced: string[] = [];
      const rows = await trx
        .selectFrom('projection_registry')
        .selectAll()
        .where(
          'name',
          'in',
          this.projections.map((p) => p.name),
        )
        .orderBy('name')
        .forUpdate()
        .execute();
      for (const projection of this.projections) {
        const row = rows.find((r) => r.name === projection.name);
        if (!row) throw new Restart();
        const checkpoint = row.checkpoint ? positionFromString(row.checkpoint) : null;
        // Behind our cursor means events were missed (e.g. a rebuild switched generations): resume lower.
        if (earlier(checkpoint, before)) throw new Restart();
        const fresh = checkpoint ? batch.filter((e) => comparePositions(e.position, checkpoint) > 0) : batch;
        if (fresh.length === 0) continue;
        await applyEvents(trx, generationSchema(projection.name, row.generation), projection, fresh);
        advanced.push(projection.name);
      }
      // One statement moves every checkpoint the batch advanced.
      if (advanced.length > 0) {
        await trx
          .updateTable('projection_registry')
          .set({ checkpoint: positionToString(last), updated: new Date() })
          .where('name', 'in', advanced)
          .execute();
      }
    });
    this.cursor = last;
    this.emit('advanced', last);
  }
}
