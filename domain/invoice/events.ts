// Events of an invoice (stream `invoice-<invoiceNumber>`; spec "Invoice (white-label, manual
// collection)": OPEN -> PAID by mark paid (single or bulk per customer), OPEN -> voided, PAID ->
// refunded by the void endpoint, and nothing else). The issue carries every priced line, so the invoice
// keeps what was billed whatever the price list says later, and a rebuild gives the same amounts.
import type { UsageLine } from '../billing/usage.js';

export type InvoiceStatus = 'OPEN' | 'PAID' | 'VOIDED' | 'REFUNDED';

/** Who is billed: a customer (all its projects) or, for a project without a customer, the project. */
export type InvoiceParty = { readonly kind: 'CUSTOMER'; readonly customerId: string } | { readonly kind: 'PROJECT'; readonly projectId: string };

export interface InvoiceIssuedData {
  readonly invoiceNumber: string;
  readonly party: InvoiceParty;
  /** The customer's e-mail when the party is a customer (as the customer model had it at issue). */
  readonly customerEmail: string | null;
  /** The white-label brand (its FeatureWhiteLabelDTO id) the customer registered under; null: none. */
  readonly brandFeatureId: string | null;
  /** The project the invoice is filed under (InvoiceDTO.projectId): the party's first project with usage. */
  readonly projectId: string;
  /** Every project with a line, in line order. */
  readonly projectIds: readonly string[];
  readonly year: number;
  readonly month: number;
  /** The price list's currency code (USD, EUR, CHF). */
  readonly currency: string;
  readonly lines: readonly UsageLine[];
  /** The lines' total, decimal text to the cent. */
  readonly amount: string;
  readonly dueDate: string;
  /** Paid outside this service and marked paid by the operator (the built-in payment port). */
  readonly manualCollection: boolean;
  /** The brand's manualCollectionPaymentInstructions, as they were at issue. */
  readonly paymentInstructions: string | null;
  readonly at: string;
}

export type InvoiceEvent =
  | { type: 'InvoiceIssued'; data: InvoiceIssuedData }
  | { type: 'InvoicePaid'; data: { invoiceNumber: string; externalReference: string | null; note: string | null; bulk: boolean; at: string } }
  | { type: 'InvoiceVoided'; data: { invoiceNumber: string; reason: string | null; at: string } }
  | { type: 'InvoiceRefunded'; data: { invoiceNumber: string; reason: string | null; at: string } };

export type InvoiceEventType = InvoiceEvent['type'];

export const invoiceEventTypes: readonly InvoiceEventType[] = ['InvoiceIssued', 'InvoicePaid', 'InvoiceVoided', 'InvoiceRefunded'];

export const invoiceStream = (invoiceNumber: string): string => `invoice-${invoiceNumber}`;
