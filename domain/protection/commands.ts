import type { CommandMetadata } from '../shared/command.js';
import type { ProtectionRule, RuleKind } from './rules.js';

/** An open position or pending order of the account, as the rules need it. */
export interface BookItem {
  readonly id: string;
  readonly kind: 'position' | 'order';
  readonly symbol: string;
  readonly openTime: string;
  /** Positions: floating profit + swap + commission; orders: 0. */
  readonly result: number;
}

export interface ClosedTradeItem {
  readonly symbol: string;
  readonly openTime: string;
  readonly closeTime: string;
  /** profit + swap + commission */
  readonly result: number;
}

export interface BalanceOperationItem {
  readonly id: string;
  readonly time: string;
  /** Positive: a deposit; negative: a withdrawal. */
  readonly amount: number;
}

/** What the monitor read from the account's venue at `metadata.now`. */
export interface Observation {
  readonly balance: number;
  readonly equity: number;
  readonly currency: string;
  readonly book: readonly BookItem[];
  /** The two lists below hold everything from this time to now (historyStartFor says how far back). */
  readonly historyFrom: string;
  readonly balanceOperations: readonly BalanceOperationItem[];
  readonly closedTrades: readonly ClosedTradeItem[];
  /** Highest value of each measure since its anchor that the monitor saw while it ran, by `${anchor}|${measure}`. */
  readonly peaks: Readonly<Record<string, number>>;
}

export interface EvaluateData {
  readonly accountId: string;
  /** TIME_ZONE: where days, weeks and months begin. */
  readonly zone: string;
  /** Every active rule of the account; a trigger of a rule not listed is cleared. */
  readonly rules: readonly ProtectionRule[];
  /** null: the account has no venue session; only clears are decided. */
  readonly observation: Observation | null;
}

export type ProtectionCommand =
  | { type: 'EvaluateProtection'; data: EvaluateData; metadata: CommandMetadata }
  | { type: 'ResetProtection'; data: { accountId: string; ruleId: string; ruleKind: RuleKind; ruleType: string }; metadata: CommandMetadata }
  /** A CLOSE_ALL trigger's positions are about to be closed (recorded before the first close is sent). */
  | { type: 'DecideClosing'; data: { accountId: string; triggerId: string }; metadata: CommandMetadata }
  | {
      type: 'RecordCloseOutcome';
      data: {
        accountId: string;
        triggerId: string;
        closedPositions: readonly string[];
        cancelledOrders: readonly string[];
        failures: readonly { positionId: string; code: string; message: string }[];
      };
      metadata: CommandMetadata;
    }
  /** A profit target locks the account in close mode: a position or pending order that appeared since is to be closed. */
  | { type: 'DecideLockedClose'; data: LockedCloseData; metadata: CommandMetadata }
  /** What closing it did: closed (or cancelled), no longer there, or refused by the broker. */
  | {
      type: 'RecordLockedClose';
      data: { accountId: string; triggerId: string; positionId: string; outcome: LockedCloseOutcome };
      metadata: CommandMetadata;
    };

export type LockedCloseOutcome =
  { readonly type: 'closed' } | { readonly type: 'gone' } | { readonly type: 'failed'; readonly code: string; readonly message: string };

export interface LockedCloseData {
  readonly accountId: string;
  readonly triggerId: string;
  readonly positionId: string;
  readonly kind: 'position' | 'order';
  readonly symbol: string;
  readonly volume: number;
  /** Placed outside the service (no client order id of ours: the broker's terminal, another program). */
  readonly outside: boolean;
  /** The client request id every attempt at closing it sends. */
  readonly requestId: string;
}
