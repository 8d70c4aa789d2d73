// A project's money (reference "Project API"): GET /projects/{projectId}/invoices, .../invoices/
// {invoiceNumber}/details, /transactions, /costs/forecast. The use cases are app/invoices.ts, the rules
// domain/billing/usage.ts (metering and prices) and domain/invoice (states), the read models
// projections/billing (usage facts) and projections/invoices (invoices, transactions).
import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { costForecast, invoiceDetails, projectInvoices, projectTransactions } from '../../app/invoices.js';
import type { Services } from '../../app/services.js';
import type { Routes } from '../route.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses } from '../shared/schemas.js';
import { toForecastDTO, toInvoiceDetailsDTO, toInvoiceDTO, toTransactionDTO } from './dto.js';
import { ForecastDTO, InvoiceDetailsDTO, InvoiceDTO, InvoiceParams, ProjectParams, TransactionDTO } from './schemas.js';

const TAG = 'Project API';

export const KEY = 'Needs a project-level key of this project; another project id answers 404 [PROJECT_NOT_FOUND].';

export const METERING =
  "Usage is metered from events (accounts created and deleted, features added and removed) and priced with the operator's price list (PRICE_LIST_FILE or PRICE_LIST; README): a thing counts on each day (a calendar day of the service's TIME_ZONE, UTC unless configured; 23 or 25 hours when the clocks change) it existed for any part of; an account-day at its type's price in force at the day's end (accountDaily, accountDailyByType); a feature-day at featureDaily of its DTO (unlisted features are free); a FeatureMessagingConnectorDTO with aiTier STANDARD or PRO adds a day at aiTierDaily (BASIC is free); a signal provider with coverFollowerCosts pays its covered followers' days at followerDaily, and each such follower's project is credited the same. One line per account and price, per feature, per AI tier, per provider and per covered follower account; each rounded once to the cent, half up; totals add the rounded lines.";

export const INVOICING =
  "Invoices are issued by a monthly close on the service's clock (one instance at a time, a leased job): for each calendar month of TIME_ZONE that has ended, one invoice per customer (all its projects together) or, for a project without a customer, per project, when the month's usage is worth more than 0; due invoiceDueDays (price list) after issue. The lines keep the prices of the close. States (spec 'Invoice (white-label, manual collection)'): OPEN -> PAID (mark paid), OPEN -> VOIDED (void), PAID -> REFUNDED (void endpoint); nothing else (409). Payment: the built-in port is manual collection (the brand's manualCollectionPaymentInstructions, e-mailed when its sendManualCollectionEmail is true); the operator marks invoices paid.";

export const invoiceRoutes = (routes: Routes, services: Services): void => {
  const projectName = async (projectId: string): Promise<string> =>
    (await services.db.selectFrom('projects').select('name').where('id', '=', projectId).executeTakeFirst())?.name ?? '';

  routes.add<Static<typeof ProjectParams>, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/invoices',
    tag: TAG,
    operationId: 'getInvoices',
    summary: 'Get all invoices',
    description: `The invoices with a line of this project, newest month first (a customer's invoice covers all its projects and is listed in each). ${INVOICING} ${KEY}`,
    params: ProjectParams,
    responses: { 200: { description: 'the invoices', schema: Type.Array(InvoiceDTO) }, ...errorResponses(401, 403, 404) },
    async handler({ params, caller }) {
      checkProjectScope(caller, params.projectId, 'invoices');
      const rows = await projectInvoices(services, params.projectId);
      const names = new Map<string, string>();
      for (const r of rows) if (!names.has(r.project_id)) names.set(r.project_id, await projectName(r.project_id));
      return { body: rows.map((r) => toInvoiceDTO(r, names.get(r.project_id) ?? '')) };
    },
  });

  routes.add<Static<typeof InvoiceParams>, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/invoices/{invoiceNumber}/details',
    tag: TAG,
    operationId: 'getInvoiceDetails',
    summary: 'Get invoice calculation details',
    description: `InvoiceDetailsDTO (ours: the reference answers "an object"): every line of the invoice with its quantity (days), unit price and amount, each amount recomputed now from the two, and their total, which equals the invoice's amount (matches). ${METERING} An invoice without a line of this project gives 404 [INVOICE_NOT_FOUND]. ${KEY}`,
    params: InvoiceParams,
    responses: { 200: { description: 'the calculation', schema: InvoiceDetailsDTO }, ...errorResponses(401, 403, 404) },
    async handler({ params, caller }) {
      checkProjectScope(caller, params.projectId, 'invoice details');
      return { body: toInvoiceDetailsDTO(await invoiceDetails(services, params.projectId, params.invoiceNumber)) };
    },
  });

  routes.add<Static<typeof ProjectParams>, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/transactions',
    tag: TAG,
    operationId: 'getProjectTransactions',
    summary: 'Get project transactions',
    description: `The project's money movements, oldest first, each for this project's share of an invoice (the sum of its lines): an invoice issued (negative), its payment (positive), a void (the charge cancelled, positive), a refund (the payment returned, negative, and the charge cancelled, positive). Their sum is the project's balance (ProjectDTO.balance): 0, or negative while something is owed. In the price list's currency. ${KEY}`,
    params: ProjectParams,
    responses: { 200: { description: 'the transactions', schema: Type.Array(TransactionDTO) }, ...errorResponses(401, 403, 404) },
    async handler({ params, caller }) {
      checkProjectScope(caller, params.projectId, 'transactions');
      return { body: (await projectTransactions(services, params.projectId)).map(toTransactionDTO) };
    },
  });

  routes.add<Static<typeof ProjectParams>, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/costs/forecast',
    tag: TAG,
    operationId: 'getForecastCost',
    summary: 'Retrieve forecast cost for a specific project',
    description: `The current month's cost of this project (the calendar month of TIME_ZONE under way): what it used so far (soFar, up to the end of today) and, in total and positions (one text per line), the whole month if everything running now keeps running to its end (what ended counts as it was). Prices of the price list now; the invoice is made at the month's close. ${METERING} ${KEY}`,
    params: ProjectParams,
    responses: { 200: { description: 'the forecast', schema: ForecastDTO }, ...errorResponses(401, 403, 404) },
    async handler({ params, caller }) {
      checkProjectScope(caller, params.projectId, 'the cost forecast');
      return { body: toForecastDTO(await costForecast(services, params.projectId)) };
    },
  });
};
