// Queries of the maintenance windows read model.
import type { Kysely, Selectable } from 'kysely';
import {
  MAINTENANCE_WINDOW,
  type MaintenanceWindowSettings,
  type RecordedCopierState,
  windowKeyOf,
  type WindowProgress,
} from '../../domain/accountFeatures/maintenanceWindow.js';
import type { FeatureRow } from '../features/queries.js';
import type { MaintenanceWindowsTable, ReadModels } from '../schema.js';

export type MaintenanceWindowRow = Selectable<MaintenanceWindowsTable>;

export interface WindowView extends WindowProgress {
  readonly featureId: string;
  readonly windowKey: string;
  /** null for a project's window. */
  readonly accountId: string | null;
  readonly projectId: string;
  readonly affectedAccountIds: readonly string[];
  readonly copierStates: readonly RecordedCopierState[];
}

export const windowViewOf = (row: MaintenanceWindowRow): WindowView => ({
  featureId: row.feature_id,
  windowKey: row.window_key,
  accountId: row.account_id,
  projectId: row.project_id,
  entered: true,
  copiersSwitched: row.copiers_switched,
  closedFor: row.closed_for as string[],
  entryCompleted: row.entry_completed,
  exited: row.exited,
  affectedAccountIds: row.affected_account_ids as string[],
  copierStates: row.copier_states as RecordedCopierState[],
});

/** The windows of these features, and every window entered and not yet exited. */
export const maintenanceWindows = async (db: Kysely<ReadModels>, featureIds: readonly string[]): Promise<WindowView[]> => {
  const rows = await db
    .selectFrom('maintenance_windows')
    .selectAll()
    .where((eb) => eb.or([eb('exited', '=', false), ...(featureIds.length ? [eb('feature_id', 'in', [...featureIds])] : [])]))
    .execute();
  return rows.map(windowViewOf);
};

/**
 * Feature rows as answered: a maintenance window's read-only members show the state of its current
 * window (positionsClosedForAccounts, entryActionsExecuted, affectedCopierStates); other rows pass.
 */
export const withMaintenanceState = async (db: Kysely<ReadModels>, rows: FeatureRow[]): Promise<FeatureRow[]> => {
  const windows = rows.filter((r) => r.type === MAINTENANCE_WINDOW);
  if (windows.length === 0) return rows;
  const states = await db
    .selectFrom('maintenance_windows')
    .selectAll()
    .where(
      'feature_id',
      'in',
      windows.map((r) => r.id),
    )
    .execute();
  return rows.map((row) => {
    if (row.type !== MAINTENANCE_WINDOW) return row;
    const setting = row.setting as unknown as MaintenanceWindowSettings;
    const state = states.find((s) => s.feature_id === row.id && s.window_key === windowKeyOf(setting));
    const view = state ? windowViewOf(state) : null;
    return {
      ...row,
      setting: {
        ...row.setting,
        positionsClosedForAccounts: view ? [...view.closedFor] : [],
        entryActionsExecuted: view?.entryCompleted ?? false,
        affectedCopierStates: view ? view.copierStates.map(({ copierId, active, monitorOnly }) => ({ copierId, active, monitorOnly })) : [],
      },
    };
  });
};
