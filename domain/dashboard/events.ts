// Events of a project's dashboards (stream `dashboards-<projectId>`, spec "Dashboards"): one stream per
// project, so the order of the dashboards and the per-project limit are the aggregate's to keep.
import type { DashboardLayout } from './layout.js';

export interface PlacedDashboard {
  readonly dashboardId: string;
  readonly layout: DashboardLayout;
}

export type DashboardEvent =
  | {
      type: 'DashboardCreated';
      /** `duplicateOf`: the dashboard it copies (POST .../duplicate), null otherwise. Added last in the order. */
      data: { projectId: string; dashboardId: string; layout: DashboardLayout; duplicateOf: string | null; at: string };
    }
  | { type: 'DashboardChanged'; data: { projectId: string; dashboardId: string; layout: DashboardLayout; at: string } }
  | { type: 'DashboardDeleted'; data: { projectId: string; dashboardId: string; at: string } }
  | { type: 'DashboardsReordered'; data: { projectId: string; order: readonly string[]; at: string } }
  /** The whole storage replaced (PUT .../dashboards/bulk): these dashboards, in this order, and no others. */
  | { type: 'DashboardsReplaced'; data: { projectId: string; dashboards: readonly PlacedDashboard[]; at: string } };

export type DashboardEventType = DashboardEvent['type'];

export const dashboardEventTypes: readonly DashboardEventType[] = [
  'DashboardCreated',
  'DashboardChanged',
  'DashboardDeleted',
  'DashboardsReordered',
  'DashboardsReplaced',
];

export const dashboardStream = (projectId: string): string => `dashboards-${projectId}`;
