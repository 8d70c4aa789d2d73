// lastUsedAt of API keys (spec: "updated at most once per minute"). Usage is telemetry, not a change to
// a key, so it is no event: one row per key in a small table of its own, written by a conditional
// upsert only when the authenticating lookup saw a value older than a minute. Most requests write
// nothing; the row's condition keeps two concurrent requests (or instances) from both writing.
import { type Kysely, sql } from 'kysely';
import { usageDb } from '../projections/apiKeys/queries.js';
import type { ReadModels } from '../projections/schema.js';

export const USAGE_INTERVAL_MS = 60_000;

/** Needs a write when never used, or last used a minute or more before `now`. */
export const usageIsStale = (lastUsedAt: Date | string | null | undefined, now: Date): boolean =>
  !lastUsedAt || now.getTime() - new Date(lastUsedAt).getTime() >= USAGE_INTERVAL_MS;

export const recordUsage = async (db: Kysely<ReadModels>, apiKeyId: string, now: Date): Promise<void> => {
  await sql`INSERT INTO api_key_usage (api_key_id, last_used_at) VALUES (${apiKeyId}, ${now})
    ON CONFLICT (api_key_id) DO UPDATE SET last_used_at = EXCLUDED.last_used_at
    WHERE api_key_usage.last_used_at <= EXCLUDED.last_used_at - make_interval(secs => ${USAGE_INTERVAL_MS / 1000})`.execute(db);
};

/** lastUsedAt of each key id given. */
export const lastUsedOf = async (db: Kysely<ReadModels>, apiKeyIds: readonly string[]): Promise<Map<string, Date>> => {
  if (apiKeyIds.length === 0) return new Map();
  const rows = await usageDb(db).selectFrom('api_key_usage').selectAll().where('api_key_id', 'in', apiKeyIds).execute();
  return new Map(rows.map((r) => [r.api_key_id, r.last_used_at]));
};
