// Queries of the dashboards read model.
import type { Kysely } from 'kysely';
import type { Widget } from '../../domain/dashboard/layout.js';
import type { ReadModels } from '../schema.js';

export interface DashboardRow {
  readonly id: string;
  readonly project_id: string;
  readonly position: number;
  readonly name: string;
  readonly widgets: readonly Widget[];
  readonly duplicate_of: string | null;
  readonly created: Date;
  readonly updated: Date;
}

/** The project's dashboards in the project's order. */
export const projectDashboards = (db: Kysely<ReadModels>, projectId: string): Promise<DashboardRow[]> =>
  db.selectFrom('dashboards').selectAll().where('project_id', '=', projectId).orderBy('position').orderBy('id').execute() as Promise<DashboardRow[]>;

export const findDashboard = (db: Kysely<ReadModels>, projectId: string, dashboardId: string): Promise<DashboardRow | undefined> =>
  db.selectFrom('dashboards').selectAll().where('project_id', '=', projectId).where('id', '=', dashboardId).executeTakeFirst() as Promise<
    DashboardRow | undefined
  >;
