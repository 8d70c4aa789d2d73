// FeatureMaintenanceWindowDTO (spec: account feature; enabled, maintenanceAction, closePositionStrategy,
// affectedAccountIds, positionsClosedForAccounts, entryActionsExecuted, affectedCopierStates
// (CopierStateDTO list)); the reference ("a maintenance window (project)") gives startTime, endTime,
// closeAllPositions, accountType and broker. Our reading: a one-off window of time (startTime to
// endTime, e.g. a broker's announced maintenance) during which the copiers of the affected accounts stop
// copying and, when asked, their positions are closed; afterwards each copier gets back the state it had.
//   - Scope: the spec attaches the window to an account, the reference to a project; both are taken.
//   - Affected: on an account, that account and the accounts of affectedAccountIds (of the same
//     project; others are ignored); on a project, every account of the project when the window starts
//     (affectedAccountIds adds nothing then). Of them, those of `accountType` (when set) whose
//     loginServer matches the `broker` regular expression (when set; whole name, case-insensitive);
//     their copiers, as slave or as master. Windows of both scopes all run (several may be attached),
//     each recording and giving back the modes it found when it started.
//   - closeAllPositions true (the reference) is closePositionStrategy CLOSE_ALL.
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
import { accountTypes } from '../account/enums.js';
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
  startTime: Instant('ISO 8601: when the window starts and its entry actions run; required'),
  endTime: Instant('ISO 8601: when the window ends and the copiers get their states back; after startTime, at most 31 days later; required'),
  closeAllPositions: Type.Boolean({
    description:
      'true: every open position and pending order of the affected accounts is closed when the window starts (closePositionStrategy CLOSE_ALL); default false',
  }),
  accountType: Type.Optional(
    Type.Object(
      {
        id: Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: 'an account type id (GET /types/accountTypes)' }),
        name: Type.Optional(Type.String({ readOnly: true, description: 'ignored when sent' })),
      },
      {
        additionalProperties: false,
        description: 'only accounts of this type are affected; left out (default): every type. An unknown id gives 400 [VALIDATION_FAILED]',
      },
    ),
  ),
  broker: Type.Optional(
    Type.String({
      minLength: 0,
      maxLength: 255,
      description:
        "only accounts whose loginServer matches this regular expression are affected, the whole name, case-insensitive ('ICMarkets.*'); '.*', \"\" or left out: every broker. A pattern that does not compile, or that quantifies a group ('(a+)+': too slow to match), gives 400 [VALIDATION_FAILED]",
    }),
  ),
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
        'what is closed when the window starts: NONE (default); CLOSE_COPIED the positions and pending orders the copy engine opened on the affected accounts; CLOSE_ALL every open position and pending order of the affected accounts (closeAllPositions true means CLOSE_ALL whatever this says)',
    },
  ),
  affectedAccountIds: Type.Array(Uuid, {
    maxItems: 100,
    uniqueItems: true,
    description:
      'further accounts of the project the window applies to, beside the account it is attached to; default none. Unknown or deleted accounts are ignored; on a project window (which affects every account of the project) it adds nothing',
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
  scopes: ['account', 'project'],
  multiple: true,
  members,
  defaults: {
    enabled: true,
    closeAllPositions: false,
    maintenanceAction: 'MONITOR_ONLY',
    closePositionStrategy: 'NONE',
    affectedAccountIds: [],
    positionsClosedForAccounts: [],
    entryActionsExecuted: false,
    affectedCopierStates: [],
  },
  stateMembers: MAINTENANCE_STATE_MEMBERS,
  description:
    "A one-off maintenance window from startTime to endTime (a broker's announced maintenance). Affected: attached to an account, this account and the accounts of affectedAccountIds (same project); attached to a project (the reference's scope), every account of the project that exists when the window starts. Of them, those of accountType (when set) whose loginServer matches the broker regular expression (when set; whole name, case-insensitive), with every copier to or from them. When the window starts, the copiers' active and monitorOnly are recorded (affectedCopierStates), maintenanceAction applies to the active ones (MONITOR_ONLY: monitor-only; DEACTIVATE_COPIERS: inactive; NONE: unchanged), and closePositionStrategy runs per affected account (NONE; CLOSE_COPIED: the positions and pending orders the copy engine opened there; CLOSE_ALL: all of them, also with closeAllPositions true; positionsClosedForAccounts). An account that is not connected, or a market that is closed, is tried again every second until the window ends; entryActionsExecuted is true once everything is done. When the window ends, or the feature is disabled, removed or given other times, every recorded copier gets back its active and monitorOnly (whatever was changed meanwhile; deleted copiers are skipped). Every step is recorded as an event first, so a restart in the middle finishes the window. The three state members are read-only. Several windows may be attached to an account or a project; each runs on its own.",
  check: (s) => {
    const start = Date.parse(s.startTime);
    const end = Date.parse(s.endTime);
    if (!(end > start)) return `endTime ${s.endTime} must be after startTime ${s.startTime}`;
    if (end - start > MAX_WINDOW_DAYS * 86_400_000) return `the window lasts more than ${MAX_WINDOW_DAYS} days`;
    if (s.accountType && !accountTypes.some((t) => t.id === s.accountType!.id)) return `accountType ${s.accountType.id} is no account type`;
    return brokerProblem(s.broker);
  },
};

/** The close strategy in force: closeAllPositions true is CLOSE_ALL. */
export const closeStrategyOf = (s: Pick<MaintenanceWindowSettings, 'closeAllPositions' | 'closePositionStrategy'>): ClosePositionStrategy =>
  s.closeAllPositions ? 'CLOSE_ALL' : s.closePositionStrategy;

/** A group followed by a quantifier: nested repetition, which a backtracking matcher may take exponential time on. */
const QUANTIFIED_GROUP = /\)(?:[*+?]|\{\d)/;

/** Why a broker pattern is refused, or null. */
export const brokerProblem = (broker: string | undefined): string | null => {
  if (broker === undefined || broker === '') return null;
  if (QUANTIFIED_GROUP.test(broker))
    return `broker ${broker}: a quantified group is not taken (too slow to match); write the alternatives without repeating a group`;
  try {
    new RegExp(broker, 'i');
  } catch {
    return `broker ${broker} is no regular expression`;
  }
  return null;
};

/** Whether an account of this type and login server is affected by the window's accountType and broker. */
export const accountMatches = (
  s: Pick<MaintenanceWindowSettings, 'accountType' | 'broker'>,
  account: { accountTypeId: number; loginServer: string },
): boolean => {
  if (s.accountType && s.accountType.id !== account.accountTypeId) return false;
  if (s.broker === undefined || s.broker === '') return true;
  return new RegExp(`^(?:${s.broker})$`, 'i').test(account.loginServer);
};

/** A copier's mode as recorded when a window starts, with the account the copier lives under. */
export interface RecordedCopierState {
  readonly copierId: string;
  readonly toAccountId: string;
  readonly active: boolean;
  readonly monitorOnly: boolean;
}

/** Names one window of the feature: a change of its times is another window. */
export const windowKeyOf = (s: Pick<MaintenanceWindowSettings, 'startTime' | 'endTime'>): string =>
  `${new Date(s.startTime).toISOString()}/${new Date(s.endTime).toISOString()}`;

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
  const inside = setting !== null && setting.enabled && Date.parse(setting.startTime) <= now && now < Date.parse(setting.endTime);
  if (!progress?.entered) return inside ? 'enter' : 'none';
  if (progress.exited) return 'none';
  if (!inside) return 'exit';
  if (progress.entryCompleted) return 'none';
  if (!progress.copiersSwitched) return 'switchCopiers';
  const strategy = closeStrategyOf(setting!);
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
