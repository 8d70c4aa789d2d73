// The white-label operator's money (spec "Operations known by path and purpose", white-label billing):
// the brand's dashboard (its customers' invoices and projects), each customer's money in the operator's
// customer list, a customer's invoices, and the moves of the spec's invoice states, each on the
// invoice's own stream (app/invoices.ts, domain/invoice/decider.ts):
//   mark one paid, mark a customer's OPEN invoices paid, void (OPEN) or refund (PAID).
// A brand sees the invoices of its own customers only (the invoice's brand, fixed at issue): another
// brand's invoice or customer answers 404, as one that does not exist.
import { Decimal, ZERO } from '../domain/shared/decimal.js';
import type { RequestContext } from '../domain/shared/command.js';
import { notFound } from '../domain/shared/errors.js';
import { totalOf } from '../domain/billing/usage.js';
import { customerById, customersOfBrand, type CustomerRow } from '../projections/customers/queries.js';
import { sharesOf } from '../projections/invoices/projector.js';
import { invoiceByNumber, invoicesOfBrand, invoicesOfCustomer, type InvoiceRow } from '../projections/invoices/queries.js';
import { type Brand, loadBrandOfProject } from './customers.js';
import { currentMonth, markCustomerInvoicesPaid, markInvoicePaid, usageOf, voidInvoice } from './invoices.js';
import type { Services } from './services.js';

/** How many invoices the dashboard shows as recent. */
export const RECENT_INVOICES = 10;

/** What a party owes and paid: decimal texts to the cent. */
export interface MoneySummary {
  readonly openInvoices: number;
  readonly outstandingAmount: string;
  readonly paidAmount: string;
  readonly refundedAmount: string;
  /** The current month's usage so far (up to the end of today), not invoiced yet. */
  readonly currentMonthOutstanding: string;
}

const sum = (values: readonly string[]): string => values.reduce((s, v) => s.plus(new Decimal(v)), ZERO).toFixed(2);

const summaryOf = (invoices: readonly { status: string; amount: string }[], currentMonth: string): MoneySummary => ({
  openInvoices: invoices.filter((i) => i.status === 'OPEN').length,
  outstandingAmount: sum(invoices.filter((i) => i.status === 'OPEN').map((i) => i.amount)),
  paidAmount: sum(invoices.filter((i) => i.status === 'PAID').map((i) => i.amount)),
  refundedAmount: sum(invoices.filter((i) => i.status === 'REFUNDED').map((i) => i.amount)),
  currentMonthOutstanding: currentMonth,
});

/** The current month's usage (TIME_ZONE) of `projectIds` so far (days up to the end of today), priced now, by project. */
const currentMonthByProject = async (services: Pick<Services, 'db' | 'config' | 'clock'>, projectIds: readonly string[]): Promise<Map<string, string>> => {
  const { month, upTo } = currentMonth(services);
  const lines = await usageOf(services, projectIds, month, upTo);
  return new Map(projectIds.map((p) => [p, totalOf(lines.filter((l) => l.projectId === p))]));
};

/** The brand's invoice `invoiceNumber`; 404 [INVOICE_NOT_FOUND] when it does not exist or is another brand's. */
const brandInvoice = async (services: Pick<Services, 'db'>, brand: Brand, invoiceNumber: string): Promise<InvoiceRow> => {
  const row = await invoiceByNumber(services.db, invoiceNumber);
  if (!row || row.brand_feature_id !== brand.featureId) throw notFound('[INVOICE_NOT_FOUND]', `invoice ${invoiceNumber} not found`);
  return row;
};

/** The brand's customer `customerId`; 404 [CUSTOMER_NOT_FOUND] when it does not exist or is another brand's. */
export const brandCustomer = async (services: Pick<Services, 'db'>, brand: Brand, customerId: number): Promise<CustomerRow> => {
  const customer = await customerById(services.db, customerId);
  if (!customer || customer.brandFeatureId !== brand.featureId) throw notFound('[CUSTOMER_NOT_FOUND]', `customer ${customerId} not found`);
  return customer;
};

const reread = async (services: Pick<Services, 'db'>, invoiceNumber: string): Promise<InvoiceRow> => (await invoiceByNumber(services.db, invoiceNumber))!;

export interface CustomerMoney extends MoneySummary {
  readonly customerId: number;
}

/**
 * Each customer's money in the operator's list (CustomerSummaryDTO), by customer id: a fixed number of
 * queries whatever the number of customers (one invoice read per brand, one usage read for every project).
 */
export const customersMoney = async (
  services: Pick<Services, 'db' | 'config' | 'clock'>,
  customers: readonly CustomerRow[],
): Promise<Map<number, CustomerMoney>> => {
  const brands = [...new Set(customers.map((c) => c.brandFeatureId))];
  const invoices = (await Promise.all(brands.map((b) => invoicesOfBrand(services.db, b)))).flat();
  const current = await currentMonthByProject(services, [...new Set(customers.flatMap((c) => c.projectIds))]);
  const out = new Map<number, CustomerMoney>();
  for (const customer of customers) {
    // Newest first, as invoicesOfCustomer answered them; only the customer's invoices of its own brand.
    const own = invoices.filter((i) => i.customer_id === String(customer.customerId) && i.brand_feature_id === customer.brandFeatureId);
    const month = sum(customer.projectIds.map((p) => current.get(p) ?? '0.00'));
    out.set(customer.customerId, { customerId: customer.customerId, ...summaryOf(own, month) });
  }
  return out;
};

export interface ProjectSummary extends MoneySummary {
  readonly projectId: string;
  readonly name: string;
  readonly customerId: number;
  readonly customerEmail: string;
  readonly blocked: boolean;
  readonly deleted: boolean;
  readonly accountCount: number;
}

export interface WhiteLabelDashboard {
  readonly brand: Brand;
  readonly currency: string;
  readonly customerCount: number;
  readonly blockedCustomerCount: number;
  readonly totals: MoneySummary;
  readonly recentInvoices: InvoiceRow[];
  readonly projects: ProjectSummary[];
}

/**
 * The brand at a glance: its customers, every project they own with its share of their invoices (the sum
 * of its lines) and its current month, the brand's totals, and its newest invoices.
 */
export const whiteLabelDashboard = async (services: Services, projectId: string, featureId: string): Promise<WhiteLabelDashboard> => {
  const brand = await loadBrandOfProject(services, projectId, featureId);
  const customers = await customersOfBrand(services.db, brand.featureId);
  const invoices = await invoicesOfBrand(services.db, brand.featureId);
  const projectIds = customers.flatMap((c) => c.projectIds);
  const current = await currentMonthByProject(services, projectIds);
  const projectRows =
    projectIds.length === 0 ? [] : await services.db.selectFrom('projects').select(['id', 'name', 'deleted']).where('id', 'in', projectIds).execute();
  const accounts =
    projectIds.length === 0
      ? []
      : await services.db
          .selectFrom('accounts')
          .select(['project_id', services.db.fn.countAll<string>().as('n')])
          .where('project_id', 'in', projectIds)
          .where('deleted', 'is', null)
          .groupBy('project_id')
          .execute();
  const shares = invoices.map((i) => ({ status: i.status, shares: sharesOf({ projectIds: i.project_ids, lines: i.lines }) }));
  const projects: ProjectSummary[] = customers.flatMap((c) =>
    c.projectIds.map((id) => {
      const row = projectRows.find((p) => p.id === id);
      const own = shares.flatMap((i) =>
        i.shares.filter((s) => s.projectId === id && Number(s.amount) !== 0).map((s) => ({ status: i.status, amount: s.amount })),
      );
      return {
        projectId: id,
        name: row?.name ?? '',
        customerId: c.customerId,
        customerEmail: c.email,
        blocked: c.status === 'BLOCKED',
        deleted: !row || row.deleted !== null,
        accountCount: Number(accounts.find((a) => a.project_id === id)?.n ?? 0),
        ...summaryOf(own, current.get(id) ?? '0.00'),
      };
    }),
  );
  return {
    brand,
    currency: services.config.priceList.currency,
    customerCount: customers.length,
    blockedCustomerCount: customers.filter((c) => c.status === 'BLOCKED').length,
    totals: summaryOf(invoices, sum([...current.values()])),
    recentInvoices: invoices.slice(0, RECENT_INVOICES),
    projects,
  };
};

/** The invoices of the brand's customer `customerId`, newest month first. */
export const brandCustomerInvoices = async (services: Services, projectId: string, featureId: string, customerId: number): Promise<InvoiceRow[]> => {
  const brand = await loadBrandOfProject(services, projectId, featureId);
  await brandCustomer(services, brand, customerId);
  return (await invoicesOfCustomer(services.db, String(customerId))).filter((i) => i.brand_feature_id === brand.featureId);
};

export interface PaymentNote {
  readonly externalReference: string | null;
  readonly note: string | null;
}

/** OPEN -> PAID for the brand's invoice; 409 [INVOICE_NOT_OPEN] in any other state. Answers the invoice as it is now. */
export const markBrandInvoicePaid = async (
  services: Services,
  projectId: string,
  featureId: string,
  invoiceNumber: string,
  body: PaymentNote,
  context: RequestContext,
): Promise<InvoiceRow> => {
  const brand = await loadBrandOfProject(services, projectId, featureId);
  await brandInvoice(services, brand, invoiceNumber);
  await markInvoicePaid(services, invoiceNumber, body, context);
  return reread(services, invoiceNumber);
};

/** Every OPEN manual-collection invoice of the brand's customer marked paid (none: nothing changes). Answers those invoices as they are now. */
export const markBrandCustomerInvoicesPaid = async (
  services: Services,
  projectId: string,
  featureId: string,
  customerId: number,
  body: PaymentNote,
  context: RequestContext,
): Promise<InvoiceRow[]> => {
  const brand = await loadBrandOfProject(services, projectId, featureId);
  await brandCustomer(services, brand, customerId);
  const numbers = await markCustomerInvoicesPaid(services, String(customerId), body, context);
  return Promise.all(numbers.map((n) => reread(services, n)));
};

/** OPEN -> VOIDED, PAID -> REFUNDED for the brand's invoice; 409 [INVOICE_ALREADY_CLOSED] otherwise. Answers the invoice as it is now. */
export const voidBrandInvoice = async (
  services: Services,
  projectId: string,
  featureId: string,
  invoiceNumber: string,
  reason: string | null,
  context: RequestContext,
): Promise<InvoiceRow> => {
  const brand = await loadBrandOfProject(services, projectId, featureId);
  await brandInvoice(services, brand, invoiceNumber);
  await voidInvoice(services, invoiceNumber, reason, context);
  return reread(services, invoiceNumber);
};
