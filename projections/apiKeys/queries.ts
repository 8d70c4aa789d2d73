import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

export const findApiKeyByHash = (db: Kysely<ReadModels>, keyHash: string) =>
  db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();

export const countActiveProjectKeys = async (db: Kysely<ReadModels>, projectId: string): Promise<number> => {
  const row = await db.selectFrom('api_keys').select((eb) => eb.fn.countAll<string>().as('n'))
    .where('project_id', '=', projectId).where('level', '=', 'PROJECT').where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
};
