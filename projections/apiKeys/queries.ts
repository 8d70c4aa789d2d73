import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

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
