// Queries of the invoices read model: a project's invoices, one invoice, a customer's, a brand's,
// a project's transactions and balance.
import { type Kysely, sql } from 'kysely';
import { Decimal, ZERO } from '../../domain/shared/decimal.js';
import type { ReadModels } from '../schema.js';
import type { InvoicesTable } from './tables.js';
import type { Selectable } from 'kysely';

export type InvoiceRow = Selectable<InvoicesTable>;

const containsProject = (projectId: string) => sql<boolean>`project_ids @> ${JSON.stringify([projectId])}::jsonb`;

/** The invoices with a line of `projectId` (or filed under it), newest period first. */
export const invoicesOfProject = (db: Kysely<ReadModels>, projectId: string): Promise<InvoiceRow[]> =>
  db
    .selectFrom('invoices')
    .selectAll()
    .where((eb) => eb.or([eb('project_id', '=', projectId), containsProject(projectId)]))
    .orderBy('year', 'desc')
    .orderBy('month', 'desc')
    .orderBy('invoice_number')
    .execute();

export const invoiceByNumber = (db: Kysely<ReadModels>, invoiceNumber: string): Promise<InvoiceRow | undefined> =>
  db.selectFrom('invoices').selectAll().where('invoice_number', '=', invoiceNumber).executeTakeFirst();

export const invoicesOfCustomer = (db: Kysely<ReadModels>, customerId: string): Promise<InvoiceRow[]> =>
  db
    .selectFrom('invoices')
    .selectAll()
    .where('customer_id', '=', customerId)
    .orderBy('year', 'desc')
    .orderBy('month', 'desc')
    .orderBy('invoice_number')
    .execute();

export const invoicesOfBrand = (db: Kysely<ReadModels>, brandFeatureId: string): Promise<InvoiceRow[]> =>
  db.selectFrom('invoices').selectAll().where('brand_feature_id', '=', brandFeatureId).orderBy('issued', 'desc').orderBy('invoice_number').execute();

export interface TransactionRow {
  readonly id: number;
  readonly projectId: string;
  readonly invoiceNumber: string;
  readonly date: string;
  readonly currency: string;
  readonly amount: string;
  readonly reference: string;
  readonly remark: string;
}

/** A project's transactions, oldest first. */
export const transactionsOfProject = async (db: Kysely<ReadModels>, projectId: string): Promise<TransactionRow[]> => {
  const rows = await db.selectFrom('invoice_transactions').selectAll().where('project_id', '=', projectId).orderBy('id').execute();
  return rows.map((r) => ({
    id: r.id,
    projectId: r.project_id,
    invoiceNumber: r.invoice_number,
    date: new Date(r.date).toISOString(),
    currency: r.currency,
    amount: r.amount,
    reference: r.reference,
    remark: r.remark,
  }));
};

/** The sum of a project's transactions, decimal text (negative: it owes). */
export const balanceOfProject = async (db: Kysely<ReadModels>, projectId: string): Promise<string> => {
  const rows = await db.selectFrom('invoice_transactions').select('amount').where('project_id', '=', projectId).execute();
  return rows.reduce((sum, r) => sum.plus(new Decimal(r.amount)), ZERO).toFixed(2);
};
