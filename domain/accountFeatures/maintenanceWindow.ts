// FeatureMaintenanceWindowDTO (spec: account feature; enabled, maintenanceAction, closePositionStrategy,
// affectedAccountIds, positionsClosedForAccounts, entryActionsExecuted, affectedCopierStates
// (CopierStateDTO list)). Our reading: a one-off window of time (startsAt to endsAt, e.g. a broker's
// announced maintenance) during which the copiers of the affected accounts stop copying and, when
// asked, their positions are closed; afterwards each copier gets back the state it had.
//   - Affected: the account the feature is attached to and the accounts of affectedAccountIds (of the
//     same project; others are ignored); their copiers, as slave or as master.
//   - Entry actions, when the window starts: the copiers' active and monitorOnly are recorded first
//     (affectedCopierStates), then maintenanceAction applies to the active ones (MONITOR_ONLY: they go
//     monitor-only; DEACTIVATE_COPIERS: inactive; NONE: unchanged), then closePositionStrategy (NONE;
//     CLOSE_COPIED: the copies the engine opened on the affected accounts; CLOSE_ALL: every open
//     position and pending order of theirs) per account (positionsClosedForAccounts). An account not
//     connected or a market closed is tried again every second until the window ends.
//     entryActionsExecuted turns true once all of it is done.
//   - Exit, at endsAt (or once the feature is disabled, removed, or moved to other times): every
//     recorded copier gets back its active and monitorOnly, whatever happened to it meanwhile; a
//     deleted copier is skipped.
//   - Each step is an event of the stream maintenance-<featureId> before or right after it is carried
//     out, and each is safe to repeat, so a restart halfway through finishes the window.
// The three state members are read-only: values sent are ignored; answers show the window's state.
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';

export const MAINTENANCE_WINDOW = 'FeatureMaintenanceWindowDTO';
/** A window may last at most this long. */
export const MAX_WINDOW_DAYS = 31;

export const MAINTENANCE_ACTIONS = ['MONITOR_ONLY', 'DEACTIVATE_COPIERS', 'NONE'] as const;
export type MaintenanceAction = (typeof MAINTENANCE_ACTIONS)[number];
export const CLOSE_POSITION_STRATEGIES = ['NONE', 'CLOSE_COPIED', 'CLOSE_ALL'] as const;
export type ClosePositionStrategy = (typeof CLOSE_POSITION_STRATEGIES)[number];

const Uuid = Type.String({ format: 'uuid', description: 'UUID' });
const Instant = (description: string) => Type.String({ format: 'date-time', description });

export const CopierStateDTO = Type.Object(
  {
    copierId: Uuid,
    active: Type.Boolean({ description: 'CopierDTO.active when the window started' }),
    monitorOnly: Type.Boolean({ description: 'CopierDTO.monitorOnly when the window started' }),
  },
  {
    $id: 'CopierStateDTO',
    additionalProperties: false,
    description: "A copier's mode (spec CopierStateDTO: active, monitorOnly), with the copier it belongs to",
  },
);

const members = Type.Object({
  enabled: Type.Boolean({ description: 'false: the window does nothing (an active one ends at once and restores the copiers); default true' }),
  startsAt: Instant('ISO 8601: when the window starts and its entry actions run'),
  endsAt: Instant('ISO 8601: when the window ends and the copiers get their states back; after startsAt, at most 31 days later'),
  maintenanceAction: Type.Union(
    MAINTENANCE_ACTIONS.map((a) => Type.Literal(a)),
    {
      description:
        'what happens to the affected copiers that are active when the window starts: MONITOR_ONLY (default) makes them monitor-only, DEACTIVATE_COPIERS inactive, NONE leaves them',
    },
  ),
  closePositionStrategy: Type.Union(
    CLOSE_POSITION_STRATEGIES.map((a) => Type.Literal(a)),
    {
      description:
        'what is closed when the window starts: NONE (default); CLOSE_COPIED the positions and pending orders the copy engine opened on the affected accounts; CLOSE_ALL every open position and pending order of the affected accounts',
    },
  ),
  affectedAccountIds: Type.Array(Uuid, {
    maxItems: 100,
    uniqueItems: true,
    description:
      'further accounts of the project the window applies to, beside the account it is attached to; default none. Unknown or deleted accounts are ignored',
  }),
  positionsClosedForAccounts: Type.Array(Uuid, {
    description: 'read-only: the affected accounts whose positions the window closed so far; values sent are ignored',
  }),
  entryActionsExecuted: Type.Boolean({
    description: 'read-only: true once the entry actions of the window (copier modes and closes) are done; values sent are ignored',
  }),
  affectedCopierStates: Type.Array(CopierStateDTO, {
    description:
      'read-only: the affected copiers with the active and monitorOnly they had when the window started, given back when it ends; values sent are ignored',
  }),
});
export type MaintenanceWindowSettings = Static<typeof members>;

export const MAINTENANCE_STATE_MEMBERS = ['positionsClosedForAccounts', 'entryActionsExecuted', 'affectedCopierStates'] as const;

export const maintenanceWindowFeature: FeatureDefinition<MaintenanceWindowSettings> = {
  type: MAINTENANCE_WINDOW,
  scopes: ['account'],
  multiple: true,
  members,
  defaults: {
    enabled: true,
    maintenanceAction: 'MONITOR_ONLY',
    closePositionStrategy: 'NONE',
    affectedAccountIds: [],
    positionsClosedForAccounts: [],
    entryActionsExecuted: false,
    affectedCopierStates: [],
  },
  stateMembers: MAINTENANCE_STATE_MEMBERS,
  description:
    "A one-off maintenance window from startsAt to endsAt (a broker's announced maintenance). Affected: this account and the accounts of affectedAccountIds (same project), with every copier to or from them. When the window starts, the copiers' active and monitorOnly are recorded (affectedCopierStates), maintenanceAction applies to the active ones (MONITOR_ONLY: monitor-only; DEACTIVATE_COPIERS: inactive; NONE: unchanged), and closePositionStrategy runs per affected account (NONE; CLOSE_COPIED: the positions and pending orders the copy engine opened there; CLOSE_ALL: all of them; positionsClosedForAccounts). An account that is not connected, or a market that is closed, is tried again every second until the window ends; entryActionsExecuted is true once everything is done. When the window ends, or the feature is disabled, removed or given other times, every recorded copier gets back its active and monitorOnly (whatever was changed meanwhile; deleted copiers are skipped). Every step is recorded as an event first, so a restart in the middle finishes the window. The three state members are read-only. Several windows may be attached to an account.",
  check: (s) => {
    const start = Date.parse(s.startsAt);
    const end = Date.parse(s.endsAt);
    if (!(end > start)) return `endsAt ${s.endsAt} must be after startsAt ${s.startsAt}`;
    if (end - start > MAX_WINDOW_DAYS * 86_400_000) return `the window lasts more than ${MAX_WINDOW_DAYS} days`;
    return null;
  },
};

/** A copier's mode as recorded when a window starts, with the account the copier lives under. */
export interface RecordedCopierState {
  readonly copierId: string;
  readonly toAccountId: string;
  readonly active: boolean;
  readonly monitorOnly: boolean;
}

/** Names one window of the feature: a change of its times is another window. */
export const windowKeyOf = (s: Pick<MaintenanceWindowSettings, 'startsAt' | 'endsAt'>): string =>
  `${new Date(s.startsAt).toISOString()}/${new Date(s.endsAt).toISOString()}`;

/** Where one window stands, as its events tell. */
export interface WindowProgress {
  readonly entered: boolean;
  readonly copiersSwitched: boolean;
  readonly closedFor: readonly string[];
  readonly entryCompleted: boolean;
  readonly exited: boolean;
}

export type MaintenanceStep = 'enter' | 'switchCopiers' | 'closePositions' | 'completeEntry' | 'exit' | 'none';

/**
 * What the window needs next at `now`. `setting` null: the feature is gone, or `progress` belongs to
 * another window than the feature's current one. `affected` are the accounts whose positions close.
 */
export const maintenanceStep = (
  setting: MaintenanceWindowSettings | null,
  progress: WindowProgress | null,
  affected: readonly string[],
  now: number,
): MaintenanceStep => {
  const inside = setting !== null && setting.enabled && Date.parse(setting.startsAt) <= now && now < Date.parse(setting.endsAt);
  if (!progress?.entered) return inside ? 'enter' : 'none';
  if (progress.exited) return 'none';
  if (!inside) return 'exit';
  if (progress.entryCompleted) return 'none';
  if (!progress.copiersSwitched) return 'switchCopiers';
  const strategy = setting!.closePositionStrategy;
  if (strategy !== 'NONE' && affected.some((id) => !progress.closedFor.includes(id))) return 'closePositions';
  return 'completeEntry';
};

/** The change maintenanceAction makes to a copier in this state, or null when none. */
export const entryChange = (
  action: MaintenanceAction,
  state: { readonly active: boolean; readonly monitorOnly: boolean },
): { active?: boolean; monitorOnly?: boolean } | null => {
  if (!state.active) return null;
  if (action === 'MONITOR_ONLY') return state.monitorOnly ? null : { monitorOnly: true };
  if (action === 'DEACTIVATE_COPIERS') return { active: false };
  return null;
};
