// The dashboards read model (spec "Dashboards"): every project's dashboards with their position in the
// project's order, their layout (name, widgets with their free-form configuration) and times.
import { sql } from 'kysely';
import { dashboardEventTypes, type DashboardEvent } from '../../domain/dashboard/events.js';
import type { Projection } from '../projection.js';

export const dashboardsProjection: Projection = {
  name: 'dashboards',
  version: 1,
  handles: dashboardEventTypes,
  tables: ['dashboards'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'dashboards')} (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      position integer NOT NULL,
      name text NOT NULL,
      widgets jsonb NOT NULL,
      duplicate_of uuid,
      created timestamptz NOT NULL,
      updated timestamptz NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'dashboards')} (project_id, position)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as DashboardEvent;
    switch (event.type) {
      case 'DashboardCreated': {
        const { projectId, dashboardId, layout, duplicateOf, at } = event.data;
        const count = await db
          .selectFrom('dashboards')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('project_id', '=', projectId)
          .executeTakeFirstOrThrow();
        await db
          .insertInto('dashboards')
          .values({
            id: dashboardId,
            project_id: projectId,
            position: Number(count.n),
            name: layout.name,
            widgets: JSON.stringify(layout.widgets),
            duplicate_of: duplicateOf,
            created: at,
            updated: at,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'DashboardChanged': {
        const { dashboardId, layout, at } = event.data;
        await db
          .updateTable('dashboards')
          .set({ name: layout.name, widgets: JSON.stringify(layout.widgets), updated: at })
          .where('id', '=', dashboardId)
          .execute();
        return;
      }
      case 'DashboardDeleted': {
        const { projectId, dashboardId } = event.data;
        const gone = await db.deleteFrom('dashboards').where('id', '=', dashboardId).returning('position').executeTakeFirst();
        if (gone) {
          await db
            .updateTable('dashboards')
            .set((eb) => ({ position: eb('position', '-', 1) }))
            .where('project_id', '=', projectId)
            .where('position', '>', gone.position)
            .execute();
        }
        return;
      }
      case 'DashboardsReordered': {
        const { projectId, order, at } = event.data;
        for (const [position, id] of order.entries()) {
          await db.updateTable('dashboards').set({ position, updated: at }).where('project_id', '=', projectId).where('id', '=', id).execute();
        }
        return;
      }
      case 'DashboardsReplaced': {
        const { projectId, dashboards, at } = event.data;
        const before = await db.selectFrom('dashboards').select(['id', 'created']).where('project_id', '=', projectId).execute();
        const created = new Map(before.map((row) => [row.id, row.created]));
        await db.deleteFrom('dashboards').where('project_id', '=', projectId).execute();
        if (dashboards.length === 0) return;
        await db
          .insertInto('dashboards')
          .values(
            dashboards.map((d, position) => ({
              id: d.dashboardId,
              project_id: projectId,
              position,
              name: d.layout.name,
              widgets: JSON.stringify(d.layout.widgets),
              duplicate_of: null,
              created: created.get(d.dashboardId) ?? at,
              updated: at,
            })),
          )
          .execute();
        return;
      }
    }
  },
};
