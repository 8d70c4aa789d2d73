// Queries of the copier area: a slave's copiers, the slaves of a master, masters, and the graph walk that
// refuses a copier closing a cycle. A signal follower's copier (signal_provider_id set) is reached only
// through its follower feature and the provider's /signals operations: the copier routes do not list it.
import { type Kysely, sql } from 'kysely';
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

/**
 * The copier links a new copier into one of `slaveIds` is judged by (domain/copier/graph.ts), not the
 * whole network: the project's links into those accounts (a second copier between the same two accounts;
 * every copier into an account is of the account's project), and every link reachable from them, of any
 * project (a cycle is a path from the new slave back to its master, and a signal follower's copier joins
 * projects: app/signals.ts). For several new copiers checked in turn, each after those before it joined
 * the network, the walk from all their slaves covers every path: a path leaving the stored links through
 * a new one enters a new slave, whose stored links were walked too. One statement, through the
 * (from account) and (project, to account) indexes.
 */
export const copierEdgesAround = async (db: Kysely<ReadModels>, projectId: string, slaveIds: readonly string[]) => {
  if (slaveIds.length === 0) return [];
  const ids = [...new Set(slaveIds)];
  const { rows } = await sql<{ from_account_id: string; to_account_id: string; from_strategy_id: string | null; to_strategy_id: string | null }>`
    WITH RECURSIVE reach(account_id) AS (
      SELECT unnest(${ids}::uuid[])
      UNION
      SELECT c.to_account_id FROM copiers c JOIN reach r ON c.from_account_id = r.account_id)
    SELECT c.from_account_id, c.to_account_id, c.from_strategy_id, c.to_strategy_id
      FROM copiers c
     WHERE c.from_account_id IN (SELECT account_id FROM reach)
        OR (c.project_id = ${projectId} AND c.to_account_id = ANY(${ids}::uuid[]))`.execute(db);
  return rows;
};

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
