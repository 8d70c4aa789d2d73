// The copiers read model: one row per live copier (a deleted copier's row is removed).
import { sql } from 'kysely';
import { copierEventTypes, type CopierEvent } from '../../domain/copier/events.js';
import type { CopierSettings } from '../../domain/copier/settings.js';
import type { Projection } from '../projection.js';

export const copiersProjection: Projection = {
  name: 'copiers',
  version: 2,
  handles: copierEventTypes,
  tables: ['copiers'],
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
      updated timestamptz NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'copiers')} (project_id, to_account_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'copiers')} (project_id, from_account_id)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as CopierEvent;
    switch (event.type) {
      case 'CopierCreated': {
        const d = event.data;
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
