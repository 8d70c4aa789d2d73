// The analyst's view of the read models (issue 20): each read model's generation and checkpoint, and a
// blue-green rebuild of ONE read model started through the API (projections/rebuild.ts builds generation
// N+1 in a schema of its own while N serves, applies the tail and switches the views when caught up).
//
// Read models are shared by every project: what any project-level key may learn here is about the
// machinery (names, versions, generations, checkpoints, progress), never another project's data; who
// started a rebuild is told only to keys of the project that started it.
//
// A rebuild is leased: it runs while its session holds the read model's advisory lock (the lock every
// rebuild, `npm run rebuild` and a start that finds the read model outdated take), taken with a try: a
// second request, on this instance or another, answers 409 at once instead of rebuilding twice. Its
// progress lives in read_model_rebuilds (operational, like the checkpoints: not a read model) so every
// instance reads it; a row left RUNNING by an instance that died is marked FAILED by the next rebuild of
// that read model (it holds the lock, so nobody else is running it). Starting, finishing and failing are
// events of the stream readModelRebuild-<name> (who asked, from where), as every command is.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { RequestContext } from '../domain/shared/command.js';
import { allProjections, projectionByName } from '../projections/all.js';
import { type RebuildPhase, RebuildBusyError, rebuildProjections } from '../projections/rebuild.js';
import { projectionCheckpoint } from '../store/postgres/checkpoints.js';
import type { Services } from './services.js';

export type RebuildState = 'RUNNING' | 'SWITCHED' | 'FAILED';

export interface Rebuild {
  readonly id: string;
  readonly readModel: string;
  readonly state: RebuildState;
  readonly phase: RebuildPhase | null;
  readonly processed: number;
  /** Events in the store when it started (the history it reads; the tail comes on top). */
  readonly total: number;
  readonly generation: number | null;
  readonly startedAt: Date;
  readonly updatedAt: Date;
  readonly finishedAt: Date | null;
  readonly error: string | null;
  /** Only for keys of the project that started it; null for every other project. */
  readonly startedBy: { readonly apiKeyId: string | null } | null;
}

export interface ReadModelStatus {
  readonly name: string;
  readonly version: number;
  /** The generation serving (null: never built). */
  readonly generation: number | null;
  /** A generation being built beside it (a rebuild under way, or one a crash left). */
  readonly buildingGeneration: number | null;
  /** `commit:prepare` in `$all`: the last event it has applied (null: none yet). */
  readonly checkpoint: string | null;
  readonly checkpointUpdatedAt: Date | null;
  readonly lastRebuild: Rebuild | null;
}

/** The stream of a read model's rebuild requests and outcomes. */
export const readModelRebuildStream = (name: string): string => `readModelRebuild-${name}`;

export class UnknownReadModelError extends Error {
  constructor(readonly readModel: string) {
    super(`no read model ${readModel}`);
  }
}

export { RebuildBusyError };

interface RebuildRow {
  id: string;
  read_model: string;
  state: RebuildState;
  phase: RebuildPhase | null;
  processed: string;
  total: string;
  generation: number | null;
  project_id: string | null;
  api_key_id: string | null;
  started_at: Date;
  updated_at: Date;
  finished_at: Date | null;
  error: string | null;
}

const toRebuild = (row: RebuildRow, projectId: string): Rebuild => ({
  id: row.id,
  readModel: row.read_model,
  state: row.state,
  phase: row.phase,
  processed: Number(row.processed),
  total: Number(row.total),
  generation: row.generation,
  startedAt: row.started_at,
  updatedAt: row.updated_at,
  finishedAt: row.finished_at,
  error: row.error,
  startedBy: row.project_id === projectId ? { apiKeyId: row.api_key_id } : null,
});

/** Every read model of the service, in name order, with where it is and its last rebuild. */
export const listReadModels = async (services: Pick<Services, 'db'>, projectId: string): Promise<ReadModelStatus[]> => {
  const [registry, checkpoints, rebuilds] = await Promise.all([
    services.db.selectFrom('projection_registry').selectAll().execute(),
    sql<{
      name: string;
      position: string | null;
      updated: Date;
    }>`SELECT name, position, updated FROM processor_checkpoints WHERE name LIKE 'projection:%'`.execute(services.db),
    sql<RebuildRow>`SELECT DISTINCT ON (read_model) * FROM read_model_rebuilds ORDER BY read_model, started_at DESC`.execute(services.db),
  ]);
  const rows = new Map(registry.map((r) => [r.name, r]));
  const saved = new Map(checkpoints.rows.map((r) => [r.name, r]));
  const last = new Map(rebuilds.rows.map((r) => [r.read_model, r]));
  return [...allProjections]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((p) => {
      const row = rows.get(p.name);
      const checkpoint = saved.get(projectionCheckpoint(p.name));
      const rebuild = last.get(p.name);
      return {
        name: p.name,
        version: p.version,
        generation: row?.generation ?? null,
        buildingGeneration: row?.building_generation ?? null,
        checkpoint: checkpoint?.position ?? null,
        checkpointUpdatedAt: checkpoint?.updated ?? null,
        lastRebuild: rebuild ? toRebuild(rebuild, projectId) : null,
      };
    });
};

/** One rebuild of the read model, or null. */
export const getRebuild = async (services: Pick<Services, 'db'>, projectId: string, readModel: string, id: string): Promise<Rebuild | null> => {
  const { rows } = await sql<RebuildRow>`SELECT * FROM read_model_rebuilds WHERE id = ${id} AND read_model = ${readModel}`.execute(services.db);
  return rows[0] ? toRebuild(rows[0], projectId) : null;
};

/** How often a running rebuild writes its progress at most. */
const PROGRESS_EVERY_MS = 250;

/**
 * Starts a blue-green rebuild of one read model and answers once it holds the read model's lock (its
 * row written, RUNNING); the rebuild goes on in the background. RebuildBusyError: one is running
 * (here or on another instance); UnknownReadModelError: no such read model.
 */
export const startRebuild = async (services: Pick<Services, 'db' | 'store' | 'log'>, readModel: string, context: RequestContext): Promise<Rebuild> => {
  const projection = projectionByName(readModel);
  if (!projection) throw new UnknownReadModelError(readModel);
  const id = randomUUID();
  const projectId = context.projectId ?? '';
  const { rows: counted } = await sql<{ total: string }>`SELECT count(*)::bigint AS total FROM es_events`
    .execute(services.db)
    .catch(() => ({ rows: [{ total: '0' }] }));
  const total = Number(counted[0]?.total ?? 0);
  const metadata = { ...context };
  let written: Promise<unknown> = Promise.resolve();
  let lastWrite = 0;
  let processed = 0;
  let phase: RebuildPhase | null = null;
  const progress = (force = false): void => {
    const now = Date.now();
    if (!force && now - lastWrite < PROGRESS_EVERY_MS) return;
    lastWrite = now;
    const [p, ph] = [processed, phase];
    written = written
      .then(() =>
        sql`UPDATE read_model_rebuilds SET processed = ${p}, phase = ${ph}, updated_at = now() WHERE id = ${id} AND state = 'RUNNING'`.execute(services.db),
      )
      .catch((error: unknown) => services.log.warn(`rebuild ${id} of ${readModel}: progress not saved: ${String(error)}`));
  };
  return new Promise<Rebuild>((resolve, reject) => {
    let started = false;
    const onLocked = (): void => {
      started = true;
      written = (async () => {
        // We hold the lock: a RUNNING row of this read model is one a dead instance left.
        await sql`UPDATE read_model_rebuilds SET state = 'FAILED', error = 'the instance running it ended', finished_at = now(), updated_at = now()
          WHERE read_model = ${readModel} AND state = 'RUNNING'`.execute(services.db);
        await sql`INSERT INTO read_model_rebuilds (id, read_model, state, processed, total, project_id, api_key_id)
          VALUES (${id}, ${readModel}, 'RUNNING', 0, ${total}, ${context.projectId}, ${context.apiKeyId})`.execute(services.db);
        await services.store.appendToStream(readModelRebuildStream(readModel), {
          id,
          type: 'ReadModelRebuildStarted',
          data: { rebuildId: id, readModel, version: projection.version, projectId: context.projectId },
          metadata,
        });
      })();
      written.then(
        async () => resolve((await getRebuild(services, projectId, readModel, id))!),
        (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))),
      );
    };
    const finish = async (state: RebuildState, generation: number | null, error: string | null): Promise<void> => {
      await written.catch(() => undefined);
      await sql`UPDATE read_model_rebuilds SET state = ${state}, generation = ${generation}, processed = ${processed}, phase = ${phase},
        error = ${error}, finished_at = now(), updated_at = now() WHERE id = ${id}`.execute(services.db);
      await services.store.appendToStream(readModelRebuildStream(readModel), {
        id: randomUUID(),
        type: state === 'SWITCHED' ? 'ReadModelRebuildSwitched' : 'ReadModelRebuildFailed',
        data: { rebuildId: id, readModel, generation, events: processed, error },
        metadata,
      });
    };
    rebuildProjections(services.db, services.store, [projection], {
      lanes: 1,
      tryLock: true,
      onLocked,
      onPhase: (next) => {
        phase = next;
        progress(true);
      },
      onProgress: (p) => {
        processed = p.processed;
        progress();
      },
    })
      .then(
        async ([result]) => {
          services.log.info(`read model ${readModel}: rebuilt through the API, ${processed} events, generation ${result?.generation ?? '?'}`);
          await finish('SWITCHED', result?.generation ?? null, null);
        },
        async (error: unknown) => {
          if (!started) return reject(error instanceof Error ? error : new Error(String(error)));
          services.log.warn(`read model ${readModel}: the rebuild ${id} failed: ${String(error)}`);
          await finish('FAILED', null, error instanceof Error ? error.message : String(error));
        },
      )
      .catch((error: unknown) => services.log.warn(`read model ${readModel}: the rebuild ${id}'s outcome not saved: ${String(error)}`));
  });
};
