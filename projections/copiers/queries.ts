// Queries of the copier area: a slave's copiers, the slaves of a master, masters, and the graph walk that
// refuses a copier closing a cycle. A signal follower's copier (signal_provider_id set) is reached only
// through its follower feature and the provider's /signals operations: the copier routes do not list it.
import type { Kysely } from 'kysely';
import { AccountStatus } from '../../domain/account/enums.js';
import type { ReadModels } from '../schema.js';

export const listCopiers = (db: Kysely<ReadModels>, projectId: string, toAccountId: string) =>
  db
    .selectFrom('copiers as c')
    .innerJoin('accounts as m', 'm.id', 'c.from_account_id')
    .selectAll('c')
    .select('m.alias as from_account_alias')
    .where('c.project_id', '=', projectId)
    .where('c.to_account_id', '=', toAccountId)
    .where('c.signal_provider_id', 'is', null)
    .orderBy('c.created')
    .orderBy('c.id')
    .execute();

export const findCopier = (db: Kysely<ReadModels>, projectId: string, toAccountId: string, copierId: string) =>
  db
    .selectFrom('copiers as c')
    .innerJoin('accounts as m', 'm.id', 'c.from_account_id')
    .selectAll('c')
    .select('m.alias as from_account_alias')
    .where('c.project_id', '=', projectId)
    .where('c.to_account_id', '=', toAccountId)
    .where('c.id', '=', copierId)
    .where('c.signal_provider_id', 'is', null)
    .executeTakeFirst();

/** Copier ids selected by a copier-mode operation: all of the project, or those copying from one master. */
export const copierIdsFor = async (db: Kysely<ReadModels>, projectId: string, fromAccountId?: string) => {
  let q = db.selectFrom('copiers').select(['id', 'to_account_id']).where('project_id', '=', projectId).where('signal_provider_id', 'is', null);
  if (fromAccountId) q = q.where('from_account_id', '=', fromAccountId);
  return q.orderBy('id').execute();
};

/** The project's copier links, as master -> slave edges. */
export const copierEdges = (db: Kysely<ReadModels>, projectId: string) =>
  db.selectFrom('copiers').select(['from_account_id', 'to_account_id', 'from_strategy_id', 'to_strategy_id']).where('project_id', '=', projectId).execute();

/** Direct slaves (not deleted) of each master (not deleted) of the project. */
export const slaveLinks = (db: Kysely<ReadModels>, projectId: string, masterId?: string) => {
  let q = db
    .selectFrom('copiers as c')
    .innerJoin('accounts as m', 'm.id', 'c.from_account_id')
    .innerJoin('accounts as s', 's.id', 'c.to_account_id')
    .select(['c.from_account_id', 'c.to_account_id'])
    .where('c.project_id', '=', projectId)
    .where('m.account_status_id', '<>', AccountStatus.Deleted)
    .where('s.account_status_id', '<>', AccountStatus.Deleted);
  if (masterId) q = q.where('c.from_account_id', '=', masterId);
  return q.orderBy('c.from_account_id').orderBy('c.created').execute();
};

/** Per slave account: whether any of its copiers is monitor-only, and whether any is deactivated. */
export const copierFlags = async (db: Kysely<ReadModels>, projectId: string, accountIds: readonly string[]) => {
  const flags = new Map<string, { monitorOnly: boolean; disabled: boolean }>();
  if (accountIds.length === 0) return flags;
  const rows = await db
    .selectFrom('copiers')
    .select(['to_account_id', 'active', 'monitor_only'])
    .where('project_id', '=', projectId)
    .where('to_account_id', 'in', accountIds)
    .execute();
  for (const r of rows) {
    const f = flags.get(r.to_account_id) ?? { monitorOnly: false, disabled: false };
    flags.set(r.to_account_id, { monitorOnly: f.monitorOnly || r.monitor_only, disabled: f.disabled || !r.active });
  }
  return flags;
};

/** The slave account ids of a master's active copiers (monitor-only included), each once. */
export const activeSlaveAccountIds = async (db: Kysely<ReadModels>, projectId: string, masterId: string): Promise<string[]> => {
  const copiers = await db
    .selectFrom('copiers')
    .select('to_account_id')
    .where('project_id', '=', projectId)
    .where('from_account_id', '=', masterId)
    .where('active', '=', true)
    .execute();
  return [...new Set(copiers.map((c) => c.to_account_id))];
};
