// Queries of the strategies read model, and the strategy copiers of the copiers read model.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

export const listStrategies = (db: Kysely<ReadModels>, projectId: string) =>
  db.selectFrom('strategies').selectAll().where('project_id', '=', projectId).orderBy('created').orderBy('id').execute();

export const findStrategy = (db: Kysely<ReadModels>, projectId: string, strategyId: string) =>
  db.selectFrom('strategies').selectAll().where('project_id', '=', projectId).where('id', '=', strategyId).executeTakeFirst();

/** The project's strategy holding `key`, other than `exceptId`. */
export const strategyWithKey = (db: Kysely<ReadModels>, projectId: string, key: number, exceptId: string | null) => {
  let q = db.selectFrom('strategies').select(['id', 'name']).where('project_id', '=', projectId).where('key', '=', key);
  if (exceptId) q = q.where('id', '<>', exceptId);
  return q.executeTakeFirst();
};

const strategyCopiers = (db: Kysely<ReadModels>, projectId: string, strategyId: string) =>
  db
    .selectFrom('copiers as c')
    .innerJoin('accounts as m', 'm.id', 'c.from_account_id')
    .selectAll('c')
    .select('m.alias as from_account_alias')
    .where('c.project_id', '=', projectId)
    .where((eb) => eb.or([eb('c.from_strategy_id', '=', strategyId), eb('c.to_strategy_id', '=', strategyId)]));

/** The copiers from or into a strategy, oldest first. */
export const listStrategyCopiers = (db: Kysely<ReadModels>, projectId: string, strategyId: string) =>
  strategyCopiers(db, projectId, strategyId).orderBy('c.created').orderBy('c.id').execute();

export const findStrategyCopier = (db: Kysely<ReadModels>, projectId: string, strategyId: string, copierId: string) =>
  strategyCopiers(db, projectId, strategyId).where('c.id', '=', copierId).executeTakeFirst();

/** Whether any copier copies from or into the strategy. */
export const strategyHasCopiers = async (db: Kysely<ReadModels>, strategyId: string): Promise<boolean> =>
  (await db
    .selectFrom('copiers')
    .select('id')
    .where((eb) => eb.or([eb('from_strategy_id', '=', strategyId), eb('to_strategy_id', '=', strategyId)]))
    .limit(1)
    .executeTakeFirst()) !== undefined;
