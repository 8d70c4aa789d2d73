// The projects read model (reference ProjectDTO): each project's name, owner, settings, whether it is
// dedicated, and when it was deleted (a deleted project stays, for the operator's list and the audit).
import { sql } from 'kysely';
import { projectEventTypes, type ProjectEvent } from '../../domain/project/events.js';
import { defaultProjectSettings } from '../../domain/project/settings.js';
import type { Projection } from '../projection.js';

export const projectsProjection: Projection = {
  name: 'projects',
  // 2: settings (billing address, currency), dedicated, updated.
  // 3: deleted.
  version: 3,
  handles: projectEventTypes,
  tables: ['projects'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'projects')} (
      id uuid PRIMARY KEY, name text NOT NULL, owner text, settings jsonb NOT NULL, dedicated boolean NOT NULL,
      created timestamptz NOT NULL, updated timestamptz NOT NULL, deleted timestamptz)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as ProjectEvent;
    switch (event.type) {
      case 'ProjectCreated': {
        const { projectId, name, owner, dedicated, at } = event.data;
        await db
          .insertInto('projects')
          .values({
            id: projectId,
            name,
            owner,
            settings: JSON.stringify(defaultProjectSettings(name)),
            dedicated: dedicated ?? false,
            created: at,
            updated: at,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'ProjectUpdated': {
        const { projectId, settings, at } = event.data;
        await db
          .updateTable('projects')
          .set({ name: settings.name, settings: JSON.stringify(settings), updated: at })
          .where('id', '=', projectId)
          .execute();
        return;
      }
      case 'ProjectDeleted': {
        const { projectId, at } = event.data;
        await db.updateTable('projects').set({ deleted: at, updated: at }).where('id', '=', projectId).execute();
        return;
      }
    }
  },
};
