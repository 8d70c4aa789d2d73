// The white-label operator's money shapes (spec "White-label billing": InvoiceSummaryDTO with
// manualCollection, customerEmail and projectId, RecentInvoiceDTO, WhiteLabelDashboardDTO,
// WhiteLabelProjectSummaryDTO, MarkInvoicePaidRequestDTO "optional external reference and note",
// RefundInvoiceRequestDTO "optional reason"). Neither document gives their other members or types: the
// spec names the DTOs only, the reference 1.2.5 has none of them. Members beyond the named ones are ours.
// Amounts are exact decimals rounded to the cent, answered as JSON numbers in the price list's currency.
import { Type } from '@sinclair/typebox';
import { IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';
import { CurrencyTypeDTO } from '../types/schemas.js';
import { InvoiceStatus } from '../invoices/schemas.js';

const Amount = (description: string) => Type.Number({ description: `${description}; to the cent, in the price list's currency` });

export const InvoiceSummaryDTO = Type.Object(
  {
    invoiceNumber: Type.String({ description: 'INV-<YYYYMM>-<8 hex> (the spec removed invoiceId: the number is the id)' }),
    status: InvoiceStatus,
    manualCollection: Type.Boolean({
      description: 'paid outside this service and marked paid by the operator: always true (manual collection is the built-in payment port)',
    }),
    customerEmail: Nullable(Type.String({ description: "the customer's e-mail address at issue" })),
    projectId: Uuid,
    // Ours.
    customerId: Nullable(Type.Integer({ format: 'int32', description: 'CustomerDTO.id of the customer billed' })),
    projectIds: Type.Array(Uuid, { description: 'every project of the customer with a line on the invoice (projectId is the first)' }),
    year: Type.Integer(),
    month: Type.Integer({ minimum: 1, maximum: 12 }),
    amount: Amount("the lines' total"),
    currencyType: CurrencyTypeDTO,
    created: IsoDateTime,
    dueDate: IsoDateTime,
    paidAt: Nullable(IsoDateTime),
    externalReference: Nullable(Type.String({ description: 'given when it was marked paid' })),
    note: Nullable(Type.String({ description: 'given when it was marked paid' })),
    voidedAt: Nullable(IsoDateTime),
    refundedAt: Nullable(IsoDateTime),
    reason: Nullable(Type.String({ description: 'given when it was voided or refunded' })),
  },
  {
    $id: 'InvoiceSummaryDTO',
    description: "An invoice of one of the brand's customers, as its operator sees it (spec: manualCollection, customerEmail, projectId; the rest is ours).",
    additionalProperties: false,
  },
);

export const RecentInvoiceDTO = Type.Object(
  {
    invoiceNumber: Type.String(),
    status: InvoiceStatus,
    amount: Amount("the lines' total"),
    currencyType: CurrencyTypeDTO,
    customerEmail: Nullable(Type.String()),
    customerId: Nullable(Type.Integer({ format: 'int32' })),
    projectId: Uuid,
    manualCollection: Type.Boolean(),
    created: IsoDateTime,
    dueDate: IsoDateTime,
  },
  {
    $id: 'RecentInvoiceDTO',
    description: 'One of the newest invoices of the brand (ours but invoiceNumber, which replaced invoiceId in the spec).',
    additionalProperties: false,
  },
);

const money = {
  openInvoices: Type.Integer({ minimum: 0, description: 'OPEN invoices' }),
  outstandingAmount: Amount('the sum of the OPEN invoices'),
  paidAmount: Amount('the sum of the PAID invoices (refunded ones not counted)'),
  refundedAmount: Amount('ours: the sum of the REFUNDED invoices'),
  currentMonthOutstanding: Amount(
    "the current month's usage (a calendar month of TIME_ZONE) so far (up to the end of today there), priced now: not invoiced until the month's close",
  ),
};

export const WhiteLabelProjectSummaryDTO = Type.Object(
  {
    projectId: Uuid,
    name: Type.String(),
    customerId: Type.Integer({ format: 'int32' }),
    customerEmail: Type.String(),
    blocked: Type.Boolean({ description: 'its customer is blocked' }),
    deleted: Type.Boolean(),
    accountCount: Type.Integer({ minimum: 0, description: 'accounts not deleted' }),
    ...money,
  },
  {
    $id: 'WhiteLabelProjectSummaryDTO',
    description:
      "A project of one of the brand's customers (all ours: the spec names the DTO only). The money is this project's share of its customer's invoices: the sum of its own lines on each.",
    additionalProperties: false,
  },
);

export const WhiteLabelDashboardDTO = Type.Object(
  {
    featureId: Uuid,
    name: Type.String({ description: "the brand's name" }),
    subdomain: Type.String(),
    currencyType: CurrencyTypeDTO,
    customerCount: Type.Integer({ minimum: 0 }),
    blockedCustomerCount: Type.Integer({ minimum: 0 }),
    projectCount: Type.Integer({ minimum: 0, description: "projects of the brand's customers, deleted ones included" }),
    activeProjectCount: Type.Integer({ minimum: 0, description: 'of those, neither deleted nor of a blocked customer' }),
    ...money,
    recentInvoices: Type.Array(RecentInvoiceDTO, { description: 'the brand’s newest invoices, newest first, at most 10' }),
    projects: Type.Array(WhiteLabelProjectSummaryDTO, { description: "every project of the brand's customers, by customer in order of registration" }),
  },
  {
    $id: 'WhiteLabelDashboardDTO',
    description:
      "The brand at a glance (all members ours: the spec names recent invoices and project summaries only). Totals are over the brand's customers' invoices.",
    additionalProperties: false,
  },
);

export const MarkInvoicePaidRequestDTO = Type.Object(
  {
    externalReference: Type.Optional(
      Nullable(Type.String({ maxLength: 200, description: "the payment's reference outside this service (a bank transfer's)" })),
    ),
    note: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  {
    $id: 'MarkInvoicePaidRequestDTO',
    description: 'Both members optional (spec); kept on the invoice and in its InvoicePaid event.',
    additionalProperties: false,
  },
);

export const RefundInvoiceRequestDTO = Type.Object(
  { reason: Type.Optional(Nullable(Type.String({ maxLength: 2000, description: 'why it is voided or refunded' }))) },
  { $id: 'RefundInvoiceRequestDTO', description: 'The reason is optional (spec); kept on the invoice and in its event.', additionalProperties: false },
);
