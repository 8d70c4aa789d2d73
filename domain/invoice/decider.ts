// An invoice's states (spec "Invoice (white-label, manual collection)"):
//   OPEN -- mark paid (single, or bulk per customer) --> PAID
//   OPEN -- void --> VOIDED
//   PAID -- void endpoint (refund) --> REFUNDED
// and nothing else: any other move answers 409 with a code that names the state it was in. Issuing is
// idempotent (the monthly close may run again, or on another instance): an invoice issued stays as it was.
import type { CommandMetadata, Decider } from '../shared/command.js';
import { illegalState, notFound } from '../shared/errors.js';
import type { InvoiceEvent, InvoiceIssuedData, InvoiceStatus } from './events.js';

export type InvoiceCommand =
  | { type: 'IssueInvoice'; data: Omit<InvoiceIssuedData, 'at'>; metadata: CommandMetadata }
  | {
      type: 'MarkInvoicePaid';
      data: { invoiceNumber: string; externalReference: string | null; note: string | null; bulk: boolean };
      metadata: CommandMetadata;
    }
  | { type: 'VoidInvoice'; data: { invoiceNumber: string; reason: string | null }; metadata: CommandMetadata };

export interface InvoiceState {
  readonly issued: InvoiceIssuedData | null;
  readonly status: InvoiceStatus | null;
}

export const initialState: InvoiceState = { issued: null, status: null };

export const decide = (command: InvoiceCommand, state: InvoiceState): InvoiceEvent[] => {
  const at = command.metadata.now;
  if (command.type === 'IssueInvoice') return state.issued ? [] : [{ type: 'InvoiceIssued', data: { ...command.data, at } }];
  const { invoiceNumber } = command.data;
  if (!state.issued || state.status === null) throw notFound('[INVOICE_NOT_FOUND]', `invoice ${invoiceNumber} not found`);
  switch (command.type) {
    case 'MarkInvoicePaid':
      if (state.status !== 'OPEN')
        throw illegalState('[INVOICE_NOT_OPEN]', `invoice ${invoiceNumber} is ${state.status}: only an OPEN invoice can be marked paid`);
      return [
        {
          type: 'InvoicePaid',
          data: { invoiceNumber, externalReference: command.data.externalReference, note: command.data.note, bulk: command.data.bulk, at },
        },
      ];
    case 'VoidInvoice':
      if (state.status === 'OPEN') return [{ type: 'InvoiceVoided', data: { invoiceNumber, reason: command.data.reason, at } }];
      if (state.status === 'PAID') return [{ type: 'InvoiceRefunded', data: { invoiceNumber, reason: command.data.reason, at } }];
      throw illegalState('[INVOICE_ALREADY_CLOSED]', `invoice ${invoiceNumber} is ${state.status}: only an OPEN invoice can be voided or a PAID one refunded`);
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const evolve = (state: InvoiceState, event: InvoiceEvent): InvoiceState => {
  switch (event.type) {
    case 'InvoiceIssued':
      return { issued: event.data, status: 'OPEN' };
    case 'InvoicePaid':
      return { ...state, status: 'PAID' };
    case 'InvoiceVoided':
      return { ...state, status: 'VOIDED' };
    case 'InvoiceRefunded':
      return { ...state, status: 'REFUNDED' };
    default:
      return state;
  }
};

export const invoiceDecider: Decider<InvoiceCommand, InvoiceEvent, InvoiceState> = { decide, evolve, initialState };
