// The operator's liveness and readiness probes, outside the REST API (no key, no load shedding):
// GET /health answers while the process does; GET /ready answers 200 when the database can be reached
// and every read model, the copy engine and the webhook dispatcher are within READY_MAX_LAG_SECONDS of
// the newest event, and no leased job this instance runs is stalled (no good round, by any
// instance, within READY_MISSED_ROUNDS × its pause: store/postgres/jobRounds.ts), else 503 with what is
// behind and which job is stalled and why. Both are cheap: /ready is two indexed queries.
import type express from 'express';
import { sql } from 'kysely';
import type { Services } from '../app/services.js';
import { COPY_ENGINE_STREAMS } from '../engine/copy/engine.js';
import { COPY_ENGINE_PARTITION, copyEnginePartition } from '../engine/copy/tracking.js';
import { WEBHOOK_DISPATCHER_STREAMS } from '../engine/webhooks/dispatcher.js';
import { projectionCheckpoint } from '../store/postgres/checkpoints.js';

/** How far behind the newest event a processor may be for /ready to answer 200. */
export const READY_MAX_LAG_SECONDS = 30;
/** Lag counts stop here: a processor this far behind is far behind, whatever the exact number. */
const LAG_COUNT_LIMIT = 100_000;
/** /ready waits this long for the database at most. */
const READY_TIMEOUT_MS = 2000;

export interface ProcessorLag {
  /** The processor's checkpoint name: `projection:<read model>`, `copy-engine` (or `copy-engine/<count>/<index>`), `webhooks`. */
  readonly name: string;
  /** Seconds since the oldest event it has not handled was appended; 0 when caught up. */
  readonly seconds: number;
  /** Events it has not handled yet (at most LAG_COUNT_LIMIT); only when counted. */
  readonly events: number | null;
}

/** The copy engine's checkpoint rows: one, or one per partition (COPY_ENGINE_PARTITIONS, engine/copy/partitions.ts). */
const copyEngineCheckpoints = (count: number): string[] =>
  count === 1 ? [COPY_ENGINE_PARTITION] : Array.from({ length: count }, (_, index) => copyEnginePartition(index, count));

/** Whether a checkpoint name is the copy engine's (a partition's too). */
export const isCopyEngineCheckpoint = (name: string): boolean => name === COPY_ENGINE_PARTITION || name.startsWith(`${COPY_ENGINE_PARTITION}/`);

/** The checkpoints /ready and /metrics watch: every read model, the copy engine (each partition), the webhook dispatcher. */
export const watchedProcessors = (services: Pick<Services, 'runner' | 'config'>): string[] => [
  ...services.runner.names.map(projectionCheckpoint),
  ...copyEngineCheckpoints(services.config.copyEnginePartitions),
  'webhooks',
];

/** The stream prefixes a processor reads, by checkpoint name; none: every event (the read models). */
const streamsRead = (name: string): readonly string[] | null =>
  isCopyEngineCheckpoint(name) ? COPY_ENGINE_STREAMS : name === 'webhooks' ? WEBHOOK_DISPATCHER_STREAMS : null;

/**
 * How far each processor is behind `$all` (PostgreSQL event store only; EventStoreDB: none known): the
 * age of the oldest event after its checkpoint among the events it reads. The copy engine and the
 * webhook dispatcher read some streams only and save their checkpoint only when they handle one, so an
 * event of another stream (a calendar import) is not theirs to be behind on. A processor without a
 * checkpoint row has not started from anywhere yet and counts as caught up (the copy engine starts at
 * the head). `count` also counts the events behind (bounded), for /metrics.
 */
export const processorLags = async (services: Pick<Services, 'db' | 'config' | 'runner'>, count: boolean): Promise<ProcessorLag[]> => {
  if (services.config.eventStoreConnectionString) return [];
  const names = watchedProcessors(services);
  const groups = new Map<string, { prefixes: readonly string[] | null; names: string[] }>();
  for (const name of names) {
    const prefixes = streamsRead(name);
    const key = prefixes ? prefixes.join(',') : '*';
    const group = groups.get(key) ?? { prefixes, names: [] };
    group.names.push(name);
    groups.set(key, group);
  }
  const rows = (
    await Promise.all(
      [...groups.values()].map(async ({ prefixes, names: groupNames }) => {
        const read = prefixes ? sql`AND e.stream_name LIKE ANY(${prefixes.map((p) => `${p}%`)}::text[])` : sql``;
        const after = sql`(c.position IS NULL OR (e.transaction_id, e.global_position) > (split_part(c.position, ':', 1)::xid8, split_part(c.position, ':', 2)::bigint))
      AND e.transaction_id < pg_snapshot_xmin(pg_current_snapshot()) ${read}`;
        const counted = count ? sql`(SELECT count(*)::int FROM (SELECT 1 FROM es_events e WHERE ${after} LIMIT ${LAG_COUNT_LIMIT}) behind)` : sql`NULL::int`;
        const result = await sql<{ name: string; seconds: number | null; events: number | null }>`
    SELECT c.name,
      EXTRACT(EPOCH FROM clock_timestamp() - (SELECT e.created FROM es_events e WHERE ${after} ORDER BY e.transaction_id, e.global_position LIMIT 1))::float8 AS seconds,
      ${counted} AS events
    FROM processor_checkpoints c WHERE c.name = ANY(${groupNames}::text[])`.execute(services.db);
        return result.rows;
      }),
    )
  ).flat();
  const byName = new Map(rows.map((r) => [r.name, r]));
  return names.map((name) => {
    const row = byName.get(name);
    return { name, seconds: Math.max(0, row?.seconds ?? 0), events: count ? (row?.events ?? 0) : null };
  });
};

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });

export const healthRoutes = (app: express.Express, services: Services): void => {
  app.get('/health', (_req, res) => {
    res.set('cache-control', 'no-store').json({ status: 'UP' });
  });
  app.get('/ready', async (_req, res) => {
    res.set('cache-control', 'no-store');
    if (!services.health.available) {
      res.status(503).json({ status: 'NOT_READY', database: 'DOWN', behind: [] });
      return;
    }
    try {
      const [lags, stalled] = await withTimeout(Promise.all([processorLags(services, false), services.jobRounds.stalled()] as const), READY_TIMEOUT_MS);
      const behind = lags.filter((l) => l.seconds > READY_MAX_LAG_SECONDS).map((l) => ({ name: l.name, lagSeconds: Math.round(l.seconds) }));
      const ready = behind.length === 0 && stalled.length === 0;
      res
        .status(ready ? 200 : 503)
        .json({ status: ready ? 'READY' : 'NOT_READY', database: 'UP', maxLagSeconds: READY_MAX_LAG_SECONDS, behind, stalledJobs: stalled });
    } catch (error) {
      services.health.observe(error);
      res.status(503).json({ status: 'NOT_READY', database: 'DOWN', behind: [], reason: error instanceof Error ? error.message : String(error) });
    }
  });
};
