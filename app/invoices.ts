// Invoices (issue 23 "Usage, invoices, payments"; spec "Invoice (white-label, manual collection)"):
// - the monthly close: for each month that has ended (in TIME_ZONE) since the first usage, each party billed
//   (app/billingParties.ts: a customer with all its projects, or a project without a customer) with
//   usage worth more than 0 gets one invoice, its lines priced with the operator's price list as it is
//   at the close (app/priceList.ts), collected through the payment port (app/billingPayments.ts);
// - mark paid (one, or every OPEN invoice of a customer), void (OPEN -> VOIDED) or refund (PAID ->
//   REFUNDED), each an event of the invoice's stream (domain/invoice/decider.ts);
// - the reads: a project's invoices, an invoice's details recomputed line by line, its transactions and
//   balance, the cost forecast of the current month.
import { sql } from 'kysely';
import { type Prices, monthText, earlier, recompute, totalOf, usageLines, DAY_MS, type UsageLine } from '../domain/billing/usage.js';
import { endOfDayIn, type Month, monthEndIn, monthIn, monthStartIn, nextMonth } from '../domain/shared/calendarMonth.js';
import { invoiceDecider } from '../domain/invoice/decider.js';
import { invoiceStream, type InvoiceIssuedData } from '../domain/invoice/events.js';
import { invoiceNumberOf } from '../domain/invoice/number.js';
import { systemContext, type RequestContext } from '../domain/shared/command.js';
import { notFound } from '../domain/shared/errors.js';
import { handleCommand } from '../store/commandHandler.js';
import { firstUsage, projectsUsedBetween, usageFacts } from '../projections/billing/queries.js';
import {
  balanceOfProject,
  type InvoiceRow,
  invoiceByNumber,
  invoicesOfCustomer,
  invoicesOfProject,
  transactionsOfProject,
} from '../projections/invoices/queries.js';
import { partiesOf } from './billingParties.js';
import { manualCollection, type PaymentPort } from './billingPayments.js';
import { accountDailyPrice, aiTierDailyPrice, featureDailyPrice, type PriceList } from './priceList.js';
import { commandMetadata, execute, readYourWrites, type Services } from './services.js';

export const INVOICES_READ_MODELS = ['invoices'] as const;
/** processor_checkpoints row: the last month closed ("YYYY-MM"), by whichever instance. */
export const INVOICES_CLOSED_THROUGH = 'invoices-closed-through';

export const pricesOf = (list: PriceList): Prices => ({
  currency: list.currency,
  accountDaily: (typeId) => accountDailyPrice(list, typeId),
  featureDaily: (dto) => featureDailyPrice(list, dto),
  aiTierDaily: (tier) => aiTierDailyPrice(list, tier),
  followerDaily: list.followerDaily,
});

/** The priced usage of `projectIds` in `month` of TIME_ZONE (upTo: only the days before it). */
export const usageOf = async (services: Pick<Services, 'db' | 'config'>, projectIds: readonly string[], month: Month, upTo?: number): Promise<UsageLine[]> => {
  const { priceList: list, timeZone } = services.config;
  const facts = await usageFacts(services.db, projectIds, month, list.followerDaily, timeZone);
  return usageLines(facts, pricesOf(list), month, timeZone, upTo);
};

/** The month under way in TIME_ZONE and the end of today there (the current month counts its days up to it). */
export const currentMonth = (services: Pick<Services, 'config' | 'clock'>): { month: Month; upTo: number } => {
  const now = services.clock().getTime();
  const month = monthIn(now, services.config.timeZone);
  return { month, upTo: Math.min(monthEndIn(month, services.config.timeZone), endOfDayIn(now, services.config.timeZone)) };
};

/** Issues the invoices of `month` (idempotent: an invoice issued stays); answers the numbers issued now. */
export const closeMonth = async (services: Services, month: Month, payments: PaymentPort = manualCollection(services)): Promise<string[]> => {
  const zone = services.config.timeZone;
  const projects = await projectsUsedBetween(services.db, new Date(monthStartIn(month, zone)), new Date(monthEndIn(month, zone)));
  const issued: string[] = [];
  const list = services.config.priceList;
  for (const party of await partiesOf(services, projects)) {
    const lines = await usageOf(services, party.projectIds, month);
    const amount = totalOf(lines);
    if (lines.length === 0 || Number(amount) <= 0) continue;
    const invoiceNumber = invoiceNumberOf(party.party, month);
    const terms = await payments.terms(party.brandFeatureId);
    const projectIds = [...new Set(lines.map((l) => l.projectId))];
    // One instant for the invoice's issue time (the event's `at`, from the metadata) and its due date.
    const metadata = commandMetadata(services, systemContext(`invoice-close-${monthText(month)}`));
    const data: Omit<InvoiceIssuedData, 'at'> = {
      invoiceNumber,
      party: party.party,
      customerEmail: party.customerEmail,
      brandFeatureId: party.brandFeatureId,
      projectId: projectIds[0]!,
      projectIds,
      year: month.year,
      month: month.month,
      currency: list.currency,
      lines,
      amount,
      dueDate: new Date(Date.parse(metadata.now) + list.invoiceDueDays * DAY_MS).toISOString(),
      manualCollection: terms.manualCollection,
      paymentInstructions: terms.paymentInstructions,
    };
    const result = await handleCommand(services.store, invoiceStream(invoiceNumber), invoiceDecider, {
      type: 'IssueInvoice',
      data,
      metadata,
    });
    if (result.events.length === 0) continue;
    issued.push(invoiceNumber);
    if (result.position) await readYourWrites(services, result.position, invoiceStream(invoiceNumber), [...INVOICES_READ_MODELS]);
    const event = result.events[0]!;
    if (event.type === 'InvoiceIssued' && terms.sendEmail) await payments.requestPayment(event.data);
  }
  return issued;
};

/** Closes every ended month not closed yet (from the first usage); answers the invoices issued. */
export const closeDueMonths = async (services: Services, payments?: PaymentPort): Promise<string[]> => {
  const current = monthIn(services.clock().getTime(), services.config.timeZone);
  const last = await services.db
    .withTables<{ processor_checkpoints: { name: string; position: string | null; updated: Date } }>()
    .selectFrom('processor_checkpoints')
    .select('position')
    .where('name', '=', INVOICES_CLOSED_THROUGH)
    .executeTakeFirst();
  let month: Month;
  if (last?.position) {
    const [y, m] = last.position.split('-').map(Number);
    month = nextMonth({ year: y!, month: m! });
  } else {
    const first = await firstUsage(services.db);
    if (!first) return [];
    month = monthIn(first.getTime(), services.config.timeZone);
  }
  const issued: string[] = [];
  while (earlier(month, current)) {
    issued.push(...(await closeMonth(services, month, payments)));
    await sql`INSERT INTO processor_checkpoints (name, position, updated) VALUES (${INVOICES_CLOSED_THROUGH}, ${monthText(month)}, ${services.clock()})
      ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated = EXCLUDED.updated`.execute(services.db);
    month = nextMonth(month);
  }
  return issued;
};

export const projectInvoices = (services: Pick<Services, 'db'>, projectId: string): Promise<InvoiceRow[]> => invoicesOfProject(services.db, projectId);

/** An invoice the project has a line in (or is filed under); 404 [INVOICE_NOT_FOUND] otherwise. */
export const projectInvoice = async (services: Pick<Services, 'db'>, projectId: string, invoiceNumber: string): Promise<InvoiceRow> => {
  const row = await invoiceByNumber(services.db, invoiceNumber);
  if (!row || (row.project_id !== projectId && !row.project_ids.includes(projectId)))
    throw notFound('[INVOICE_NOT_FOUND]', `invoice ${invoiceNumber} not found`);
  return row;
};

export interface InvoiceDetails {
  readonly invoice: InvoiceRow;
  /** Each line recomputed: quantity x unit price, to the cent. */
  readonly lines: UsageLine[];
  readonly total: string;
}

/** The invoice's lines, each amount recomputed from its quantity and unit price, and their total (equal to the invoice's amount). */
export const invoiceDetails = async (services: Pick<Services, 'db'>, projectId: string, invoiceNumber: string): Promise<InvoiceDetails> => {
  const invoice = await projectInvoice(services, projectId, invoiceNumber);
  const { lines, total } = recompute(invoice.lines);
  return { invoice, lines, total };
};

export const projectTransactions = (services: Pick<Services, 'db'>, projectId: string) => transactionsOfProject(services.db, projectId);

export const projectBalance = (services: Pick<Services, 'db'>, projectId: string) => balanceOfProject(services.db, projectId);

export interface CostForecast {
  readonly month: Month;
  readonly currency: string;
  /** What was used so far this month, priced. */
  readonly soFar: UsageLine[];
  /** The month as a whole if what runs now keeps running to its end. */
  readonly forecast: UsageLine[];
  readonly total: string;
}

/** The current month's cost (TIME_ZONE): used so far, and if everything running keeps running to the month's end (what ended is counted as it was). */
export const costForecast = async (services: Pick<Services, 'db' | 'config' | 'clock'>, projectId: string): Promise<CostForecast> => {
  const { month, upTo } = currentMonth(services);
  const soFar = await usageOf(services, [projectId], month, upTo);
  // Facts are as recorded: what is still running runs to the month's end.
  const forecast = (await usageOf(services, [projectId], month)).filter((l) => l.projectId === projectId);
  return { month, currency: services.config.priceList.currency, soFar: soFar.filter((l) => l.projectId === projectId), forecast, total: totalOf(forecast) };
};

const command = (services: Services, context: RequestContext) => commandMetadata(services, context);

/** OPEN -> PAID; 409 [INVOICE_NOT_OPEN] otherwise. */
export const markInvoicePaid = async (
  services: Services,
  invoiceNumber: string,
  body: { externalReference: string | null; note: string | null },
  context: RequestContext,
  bulk = false,
): Promise<void> => {
  await execute(
    services,
    invoiceStream(invoiceNumber),
    invoiceDecider,
    { type: 'MarkInvoicePaid', data: { invoiceNumber, ...body, bulk }, metadata: command(services, context) },
    [...INVOICES_READ_MODELS],
  );
};

/** OPEN -> VOIDED, PAID -> REFUNDED; 409 [INVOICE_ALREADY_CLOSED] otherwise. */
export const voidInvoice = async (services: Services, invoiceNumber: string, reason: string | null, context: RequestContext): Promise<void> => {
  await execute(
    services,
    invoiceStream(invoiceNumber),
    invoiceDecider,
    { type: 'VoidInvoice', data: { invoiceNumber, reason }, metadata: command(services, context) },
    [...INVOICES_READ_MODELS],
  );
};

/** Every OPEN manual-collection invoice of the customer marked paid; answers their numbers. */
export const markCustomerInvoicesPaid = async (
  services: Services,
  customerId: string,
  body: { externalReference: string | null; note: string | null },
  context: RequestContext,
): Promise<string[]> => {
  const open = (await invoicesOfCustomer(services.db, customerId)).filter((i) => i.status === 'OPEN' && i.manual_collection);
  for (const invoice of open) await markInvoicePaid(services, invoice.invoice_number, body, context, true);
  return open.map((i) => i.invoice_number);
};
