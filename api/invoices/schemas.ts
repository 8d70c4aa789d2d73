// The money DTOs of a project (reference: InvoiceDTO, TransactionDTO, ForecastDTO; the details of
// GET /projects/{projectId}/invoices/{invoiceNumber}/details are "an object": InvoiceDetailsDTO is ours).
// Amounts are computed in exact decimals and rounded to cents (domain/billing/usage.ts), then answered
// as JSON numbers, in the operator's price-list currency (CurrencyTypeDTO).
import { Type } from '@sinclair/typebox';
import { IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';
import { CurrencyTypeDTO } from '../types/schemas.js';

const Amount = (description: string) => Type.Number({ description: `${description}; to the cent, in the price list's currency` });

export const InvoiceStatus = Type.String({
  description:
    "OPEN, PAID, VOIDED or REFUNDED (spec 'Invoice (white-label, manual collection)': OPEN -mark paid-> PAID; OPEN -void-> voided; PAID -void endpoint (refund)-> refunded; the spec names the last two states only in words: VOIDED and REFUNDED are ours)",
});

const TaxRateDetailsDTO = Type.Object(
  {
    country: Type.String(),
    flatAmount: Type.Integer(),
    percentageDecimal: Type.String(),
    rateType: Type.String(),
    state: Type.String(),
    taxType: Type.String(),
  },
  { $id: 'TaxRateDetailsDTO', additionalProperties: false },
);

const TaxBreakdownDTO = Type.Object(
  {
    amount: Type.Integer(),
    inclusive: Type.Boolean(),
    taxRateDetails: TaxRateDetailsDTO,
    taxabilityReason: Type.String(),
    taxableAmount: Type.Integer(),
    vatNumber: Type.String(),
  },
  { $id: 'TaxBreakdownDTO', additionalProperties: false },
);

const TaxDTO = Type.Object(
  { breakdown: Type.Array(TaxBreakdownDTO, { description: 'always empty: the price list has no taxes (prices are what is billed)' }) },
  { $id: 'TaxDTO', additionalProperties: false },
);

export const InvoiceDTO = Type.Object(
  {
    id: Type.String({ description: 'the invoiceNumber (invoices have no other id here)' }),
    invoiceNumber: Type.String({ description: 'INV-<YYYYMM>-<8 hex>: fixed by who is billed and the month' }),
    projectId: Type.String({
      format: 'uuid',
      description: "the project the invoice is filed under: its party's first project with usage (projectIds lists all)",
    }),
    projectName: Type.String(),
    currencyType: CurrencyTypeDTO,
    amount: Amount("the lines' total"),
    discount: Type.Number({ description: 'always 0: the price list has no discounts' }),
    created: IsoDateTime,
    dueDate: IsoDateTime,
    description: Type.String({ description: 'what the invoice is for: the usage of a month' }),
    descriptionPosition: Type.String({ description: "the reference's member, without a documented meaning: always ''" }),
    invoicePdfUrl: Type.String({ description: "always '': no PDF is made (the details operation gives the calculation)" }),
    invoicePaymentUrl: Type.String({ description: "always '': no card processor is built; manual collection (paymentInstructions)" }),
    tax: TaxDTO,
    status: InvoiceStatus,
    manualCollection: Type.Boolean({
      description: 'paid outside this service and marked paid by the operator (spec 1.2.6): the built-in payment port is manual collection, so always true',
    }),
    // Ours.
    year: Type.Integer(),
    month: Type.Integer({ minimum: 1, maximum: 12 }),
    projectIds: Type.Array(Uuid, { description: 'ours: every project with a line (a customer is billed for all its projects at once)' }),
    customerId: Nullable(Type.Integer({ format: 'int32', description: 'CustomerDTO.id of the customer billed; null: a project without a customer' })),
    customerEmail: Nullable(Type.String()),
    paymentInstructions: Nullable(Type.String({ description: "ours: the brand's manualCollectionPaymentInstructions at issue" })),
    paidAt: Nullable(IsoDateTime),
    externalReference: Nullable(Type.String()),
    note: Nullable(Type.String()),
    voidedAt: Nullable(IsoDateTime),
    refundedAt: Nullable(IsoDateTime),
    reason: Nullable(Type.String({ description: 'why it was voided or refunded' })),
  },
  { $id: 'InvoiceDTO', additionalProperties: false },
);

export const InvoiceLineDTO = Type.Object(
  {
    projectId: Uuid,
    kind: Type.String({
      description:
        'ACCOUNT (account-days), FEATURE (feature-days of a feature with a daily price), AI_TIER (days of a STANDARD or PRO messaging connector), FOLLOWER_COSTS (follower-days a signal provider of this project covers), COVERED_BY_PROVIDER (the credit of a follower account whose days a provider covers)',
    }),
    subjectId: Type.String({ description: 'the account, feature or signal provider id' }),
    description: Type.String(),
    quantity: Type.Integer({ description: 'days' }),
    unitPrice: Type.Number({ description: 'per day, from the price list at issue (negative for a credit)' }),
    amount: Amount('quantity x unitPrice, rounded half up'),
  },
  { $id: 'InvoiceLineDTO', additionalProperties: false },
);

export const InvoiceDetailsDTO = Type.Object(
  {
    invoiceNumber: Type.String(),
    status: InvoiceStatus,
    year: Type.Integer(),
    month: Type.Integer(),
    currencyType: CurrencyTypeDTO,
    lines: Type.Array(InvoiceLineDTO, {
      description: 'every line of the invoice (all projects of its customer), each amount recomputed now from its quantity and unit price',
    }),
    total: Amount('the sum of the recomputed lines (all projects of the invoice)'),
    amount: Amount('the amount the invoice was issued with'),
    matches: Type.Boolean({ description: 'total equals amount' }),
  },
  { $id: 'InvoiceDetailsDTO', additionalProperties: false },
);

export const TransactionDTO = Type.Object(
  {
    id: Type.Integer({ description: 'in the order the transactions happened (stable across a rebuild)' }),
    projectId: Type.String({ format: 'uuid' }),
    amount: Amount('negative: a charge (an invoice issued, a payment refunded); positive: a payment, or a charge cancelled (voided, refunded)'),
    currencyType: CurrencyTypeDTO,
    date: IsoDateTime,
    reference: Type.String({ description: "the invoice number, or a payment's external reference" }),
    remark: Type.String(),
    invoiceNumber: Type.String({ description: 'ours' }),
  },
  { $id: 'TransactionDTO', additionalProperties: false },
);

export const ForecastDTO = Type.Object(
  {
    currency: CurrencyTypeDTO,
    positions: Type.Array(Type.String(), { description: "one text per line of the month's forecast: what, days x price per day = amount" }),
    total: Amount("the current month's forecast: what ran so far, and what runs now as if it ran to the month's end"),
    // Ours.
    year: Type.Integer(),
    month: Type.Integer(),
    soFar: Amount('what the month cost up to the end of today'),
    lines: Type.Array(InvoiceLineDTO, { description: 'the forecast lines' }),
  },
  { $id: 'ForecastDTO', additionalProperties: false },
);

export const InvoiceParams = Type.Object({ projectId: Uuid, invoiceNumber: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
export const ProjectParams = Type.Object({ projectId: Uuid }, { additionalProperties: false });
