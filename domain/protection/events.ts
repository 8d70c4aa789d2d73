// Events of an account's protection (stream `protection-<accountId>`): what the protection monitor
// (engine/protection) saw and decided for the account's risk limits and profit targets, and the resets
// asked for through the API. The period references are recorded here because equity at a period start
// cannot be worked out from the history afterwards.
import type { PeriodUnit } from '../analytics/periods.js';
import type { RuleKind } from './rules.js';

/** How a trigger stops the account: no new copies, and maybe closing its positions. */
export type ProtectionAction = 'STOP_COPYING' | 'CLOSE_ALL';

/** LIMIT, FALLBACK: risk limits; TARGET: a profit target; LOSS_LIMIT: the overall target's loss limit. */
export type TriggerLevel = 'LIMIT' | 'FALLBACK' | 'TARGET' | 'LOSS_LIMIT';

export type ResetReason = 'API' | 'BALANCE_BELOW' | 'BALANCE_CHANGED';
export type ClearReason = 'NEXT_PERIOD' | 'RULE_REMOVED';

export interface ReferenceData {
  readonly accountId: string;
  /** Names the period, reset or overall target the values are the start of (anchors.ts). */
  readonly anchor: string;
  readonly kind: 'PERIOD' | 'RESET' | 'OVERALL';
  /** RESET and OVERALL: the rule; PERIOD: null (shared by every rule of that period). */
  readonly ruleId: string | null;
  readonly unit: PeriodUnit | null;
  /** PERIOD and RESET: the periods it belongs to, `day` (TIME_ZONE) or `day@79200s` (a risk limit's resetTime); absent in events before it: the unit. */
  readonly family?: string | null;
  /** When what the values measure from began: the period start, the reset, or the first look at an overall target. */
  readonly start: string;
  /** PERIOD: its label in TIME_ZONE (2026-01-07, 2026-W02, 2026-01). */
  readonly label: string | null;
  readonly balance: number;
  readonly equity: number;
  readonly currency: string;
  /** When the monitor read the values; deposits and withdrawals after it move what is measured. */
  readonly observedAt: string;
  /** PERIOD: observed more than a minute after the period began (the service was down or the account offline). */
  readonly late: boolean;
}

export interface TriggerData {
  readonly accountId: string;
  /** `${ruleId}|${anchor}|${level}|${symbol or *}`: the same trigger is never recorded twice. */
  readonly triggerId: string;
  readonly ruleKind: RuleKind;
  readonly ruleId: string;
  /** The risk type's or the feature DTO's name. */
  readonly ruleType: string;
  readonly level: TriggerLevel;
  readonly anchor: string;
  /** Per-symbol overall targets: the symbol it locks; null = the whole account. */
  readonly symbol: string | null;
  /** The end of the period the trigger lasts for; null = until reset. */
  readonly until: string | null;
  readonly action: ProtectionAction;
  /** The loss (risk limits, loss limits) or profit (targets) measured, in the account currency or percent as `unit` says. */
  readonly measured: number;
  readonly threshold: number;
  readonly thresholdMember: string;
  readonly currency: string;
  readonly at: string;
  readonly message: string;
}

/** What a close while a target locks the account is about. */
export interface LockedCloseDecision {
  readonly accountId: string;
  readonly triggerId: string;
  readonly ruleId: string;
  readonly ruleType: string;
  readonly positionId: string;
  readonly kind: 'position' | 'order';
  readonly symbol: string;
  readonly volume: number;
  /** Placed outside the service (no client order id of ours). */
  readonly outside: boolean;
  readonly until: string | null;
}

export type ProtectionEvent =
  | { type: 'ProtectionReferenceRecorded'; data: ReferenceData }
  /** The highest value of a measure since an anchor (trailing relative limits), recorded in steps. */
  | { type: 'ProtectionPeakRecorded'; data: { accountId: string; anchor: string; measure: string; value: number; at: string } }
  /** A risk limit's threshold is reached but must hold fulfillSeconds before it acts (the trigger waits under this id). */
  | {
      type: 'ProtectionThresholdReached';
      data: { accountId: string; triggerId: string; ruleId: string; level: TriggerLevel; fulfillSeconds: number; at: string; message: string };
    }
  /** It no longer is before fulfillSeconds passed (or its rule or period went): the wait starts over when it is reached again. */
  | { type: 'ProtectionThresholdReceded'; data: { accountId: string; triggerId: string; ruleId: string; since: string; at: string } }
  | { type: 'ProtectionTriggered'; data: TriggerData }
  | { type: 'ProtectionCleared'; data: { accountId: string; ruleId: string; triggerIds: readonly string[]; reason: ClearReason; at: string } }
  /** A rule starts over: its triggers end and it measures from `at` until its period ends. */
  | { type: 'ProtectionReset'; data: { accountId: string; ruleId: string; ruleKind: RuleKind; reason: ResetReason; at: string; message: string } }
  /**
   * A CLOSE_ALL trigger's positions are to be closed now: recorded before the first close is sent, at
   * the revision the monitor decided on, so a reset that got there first ends the trigger and nothing is
   * closed for it; a reset after it comes after the decision (its closes, under way, are not taken back).
   */
  | { type: 'ProtectionClosingDecided'; data: { accountId: string; triggerId: string; ruleId: string; at: string } }
  | {
      type: 'ProtectionPositionsClosed';
      data: { accountId: string; triggerId: string; ruleId: string; closedPositions: readonly string[]; cancelledOrders: readonly string[]; at: string };
    }
  /**
   * While a profit target locks the account in close mode (its positions closed when it locked), a
   * position or pending order appeared afterwards (placed outside the service): it is to be closed or
   * cancelled with `requestId`. Recorded before the close, so that a crash between the close and its
   * record is finished after the restart with the same client request id (the broker answers a repeat
   * with the first result), and recorded once.
   */
  | { type: 'ProtectionLockedCloseDecided'; data: LockedCloseDecision & { requestId: string; at: string } }
  /**
   * That position or pending order was closed or cancelled too (`gone`: it was no longer there when the
   * close was sent: closed by its own stop, by hand). Events recorded before the decision was have none.
   */
  | { type: 'ProtectionLockedPositionClosed'; data: LockedCloseDecision & { gone?: boolean; at: string } }
  | {
      type: 'ProtectionCloseFailed';
      /**
       * final: a close decided while locked, refused after the lock ended (its period, a reset, its rule
       * removed): not tried again. Absent (events before it, and refusals while locked): tried again.
       */
      data: { accountId: string; triggerId: string; ruleId: string; positionId: string; code: string; message: string; final?: boolean; at: string };
    };

export type ProtectionEventType = ProtectionEvent['type'];

export const protectionEventTypes: readonly ProtectionEventType[] = [
  'ProtectionReferenceRecorded',
  'ProtectionPeakRecorded',
  'ProtectionThresholdReached',
  'ProtectionThresholdReceded',
  'ProtectionTriggered',
  'ProtectionCleared',
  'ProtectionReset',
  'ProtectionClosingDecided',
  'ProtectionPositionsClosed',
  'ProtectionLockedCloseDecided',
  'ProtectionLockedPositionClosed',
  'ProtectionCloseFailed',
];

export const PROTECTION_STREAM_PREFIX = 'protection-';
export const protectionStream = (accountId: string): string => `${PROTECTION_STREAM_PREFIX}${accountId}`;

/**
 * What makes an event the same event: the monitor's event ids derive from it (uuid v5). It names what
 * the event is about and when it was decided, since a rule may legitimately meet the same state again
 * (a limit deactivated and activated within its period triggers again under the same trigger id). That
 * nothing is decided twice comes from deciding on the state folded from the stream and appending at
 * the revision decided on; the ids make a repeated append of one decision a no-op.
 */
export const protectionEventKey = (event: ProtectionEvent): string => {
  const d = event.data;
  switch (event.type) {
    case 'ProtectionReferenceRecorded':
      return `reference/${d.accountId}/${event.data.anchor}/${event.data.observedAt}`;
    case 'ProtectionPeakRecorded':
      return `peak/${d.accountId}/${event.data.anchor}/${event.data.measure}/${event.data.value}/${event.data.at}`;
    case 'ProtectionThresholdReached':
      return `reached/${d.accountId}/${event.data.triggerId}/${event.data.at}`;
    case 'ProtectionThresholdReceded':
      return `receded/${d.accountId}/${event.data.triggerId}/${event.data.at}`;
    case 'ProtectionTriggered':
      return `trigger/${d.accountId}/${event.data.triggerId}/${event.data.at}`;
    case 'ProtectionCleared':
      return `cleared/${d.accountId}/${event.data.reason}/${event.data.triggerIds.join(',')}/${event.data.at}`;
    case 'ProtectionReset':
      return `reset/${d.accountId}/${event.data.ruleId}/${event.data.reason}/${event.data.at}`;
    case 'ProtectionClosingDecided':
      return `closingDecided/${d.accountId}/${event.data.triggerId}/${event.data.at}`;
    case 'ProtectionPositionsClosed':
      return `closed/${d.accountId}/${event.data.triggerId}/${event.data.at}`;
    case 'ProtectionLockedCloseDecided':
      return `lockedDecided/${d.accountId}/${event.data.triggerId}/${event.data.positionId}`;
    case 'ProtectionLockedPositionClosed':
      return `lockedClosed/${d.accountId}/${event.data.triggerId}/${event.data.positionId}`;
    case 'ProtectionCloseFailed':
      return `closeFailed/${d.accountId}/${event.data.triggerId}/${event.data.positionId}/${event.data.code}/${event.data.at}`;
  }
};
