// The copiers read model: one row per live copier (a deleted copier's row is removed). A strategy
// copier's row carries its strategy's key, name and activity, kept current from the strategy's events
// (the read model's own copy of every strategy, copier_strategies), so the copy engine reads them with
// the copier.
import { type Kysely, sql } from 'kysely';
import { copierEventTypes, type CopierEvent } from '../../domain/copier/events.js';
import { strategyEventTypes, type StrategyEvent } from '../../domain/strategy/events.js';
import type { ReadModels } from '../schema.js';
import type { CopierSettings } from '../../domain/copier/settings.js';
import type { Projection } from '../projection.js';

export const copiersProjection: Projection = {
  name: 'copiers',
  // 3: strategy copiers (issue 19). 4: signal follower copiers. 5: the (from account) index of the walk across projects.
  version: 5,
  handles: [...copierEventTypes, ...strategyEventTypes],
  tables: ['copiers', 'copier_strategies'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'copiers')} (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      from_account_id uuid NOT NULL,
      to_account_id uuid NOT NULL,
      active boolean NOT NULL,
      monitor_only boolean NOT NULL,
      settings jsonb NOT NULL,
      symbol_mappings jsonb NOT NULL DEFAULT '{}'::jsonb,
      created timestamptz NOT NULL,
      updated timestamptz NOT NULL,
      from_strategy_id uuid,
      to_strategy_id uuid,
      strategy_key integer,
      strategy_name text,
      strategy_active boolean NOT NULL DEFAULT true,
      signal_provider_id uuid)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'copier_strategies')} (
      strategy_id uuid PRIMARY KEY,
      name text NOT NULL,
      key integer NOT NULL,
      active boolean NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'copiers')} (project_id, to_account_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'copiers')} (project_id, from_account_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'copiers')} (from_account_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'copiers')} (from_strategy_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'copiers')} (to_strategy_id)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as CopierEvent | StrategyEvent;
    switch (event.type) {
      case 'StrategyCreated':
      case 'StrategyUpdated':
      case 'StrategyDeleted':
        await applyStrategy(db, event);
        return;
      case 'CopierCreated': {
        const d = event.data;
        const strategyId = d.fromStrategyId ?? d.toStrategyId ?? null;
        const strategy =
          strategyId === null ? undefined : await db.selectFrom('copier_strategies').selectAll().where('strategy_id', '=', strategyId).executeTakeFirst();
        await db
          .insertInto('copiers')
          .values({
            id: d.copierId,
            project_id: d.projectId,
            from_account_id: d.fromAccountId,
            to_account_id: d.toAccountId,
            active: d.settings.active,
            monitor_only: d.settings.monitorOnly,
            settings: JSON.stringify(d.settings),
            created: d.at,
            updated: d.at,
            from_strategy_id: d.fromStrategyId ?? null,
            to_strategy_id: d.toStrategyId ?? null,
            strategy_key: strategy?.key ?? null,
            strategy_name: strategy?.name ?? null,
            strategy_active: strategy?.active ?? true,
            signal_provider_id: d.signalProviderId ?? null,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'CopierUpdated': {
        const row = await db.selectFrom('copiers').select('settings').where('id', '=', event.data.copierId).executeTakeFirst();
        if (!row) return;
        const settings = { ...(row.settings as CopierSettings), ...event.data.changes };
        await db
          .updateTable('copiers')
          .set({
            settings: JSON.stringify(settings),
            active: settings.active,
            monitor_only: settings.monitorOnly,
            updated: event.data.at,
          })
          .where('id', '=', event.data.copierId)
          .execute();
        return;
      }
      case 'CopierDeleted':
        await db.deleteFrom('copiers').where('id', '=', event.data.copierId).execute();
        return;
      case 'CopierSymbolMappingsSet':
        await db
          .updateTable('copiers')
          .set({ symbol_mappings: JSON.stringify(event.data.mappings), updated: event.data.at })
          .where('id', '=', event.data.copierId)
          .execute();
        return;
      case 'CopierResyncRequested':
        return;
    }
  },
};

/** A strategy's key, name and activity: kept here, and on the rows of its copiers. */
const applyStrategy = async (db: Kysely<ReadModels>, event: StrategyEvent): Promise<void> => {
  const { strategyId } = event.data;
  if (event.type === 'StrategyDeleted') {
    await db.deleteFrom('copier_strategies').where('strategy_id', '=', strategyId).execute();
    return;
  }
  if (event.type === 'StrategyCreated') {
    const { name, key, active } = event.data.settings;
    await db
      .insertInto('copier_strategies')
      .values({ strategy_id: strategyId, name, key, active })
      .onConflict((oc) => oc.column('strategy_id').doNothing())
      .execute();
    return;
  }
  const current = await db.selectFrom('copier_strategies').selectAll().where('strategy_id', '=', strategyId).executeTakeFirst();
  if (!current) return;
  const next = { name: current.name, key: current.key, active: current.active, ...event.data.changes };
  await db.updateTable('copier_strategies').set(next).where('strategy_id', '=', strategyId).execute();
  await db
    .updateTable('copiers')
    .set({ strategy_key: next.key, strategy_name: next.name, strategy_active: next.active })
    .where((eb) => eb.or([eb('from_strategy_id', '=', strategyId), eb('to_strategy_id', '=', strategyId)]))
    .execute();
};
