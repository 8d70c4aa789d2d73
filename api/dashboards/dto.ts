// UserDashboardConfigDTO from the dashboards read model, and a dashboard's layout from a request.
import type { Static } from '@sinclair/typebox';
import type { DashboardLayout, Widget } from '../../domain/dashboard/layout.js';
import type { DashboardRow } from '../../projections/dashboards/queries.js';
import type { UserDashboardConfigWriteDTO, WidgetConfigWriteDTO } from './schemas.js';

export const toDashboardDTO = (row: DashboardRow) => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  position: row.position,
  widgets: row.widgets,
  duplicateOf: row.duplicate_of,
  created: new Date(row.created).toISOString(),
  updated: new Date(row.updated).toISOString(),
});

/** The members of a dashboard a client writes, as its DTO shows them (what a merge patch applies to). */
export const writableOf = (row: DashboardRow) => ({ name: row.name, widgets: row.widgets });

const widgetOf = (w: Static<typeof WidgetConfigWriteDTO>): Widget => ({
  id: w.id ?? crypto.randomUUID(),
  type: w.type,
  title: w.title ?? null,
  gridItem: w.gridItem,
  config: w.config === undefined ? null : w.config,
});

export const fromDashboardDTO = (body: Pick<Static<typeof UserDashboardConfigWriteDTO>, 'name' | 'widgets'>): DashboardLayout => ({
  name: body.name,
  widgets: (body.widgets ?? []).map(widgetOf),
});
