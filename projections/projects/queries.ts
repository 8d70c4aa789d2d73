import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

export const findProject = (db: Kysely<ReadModels>, projectId: string) => db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst();
