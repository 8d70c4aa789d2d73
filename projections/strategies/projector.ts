// The strategies read model (reference StrategyDTO under /projects/{projectId}/strategies): one row
// per live strategy (a deleted strategy's row is removed).
import { sql } from 'kysely';
import { strategyEventTypes, type StrategyEvent } from '../../domain/strategy/events.js';
import type { Projection } from '../projection.js';

export const strategiesProjection: Projection = {
  name: 'strategies',
  version: 1,
  handles: strategyEventTypes,
  tables: ['strategies'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'strategies')} (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      name text NOT NULL,
      key integer NOT NULL,
      active boolean NOT NULL,
      created timestamptz NOT NULL,
      updated timestamptz NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'strategies')} (project_id, key)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as StrategyEvent;
    switch (event.type) {
      case 'StrategyCreated': {
        const { strategyId, projectId, settings, at } = event.data;
        await db
          .insertInto('strategies')
          .values({ id: strategyId, project_id: projectId, name: settings.name, key: settings.key, active: settings.active, created: at, updated: at })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'StrategyUpdated':
        await db
          .updateTable('strategies')
          .set({ ...event.data.changes, updated: event.data.at })
          .where('id', '=', event.data.strategyId)
          .execute();
        return;
      case 'StrategyDeleted':
        await db.deleteFrom('strategies').where('id', '=', event.data.strategyId).execute();
        return;
    }
  },
};
