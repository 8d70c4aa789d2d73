// A maintenance window feature's windows: each is entered once (the copiers' modes recorded then are
// the ones given back), its entry steps follow in order, and it is exited once. A step repeated after a
// restart records nothing again.
import type { RecordedCopierState, WindowProgress } from '../accountFeatures/maintenanceWindow.js';
import type { Decider } from '../shared/command.js';
import { illegalState } from '../shared/errors.js';
import type { MaintenanceCommand } from './commands.js';
import type { MaintenanceEvent } from './events.js';

export interface WindowState extends WindowProgress {
  readonly affectedAccountIds: readonly string[];
  readonly copierStates: readonly RecordedCopierState[];
}

export interface MaintenanceWindows {
  readonly windows: Readonly<Record<string, WindowState>>;
}

export const initialState: MaintenanceWindows = { windows: {} };

const open = (state: MaintenanceWindows, windowKey: string): WindowState => {
  const window = state.windows[windowKey];
  if (!window?.entered) throw illegalState('[MAINTENANCE_WINDOW_NOT_ENTERED]', `maintenance window ${windowKey} has not started`);
  return window;
};

export const decide = (command: MaintenanceCommand, state: MaintenanceWindows): MaintenanceEvent[] => {
  const { featureId, windowKey, accountId } = command.data;
  const at = command.metadata.now;
  const base = { featureId, windowKey, accountId, at };
  switch (command.type) {
    case 'EnterMaintenanceWindow': {
      if (state.windows[windowKey]?.entered) return [];
      const { projectId, startsAt, endsAt, maintenanceAction, closePositionStrategy, affectedAccountIds, copierStates } = command.data;
      return [
        {
          type: 'MaintenanceWindowEntered',
          data: { ...base, projectId, startsAt, endsAt, maintenanceAction, closePositionStrategy, affectedAccountIds, copierStates },
        },
      ];
    }
    case 'RecordCopiersSwitched': {
      const window = open(state, windowKey);
      if (window.copiersSwitched || window.exited) return [];
      return [{ type: 'MaintenanceWindowCopiersSwitched', data: { ...base, switched: command.data.switched } }];
    }
    case 'RecordPositionsClosed': {
      const window = open(state, windowKey);
      if (window.exited || window.closedFor.includes(command.data.closedAccountId)) return [];
      return [{ type: 'MaintenanceWindowPositionsClosed', data: { ...base, closedAccountId: command.data.closedAccountId, closed: command.data.closed } }];
    }
    case 'CompleteMaintenanceEntry': {
      const window = open(state, windowKey);
      if (window.entryCompleted || window.exited) return [];
      return [{ type: 'MaintenanceWindowEntryCompleted', data: base }];
    }
    case 'ExitMaintenanceWindow': {
      const window = open(state, windowKey);
      if (window.exited) return [];
      return [{ type: 'MaintenanceWindowExited', data: { ...base, restored: command.data.restored } }];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

const withWindow = (state: MaintenanceWindows, key: string, change: (w: WindowState) => WindowState): MaintenanceWindows => {
  const window = state.windows[key];
  return window ? { windows: { ...state.windows, [key]: change(window) } } : state;
};

export const evolve = (state: MaintenanceWindows, event: MaintenanceEvent): MaintenanceWindows => {
  const key = event.data.windowKey;
  switch (event.type) {
    case 'MaintenanceWindowEntered':
      return {
        windows: {
          ...state.windows,
          [key]: {
            entered: true,
            copiersSwitched: false,
            closedFor: [],
            entryCompleted: false,
            exited: false,
            affectedAccountIds: event.data.affectedAccountIds,
            copierStates: event.data.copierStates,
          },
        },
      };
    case 'MaintenanceWindowCopiersSwitched':
      return withWindow(state, key, (w) => ({ ...w, copiersSwitched: true }));
    case 'MaintenanceWindowPositionsClosed':
      return withWindow(state, key, (w) => ({ ...w, closedFor: [...w.closedFor, event.data.closedAccountId] }));
    case 'MaintenanceWindowEntryCompleted':
      return withWindow(state, key, (w) => ({ ...w, entryCompleted: true }));
    case 'MaintenanceWindowExited':
      return withWindow(state, key, (w) => ({ ...w, exited: true }));
    default:
      return state;
  }
};

export const maintenanceDecider: Decider<MaintenanceCommand, MaintenanceEvent, MaintenanceWindows> = { decide, evolve, initialState };
