import type { CommandMetadata } from '../shared/command.js';
import type { WindowEntry } from './events.js';

interface Target {
  readonly featureId: string;
  readonly windowKey: string;
  /** The account the feature is attached to; null for a project's window. */
  readonly accountId: string | null;
}

export type MaintenanceCommand =
  | { type: 'EnterMaintenanceWindow'; data: Target & WindowEntry; metadata: CommandMetadata }
  | { type: 'RecordCopiersSwitched'; data: Target & { readonly switched: readonly string[] }; metadata: CommandMetadata }
  | { type: 'RecordPositionsClosed'; data: Target & { readonly closedAccountId: string; readonly closed: number }; metadata: CommandMetadata }
  | { type: 'CompleteMaintenanceEntry'; data: Target; metadata: CommandMetadata }
  | { type: 'ExitMaintenanceWindow'; data: Target & { readonly restored: readonly string[] }; metadata: CommandMetadata };
