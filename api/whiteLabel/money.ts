// The white-label operator's money (spec "Operations known by path and purpose"), under the brand's
// feature of the operator's project:
//   GET .../whitelabel/dashboard                                 the brand at a glance
//   GET .../whitelabel/customers/{customerId}/invoices           a customer's invoices
//   PUT .../whitelabel/customers/{customerId}/invoices/paid      every OPEN invoice of the customer paid
//   PUT .../whitelabel/invoices/{invoiceNumber}/paid             one OPEN invoice paid
//   PUT .../whitelabel/invoices/{invoiceNumber}/void             void an OPEN invoice, refund a PAID one
// Use cases: app/invoicesWhiteLabel.ts (on app/invoices.ts); rules: domain/invoice/decider.ts; read
// model: projections/invoices.
import { type Static, Type } from '@sinclair/typebox';
import {
  brandCustomerInvoices,
  markBrandCustomerInvoicesPaid,
  markBrandInvoicePaid,
  voidBrandInvoice,
  whiteLabelDashboard,
  type WhiteLabelDashboard,
} from '../../app/invoicesWhiteLabel.js';
import type { Services } from '../../app/services.js';
import type { InvoiceRow } from '../../projections/invoices/queries.js';
import { BrandParams } from '../customers/routes.js';
import { currencyType, invoiceStateOf } from '../invoices/dto.js';
import type { Routes } from '../route.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses, Uuid } from '../shared/schemas.js';
import {
  InvoiceSummaryDTO,
  MarkInvoicePaidRequestDTO,
  RecentInvoiceDTO,
  RefundInvoiceRequestDTO,
  WhiteLabelDashboardDTO,
  WhiteLabelProjectSummaryDTO,
} from './moneySchemas.js';

const TAG = 'White label';
const BASE = '/projects/{projectId}/features/{featureId}/whitelabel';

const KEY =
  "Needs a project-level key of the brand's project (featureId: its FeatureWhiteLabelDTO); another project's brand answers 404 [FEATURE_NOT_FOUND], and an invoice or customer of another brand 404 as if it did not exist.";
const STATES =
  "States (spec 'Invoice (white-label, manual collection)'): OPEN -> PAID (mark paid, one or every OPEN invoice of a customer), OPEN -> VOIDED (void), PAID -> REFUNDED (the void endpoint); any other move answers 409 and changes nothing. Each move is an event of the invoice's stream (InvoicePaid, InvoiceVoided, InvoiceRefunded) and a transaction of each of its projects (GET /projects/{projectId}/transactions).";

const CustomerParams = Type.Object(
  { projectId: Uuid, featureId: Uuid, customerId: Type.Integer({ format: 'int32', minimum: 1, description: 'CustomerDTO.id' }) },
  { additionalProperties: false },
);
const InvoiceParams = Type.Object(
  { projectId: Uuid, featureId: Uuid, invoiceNumber: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

export const toInvoiceSummaryDTO = (row: InvoiceRow): Static<typeof InvoiceSummaryDTO> => invoiceStateOf(row);

const toRecentInvoiceDTO = (row: InvoiceRow): Static<typeof RecentInvoiceDTO> => {
  const { invoiceNumber, status, amount, currencyType, customerEmail, customerId, projectId, manualCollection, created, dueDate } = invoiceStateOf(row);
  return { invoiceNumber, status, amount, currencyType, customerEmail, customerId, projectId, manualCollection, created, dueDate };
};

const moneyOf = (m: { openInvoices: number; outstandingAmount: string; paidAmount: string; refundedAmount: string; currentMonthOutstanding: string }) => ({
  openInvoices: m.openInvoices,
  outstandingAmount: Number(m.outstandingAmount),
  paidAmount: Number(m.paidAmount),
  refundedAmount: Number(m.refundedAmount),
  currentMonthOutstanding: Number(m.currentMonthOutstanding),
});

const toDashboardDTO = (d: WhiteLabelDashboard): Static<typeof WhiteLabelDashboardDTO> => ({
  featureId: d.brand.featureId,
  name: d.brand.settings.name,
  subdomain: d.brand.settings.subdomain,
  currencyType: currencyType(d.currency),
  customerCount: d.customerCount,
  blockedCustomerCount: d.blockedCustomerCount,
  projectCount: d.projects.length,
  activeProjectCount: d.projects.filter((p) => !p.blocked && !p.deleted).length,
  ...moneyOf(d.totals),
  recentInvoices: d.recentInvoices.map(toRecentInvoiceDTO),
  projects: d.projects.map((p): Static<typeof WhiteLabelProjectSummaryDTO> => ({
    projectId: p.projectId,
    name: p.name,
    customerId: p.customerId,
    customerEmail: p.customerEmail,
    blocked: p.blocked,
    deleted: p.deleted,
    accountCount: p.accountCount,
    ...moneyOf(p),
  })),
});

const paymentOf = (body: Static<typeof MarkInvoicePaidRequestDTO> | undefined) => ({
  externalReference: body?.externalReference ?? null,
  note: body?.note ?? null,
});

export const whiteLabelMoneyRoutes = (routes: Routes, services: Services): void => {
  routes.add<Static<typeof BrandParams>, unknown, unknown>({
    method: 'get',
    path: `${BASE}/dashboard`,
    tag: TAG,
    operationId: 'getWhiteLabelDashboard',
    summary: 'White-label dashboard',
    description: `The brand at a glance (spec: recent invoices and project summaries; the members are ours): its customers (blocked ones counted apart), every project they own with its accounts and its share of their invoices (the sum of its own lines on each), the brand's totals (OPEN invoices and their sum, PAID, REFUNDED; VOIDED ones count nowhere) and the current month so far (up to the end of today, priced now, not invoiced until the month's close), and the 10 newest invoices. Only the brand's own customers' invoices: a project without a customer (the operator's own) is not in it. Changes nothing. ${KEY}`,
    params: BrandParams,
    responses: { 200: { description: 'the dashboard', schema: WhiteLabelDashboardDTO }, ...errorResponses(401, 403, 404) },
    async handler({ params, caller }) {
      checkProjectScope(caller, params.projectId, 'the white-label dashboard');
      return { body: toDashboardDTO(await whiteLabelDashboard(services, params.projectId, params.featureId)) };
    },
  });

  routes.add<Static<typeof CustomerParams>, unknown, unknown>({
    method: 'get',
    path: `${BASE}/customers/{customerId}/invoices`,
    tag: TAG,
    operationId: 'getWhiteLabelCustomerInvoices',
    summary: "A customer's invoices",
    description: `Every invoice of the brand's customer customerId (one a month for all its projects), newest month first, whatever its state. A customer of another brand, or none, gives 404 [CUSTOMER_NOT_FOUND]. ${KEY}`,
    params: CustomerParams,
    responses: { 200: { description: 'the invoices', schema: Type.Array(InvoiceSummaryDTO) }, ...errorResponses(401, 403, 404) },
    async handler({ params, caller }) {
      checkProjectScope(caller, params.projectId, "a customer's invoices");
      return { body: (await brandCustomerInvoices(services, params.projectId, params.featureId, params.customerId)).map(toInvoiceSummaryDTO) };
    },
  });

  routes.add<Static<typeof CustomerParams>, unknown, Static<typeof MarkInvoicePaidRequestDTO>>({
    method: 'put',
    path: `${BASE}/customers/{customerId}/invoices/paid`,
    tag: TAG,
    operationId: 'markWhiteLabelCustomerInvoicesPaid',
    summary: 'Mark all OPEN invoices of a customer paid',
    description: `Every OPEN manual-collection invoice of the customer is marked paid (spec), each by its own event (InvoicePaid, bulk true) with the body's externalReference and note; PAID, VOIDED and REFUNDED ones stay as they are. Answers the invoices marked now (empty: there was none; not an error). The body is optional. ${STATES} A customer of another brand, or none, gives 404 [CUSTOMER_NOT_FOUND]. ${KEY}`,
    params: CustomerParams,
    body: MarkInvoicePaidRequestDTO,
    responses: { 200: { description: 'the invoices marked paid now', schema: Type.Array(InvoiceSummaryDTO) }, ...errorResponses(400, 401, 403, 404, 409) },
    async handler({ params, body, caller, context }) {
      checkProjectScope(caller, params.projectId, "marking a customer's invoices paid");
      const rows = await markBrandCustomerInvoicesPaid(services, params.projectId, params.featureId, params.customerId, paymentOf(body), context);
      return { body: rows.map(toInvoiceSummaryDTO) };
    },
  });

  routes.add<Static<typeof InvoiceParams>, unknown, Static<typeof MarkInvoicePaidRequestDTO>>({
    method: 'put',
    path: `${BASE}/invoices/{invoiceNumber}/paid`,
    tag: TAG,
    operationId: 'markWhiteLabelInvoicePaid',
    summary: 'Mark an OPEN invoice paid',
    description: `The owner's action (spec): OPEN -> PAID, with the body's optional externalReference and note (kept on the invoice; the reference is the payment transaction's). Any other state answers 409 [INVOICE_NOT_OPEN] and changes nothing. ${STATES} An invoice of another brand, or none, gives 404 [INVOICE_NOT_FOUND]. ${KEY}`,
    params: InvoiceParams,
    body: MarkInvoicePaidRequestDTO,
    responses: { 200: { description: 'the invoice, paid', schema: InvoiceSummaryDTO }, ...errorResponses(400, 401, 403, 404, 409) },
    async handler({ params, body, caller, context }) {
      checkProjectScope(caller, params.projectId, 'marking an invoice paid');
      return {
        body: toInvoiceSummaryDTO(await markBrandInvoicePaid(services, params.projectId, params.featureId, params.invoiceNumber, paymentOf(body), context)),
      };
    },
  });

  routes.add<Static<typeof InvoiceParams>, unknown, Static<typeof RefundInvoiceRequestDTO>>({
    method: 'put',
    path: `${BASE}/invoices/{invoiceNumber}/void`,
    tag: TAG,
    operationId: 'voidWhiteLabelInvoice',
    summary: 'Void an OPEN invoice or refund a PAID one',
    description: `OPEN -> VOIDED (the charge cancelled) or PAID -> REFUNDED (the payment returned and the charge cancelled), with the body's optional reason (spec). A VOIDED or REFUNDED invoice answers 409 [INVOICE_ALREADY_CLOSED] and changes nothing. Nothing is paid back from here: a refund records that the operator returned the money. ${STATES} An invoice of another brand, or none, gives 404 [INVOICE_NOT_FOUND]. ${KEY}`,
    params: InvoiceParams,
    body: RefundInvoiceRequestDTO,
    responses: { 200: { description: 'the invoice, voided or refunded', schema: InvoiceSummaryDTO }, ...errorResponses(400, 401, 403, 404, 409) },
    async handler({ params, body, caller, context }) {
      checkProjectScope(caller, params.projectId, 'voiding an invoice');
      return {
        body: toInvoiceSummaryDTO(await voidBrandInvoice(services, params.projectId, params.featureId, params.invoiceNumber, body?.reason ?? null, context)),
      };
    },
  });
};
