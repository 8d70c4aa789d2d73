import { type Kysely, sql } from 'kysely';
import type { ReadModels } from '../schema.js';

type UsageTables = {
  /** lastUsedAt of API keys, written at most once a minute per key (app/apiKeyUsage.ts). */
  api_key_usage: { api_key_id: string; last_used_at: Date };
};

export const usageDb = (db: Kysely<ReadModels>) => db.withTables<UsageTables>();

/**
 * API keys as admitting one reads them: the key's row, its last use, and whether its project's
 * white-label customer is blocked (app/customersBlock.ts: a blocked customer's keys are suspended, not
 * revoked, so the block is read with the key, from the next request on). The one query of every
 * admission: the HTTP API (api/auth.ts), the account reads' stamp (projections/accounts/withState.ts)
 * and the MT bridge's hello (engine/venues/mtBridge/adapter.ts).
 */
const keysWithLastUse = (db: Kysely<ReadModels>) =>
  usageDb(db)
    .selectFrom('api_keys')
    .leftJoin('api_key_usage', 'api_key_usage.api_key_id', 'api_keys.id')
    .leftJoin('customer_projects', 'customer_projects.project_id', 'api_keys.project_id')
    .selectAll('api_keys')
    .select(['api_key_usage.last_used_at', 'customer_projects.blocked as customer_blocked']);

/** The key with this hash, with its last use and its customer's block: one round trip. */
export const keyWithLastUse = (db: Kysely<ReadModels>, keyHash: string) => keysWithLastUse(db).where('api_keys.key_hash', '=', keyHash).executeTakeFirst();

export type KeyWithLastUse = NonNullable<Awaited<ReturnType<typeof keyWithLastUse>>>;

/** The query of the key with this id, to read in the same round trip as an answer (api/auth.ts). */
export const keyWithLastUseById = (db: Kysely<ReadModels>, apiKeyId: string) => keysWithLastUse(db).where('api_keys.id', '=', apiKeyId);

/** The text of the same query for the keys whose ids are its parameter $1 (uuid[]): for a statement prepared by name. */
export const keysWithLastUseAmongSql = (db: Kysely<ReadModels>): string =>
  keysWithLastUse(db)
    .where(sql<boolean>`api_keys.id = ANY(${sql.raw('$1')}::uuid[])`)
    .compile().sql;

export const findApiKeyByHash = (db: Kysely<ReadModels>, keyHash: string) =>
  db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();

export const findApiKey = (db: Kysely<ReadModels>, projectId: string, apiKeyId: string) =>
  db.selectFrom('api_keys').selectAll().where('project_id', '=', projectId).where('id', '=', apiKeyId).executeTakeFirst();

/** Every key of the project, oldest first; with `accountId`, that account's keys only. */
export const listApiKeys = (db: Kysely<ReadModels>, projectId: string, filter: { accountId?: string } = {}) => {
  let q = db.selectFrom('api_keys').selectAll().where('project_id', '=', projectId);
  if (filter.accountId) q = q.where('account_id', '=', filter.accountId);
  return q.orderBy('created').orderBy('id').execute();
};

/** The project's AI keys that still count (not revoked; an expired one could be extended again). */
export const listLiveAiKeys = (db: Kysely<ReadModels>, projectId: string) =>
  db.selectFrom('api_keys').select('id').where('project_id', '=', projectId).where('key_type', '=', 'AI').where('revoked_at', 'is', null).execute();

export const countActiveProjectKeys = async (db: Kysely<ReadModels>, projectId: string): Promise<number> => {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('project_id', '=', projectId)
    .where('level', '=', 'PROJECT')
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

/**
 * The project's live project-level keys whose value the operator chose (no prefix shown): the keys
 * BOOTSTRAP_API_KEY made, the current one and any it replaced.
 */
export const listLiveOperatorKeys = (db: Kysely<ReadModels>, projectId: string) =>
  db
    .selectFrom('api_keys')
    .select(['id', 'key_hash'])
    .where('project_id', '=', projectId)
    .where('level', '=', 'PROJECT')
    .where('key_prefix', 'is', null)
    .where('revoked_at', 'is', null)
    .orderBy('created')
    .orderBy('id')
    .execute();
