// The state of the protection aggregate: what the decider (decider.ts) folds its events into and the
// rules of evaluate.ts read. Its own module, so those two do not import each other.
import type { LockedCloseData } from './commands.js';
import type { ProtectionAction, TriggerLevel } from './events.js';
import type { RuleKind } from './rules.js';

export interface Reference {
  readonly anchor: string;
  readonly kind: 'PERIOD' | 'RESET' | 'OVERALL';
  readonly ruleId: string | null;
  readonly unit: string | null;
  /** PERIOD and RESET: the periods it belongs to (anchors.ts familyOf); OVERALL: null. */
  readonly family: string | null;
  readonly start: string;
  readonly balance: number;
  readonly equity: number;
  readonly observedAt: string;
}

export interface ActiveTrigger {
  readonly triggerId: string;
  readonly ruleId: string;
  readonly ruleKind: RuleKind;
  readonly ruleType: string;
  readonly level: TriggerLevel;
  readonly anchor: string;
  readonly symbol: string | null;
  readonly until: string | null;
  readonly action: ProtectionAction;
  /** CLOSE_ALL: the closing was decided (ProtectionClosingDecided): sent, and again each look until closed. Absent: not yet. */
  readonly closing?: boolean;
  /** CLOSE_ALL: the positions were closed (ProtectionPositionsClosed). */
  readonly closed: boolean;
  readonly at: string;
}

/**
 * A position or pending order that appeared while a profit target locks the account in close mode,
 * decided to be closed (ProtectionLockedCloseDecided, whose data it keeps) and not yet closed
 * (ProtectionLockedPositionClosed), with its lock and the last refusal.
 */
export interface LockedClose extends Omit<LockedCloseData, 'accountId'> {
  readonly ruleId: string;
  readonly ruleType: string;
  readonly until: string | null;
  /** The code of the last refusal logged for it (ProtectionCloseFailed); null: none. */
  readonly failed: string | null;
}

/** The key of a locked close in ProtectionState.lockedCloses. */
export const lockedCloseKey = (triggerId: string, positionId: string): string => `${triggerId}|${positionId}`;

export interface ProtectionState {
  /** By anchor key: the current period references and each rule's current reset or overall reference. */
  readonly references: Readonly<Record<string, Reference>>;
  /** By `${anchor}|${measure}`: the highest value recorded since the anchor. */
  readonly peaks: Readonly<Record<string, number>>;
  /** By rule id: the time of its last reset. */
  readonly resets: Readonly<Record<string, string>>;
  /** By trigger id: risk limit thresholds reached and waiting for their fulfillSeconds, since when. */
  readonly pending: Readonly<Record<string, { readonly ruleId: string; readonly since: string }>>;
  /** By trigger id: triggers not yet cleared or reset. */
  readonly triggers: Readonly<Record<string, ActiveTrigger>>;
  /** By lockedCloseKey: closes decided while a target locks the account, not finished yet (absent: none). */
  readonly lockedCloses?: Readonly<Record<string, LockedClose>>;
}

export const initialState: ProtectionState = { references: {}, peaks: {}, resets: {}, pending: {}, triggers: {}, lockedCloses: {} };
