// Events of an account's trade guardrails (stream `guardrails-<accountId>`, FeatureTradeGuardrailsDTO):
// a position the guardrail decided to close (and why), and the outcome of that close. The decision is
// recorded before the close is sent, so a close cut short by a crash is finished after the restart with
// the same client request id (the venue answers a repeat with the first result): no position is closed
// twice, and every close the guardrail made has its line in the account's log.
import type { GuardrailRule } from './rules.js';

export interface GuardrailDecision {
  readonly accountId: string;
  readonly featureId: string;
  /** The copier of a copier-scope guardrail; null: the account's. */
  readonly copierId: string | null;
  readonly positionId: string;
  readonly symbol: string;
  readonly side: 'Buy' | 'Sell';
  readonly volume: number;
  readonly openTime: string;
  /** Placed outside the service (no client order id of ours). */
  readonly outside: boolean;
  readonly rule: GuardrailRule;
  readonly reason: string;
}

export type GuardrailEvent =
  | { type: 'GuardrailCloseDecided'; data: GuardrailDecision & { readonly at: string } }
  | {
      type: 'GuardrailPositionClosed';
      data: GuardrailDecision & {
        /** Null when the position was already gone at the venue (closed by someone else first). */
        readonly closePrice: number | null;
        readonly result: number | null;
        readonly at: string;
      };
    }
  | { type: 'GuardrailCloseFailed'; data: GuardrailDecision & { readonly code: string; readonly message: string; readonly at: string } };

export type GuardrailEventType = GuardrailEvent['type'];
export const guardrailEventTypes: readonly GuardrailEventType[] = ['GuardrailCloseDecided', 'GuardrailPositionClosed', 'GuardrailCloseFailed'];

export const GUARDRAIL_STREAM_PREFIX = 'guardrails-';
export const guardrailStream = (accountId: string): string => `${GUARDRAIL_STREAM_PREFIX}${accountId}`;

/** What makes an event the same event: the monitor's event ids derive from it (uuid v5). */
export const guardrailEventKey = (event: GuardrailEvent): string => {
  const d = event.data;
  switch (event.type) {
    case 'GuardrailCloseDecided':
      return `decided/${d.accountId}/${d.positionId}`;
    case 'GuardrailPositionClosed':
      return `closed/${d.accountId}/${d.positionId}`;
    case 'GuardrailCloseFailed':
      return `failed/${d.accountId}/${d.positionId}/${event.data.code}`;
  }
};
