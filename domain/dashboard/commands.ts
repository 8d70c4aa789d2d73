import type { CommandMetadata } from '../shared/command.js';
import type { PlacedDashboard } from './events.js';
import type { DashboardLayout } from './layout.js';

export type DashboardCommand =
  | { type: 'CreateDashboard'; data: { projectId: string; dashboardId: string; layout: DashboardLayout }; metadata: CommandMetadata }
  | { type: 'ChangeDashboard'; data: { projectId: string; dashboardId: string; layout: DashboardLayout }; metadata: CommandMetadata }
  | { type: 'DeleteDashboard'; data: { projectId: string; dashboardId: string }; metadata: CommandMetadata }
  | { type: 'DuplicateDashboard'; data: { projectId: string; dashboardId: string; newDashboardId: string; name: string | null }; metadata: CommandMetadata }
  | { type: 'ReorderDashboards'; data: { projectId: string; order: readonly string[] }; metadata: CommandMetadata }
  /** `named`: the client named this id (it must be one of the project's dashboards); otherwise the id is new. */
  | { type: 'ReplaceDashboards'; data: { projectId: string; dashboards: readonly (PlacedDashboard & { named: boolean })[] }; metadata: CommandMetadata };
