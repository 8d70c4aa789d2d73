import { sql } from 'kysely';
import { projectEventTypes, type ProjectEvent } from '../../domain/project/events.js';
import type { Projection } from '../projection.js';

export const projectsProjection: Projection = {
  name: 'projects',
  version: 1,
  handles: projectEventTypes,
  tables: ['projects'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'projects')} (
      id uuid PRIMARY KEY, name text NOT NULL, owner text, created timestamptz NOT NULL)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as ProjectEvent;
    if (event.type === 'ProjectCreated') {
      const { projectId, name, owner, at } = event.data;
      await db
        .insertInto('projects')
        .values({ id: projectId, name, owner, created: at })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    }
  },
};
