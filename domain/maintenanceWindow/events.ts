// Events of a maintenance window feature (stream `maintenance-<featureId>`, spec
// FeatureMaintenanceWindowDTO): per window (its key: startsAt/endsAt), entered with the copiers'
// recorded modes, copiers switched, positions closed per account, entry completed, exited with the
// modes given back. See domain/accountFeatures/maintenanceWindow.ts for the rules.
import type { ClosePositionStrategy, MaintenanceAction, RecordedCopierState } from '../accountFeatures/maintenanceWindow.js';

interface Base {
  readonly featureId: string;
  readonly windowKey: string;
  /** The account the feature is attached to; null for a project's window. */
  readonly accountId: string | null;
  readonly at: string;
}

/** What a window starts with: its setting then, and what it affects. */
export interface WindowEntry {
  readonly projectId: string;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly maintenanceAction: MaintenanceAction;
  readonly closePositionStrategy: ClosePositionStrategy;
  /** This account and the other affected accounts of the project, as resolved when the window started. */
  readonly affectedAccountIds: readonly string[];
  /** Every affected copier's mode before anything changed. */
  readonly copierStates: readonly RecordedCopierState[];
}

export type MaintenanceEvent =
  | { type: 'MaintenanceWindowEntered'; data: Base & WindowEntry }
  | { type: 'MaintenanceWindowCopiersSwitched'; data: Base & { readonly switched: readonly string[] } }
  | { type: 'MaintenanceWindowPositionsClosed'; data: Base & { readonly closedAccountId: string; readonly closed: number } }
  | { type: 'MaintenanceWindowEntryCompleted'; data: Base }
  | { type: 'MaintenanceWindowExited'; data: Base & { readonly restored: readonly string[] } };

export type MaintenanceEventType = MaintenanceEvent['type'];
export const maintenanceEventTypes: readonly MaintenanceEventType[] = [
  'MaintenanceWindowEntered',
  'MaintenanceWindowCopiersSwitched',
  'MaintenanceWindowPositionsClosed',
  'MaintenanceWindowEntryCompleted',
  'MaintenanceWindowExited',
];

export const MAINTENANCE_STREAM_PREFIX = 'maintenance-';
export const maintenanceStream = (featureId: string): string => `${MAINTENANCE_STREAM_PREFIX}${featureId}`;
