// Invoices, lines, transactions and the forecast as DTOs: decimal text to JSON numbers, the price
// list's currency code to CurrencyTypeDTO.
import type { Static } from '@sinclair/typebox';
import { totalOf, type UsageLine } from '../../domain/billing/usage.js';
import { currencyTypes } from '../../domain/account/enums.js';
import type { CostForecast, InvoiceDetails } from '../../app/invoices.js';
import type { InvoiceRow, TransactionRow } from '../../projections/invoices/queries.js';
import { enumObject } from '../shared/enumObjects.js';
import type { ForecastDTO, InvoiceDetailsDTO, InvoiceDTO, InvoiceLineDTO, TransactionDTO } from './schemas.js';

export const currencyType = (code: string) => enumObject(currencyTypes.find((c) => c.name === code)?.id ?? 1, code);

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());
const period = (i: { year: number; month: number }) => `${i.year}-${String(i.month).padStart(2, '0')}`;

// An invoice's number, state and money as its owner (InvoiceDTO) and its brand's operator
// (InvoiceSummaryDTO, RecentInvoiceDTO) both see them: one mapping of the read model's row.
export const invoiceStateOf = (row: InvoiceRow) => ({
  invoiceNumber: row.invoice_number,
  status: row.status,
  manualCollection: row.manual_collection,
  customerEmail: row.customer_email,
  projectId: row.project_id,
  customerId: row.customer_id === null ? null : Number(row.customer_id),
  projectIds: row.project_ids,
  year: row.year,
  month: row.month,
  amount: Number(row.amount),
  currencyType: currencyType(row.currency),
  created: iso(row.issued)!,
  dueDate: iso(row.due_date)!,
  paidAt: iso(row.paid_at),
  externalReference: row.external_reference,
  note: row.note,
  voidedAt: iso(row.voided_at),
  refundedAt: iso(row.refunded_at),
  reason: row.reason,
});

export const toInvoiceDTO = (row: InvoiceRow, projectName: string): Static<typeof InvoiceDTO> => ({
  id: row.invoice_number,
  ...invoiceStateOf(row),
  projectName,
  discount: 0,
  description: `Usage of ${period(row)}`,
  descriptionPosition: '',
  invoicePdfUrl: '',
  invoicePaymentUrl: '',
  tax: { breakdown: [] },
  paymentInstructions: row.payment_instructions,
});

export const toInvoiceLineDTO = (l: UsageLine): Static<typeof InvoiceLineDTO> => ({
  projectId: l.projectId,
  kind: l.kind,
  subjectId: l.subjectId,
  description: l.description,
  quantity: l.quantity,
  unitPrice: Number(l.unitPrice),
  amount: Number(l.amount),
});

export const toInvoiceDetailsDTO = (d: InvoiceDetails): Static<typeof InvoiceDetailsDTO> => ({
  invoiceNumber: d.invoice.invoice_number,
  status: d.invoice.status,
  year: d.invoice.year,
  month: d.invoice.month,
  currencyType: currencyType(d.invoice.currency),
  lines: d.lines.map(toInvoiceLineDTO),
  total: Number(d.total),
  amount: Number(d.invoice.amount),
  matches: d.total === d.invoice.amount,
});

export const toTransactionDTO = (t: TransactionRow): Static<typeof TransactionDTO> => ({
  id: t.id,
  projectId: t.projectId,
  amount: Number(t.amount),
  currencyType: currencyType(t.currency),
  date: t.date,
  reference: t.reference,
  remark: t.remark,
  invoiceNumber: t.invoiceNumber,
});

export const toForecastDTO = (f: CostForecast): Static<typeof ForecastDTO> => ({
  currency: currencyType(f.currency),
  positions: f.forecast.map((l) => `${l.description}: ${l.quantity} x ${l.unitPrice} = ${l.amount} ${f.currency}`),
  total: Number(f.total),
  year: f.month.year,
  month: f.month.month,
  soFar: Number(totalOf(f.soFar)),
  lines: f.forecast.map(toInvoiceLineDTO),
});
