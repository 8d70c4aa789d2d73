// Payouts to signal providers (issue 23 "payouts to signal providers exported (PayoutDTO), never sent
// from here"): a provider whose project belongs to a brand's customer earns its followers' fees
// (domain/earnings/earnings.ts); the brand pays it out itself, to the customer's payout method
// (PayoutDTO: Wise e-mail addresses), which its operator records here. Stream `payout-method-<customerId>`:
//   SetPayoutMethod -> PayoutMethodSet (replaces the method; the same method again records nothing).
// Nothing here moves money: the operator's export lists what each provider earned and where to send it.
import type { CommandMetadata, Decider } from '../shared/command.js';

export interface PayoutMethod {
  /** Wise payout details (WisePayoutDetailsDTO): the e-mail addresses of the payee's Wise account; empty: none recorded. */
  readonly wiseEmails: readonly string[];
}

export type PayoutEvent = {
  type: 'PayoutMethodSet';
  data: { customerId: number; brandFeatureId: string; wiseEmails: readonly string[]; at: string };
};

export type PayoutCommand = {
  type: 'SetPayoutMethod';
  data: { customerId: number; brandFeatureId: string; wiseEmails: readonly string[] };
  metadata: CommandMetadata;
};

export interface PayoutMethodState {
  readonly wiseEmails: readonly string[] | null;
}

export const payoutMethodStream = (customerId: number): string => `payout-method-${customerId}`;

const same = (a: readonly string[] | null, b: readonly string[]): boolean => a !== null && a.length === b.length && a.every((x, i) => x === b[i]);

export const payoutMethodDecider: Decider<PayoutCommand, PayoutEvent, PayoutMethodState> = {
  initialState: { wiseEmails: null },
  decide: (command, state) => {
    const wiseEmails = command.data.wiseEmails.map((e) => e.trim().toLowerCase());
    if (same(state.wiseEmails, wiseEmails)) return [];
    return [{ type: 'PayoutMethodSet', data: { ...command.data, wiseEmails, at: command.metadata.now } }];
  },
  evolve: (state, event) => (event.type === 'PayoutMethodSet' ? { wiseEmails: event.data.wiseEmails } : state),
};
