// The invoices read model: every invoice (domain/invoice/events.ts) with its state, and the
// transactions it makes for each of its projects (TransactionDTO, the project's balance):
//   InvoiceIssued    a charge of each project's share (the sum of its lines), negative;
//   InvoicePaid      the payment of each share, positive;
//   InvoiceVoided    the charge cancelled, positive;
//   InvoiceRefunded  the payment returned (negative) and the charge cancelled (positive).
// So a project's balance (the sum of its transactions) is what it owes, negative, or 0. Transaction
// ids follow the order of the events, so a rebuild gives the same ids.
import { sql } from 'kysely';
import { Decimal } from '../../domain/shared/decimal.js';
import type { InvoiceEvent, InvoiceIssuedData } from '../../domain/invoice/events.js';
import type { RecordedEvent } from '../../store/port.js';
import type { Projection } from '../projection.js';
import type { ReadModels } from '../schema.js';
import type { Kysely } from 'kysely';

/** Each project's share of an invoice (the sum of its lines), in the order of invoice.projectIds. */
export const sharesOf = (invoice: Pick<InvoiceIssuedData, 'projectIds' | 'lines'>): { projectId: string; amount: string }[] =>
  invoice.projectIds.map((projectId) => ({
    projectId,
    amount: invoice.lines
      .filter((l) => l.projectId === projectId)
      .reduce((sum, l) => sum.plus(new Decimal(l.amount)), new Decimal(0))
      .toFixed(2),
  }));

const period = (i: { year: number; month: number }): string => `${i.year}-${String(i.month).padStart(2, '0')}`;

const record = async (
  db: Kysely<ReadModels>,
  invoiceNumber: string,
  at: string,
  entries: readonly { sign: 1 | -1; remark: (p: string) => string; reference: string }[],
): Promise<void> => {
  const row = await db
    .selectFrom('invoices')
    .select(['project_ids', 'lines', 'currency', 'year', 'month'])
    .where('invoice_number', '=', invoiceNumber)
    .executeTakeFirst();
  if (!row) return;
  const shares = sharesOf({ projectIds: row.project_ids, lines: row.lines });
  for (const e of entries) {
    for (const share of shares) {
      await db
        .insertInto('invoice_transactions')
        .values({
          project_id: share.projectId,
          invoice_number: invoiceNumber,
          date: at,
          currency: row.currency,
          amount: new Decimal(share.amount).times(e.sign).toFixed(2),
          reference: e.reference,
          remark: e.remark(period(row)),
        })
        .execute();
    }
  }
};

export const invoicesProjection: Projection = {
  name: 'invoices',
  // 2: customer_id is text (the customer model's ids are integers, CustomerDTO.id int32), not uuid.
  version: 2,
  handles: ['InvoiceIssued', 'InvoicePaid', 'InvoiceVoided', 'InvoiceRefunded'],
  tables: ['invoices', 'invoice_transactions'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'invoices')} (
      invoice_number text PRIMARY KEY,
      party_kind text NOT NULL,
      customer_id text,
      customer_email text,
      brand_feature_id uuid,
      project_id uuid NOT NULL,
      project_ids jsonb NOT NULL,
      year integer NOT NULL,
      month integer NOT NULL,
      currency text NOT NULL,
      amount text NOT NULL,
      lines jsonb NOT NULL,
      status text NOT NULL,
      issued timestamptz NOT NULL,
      due_date timestamptz NOT NULL,
      manual_collection boolean NOT NULL,
      payment_instructions text,
      paid_at timestamptz,
      external_reference text,
      note text,
      voided_at timestamptz,
      refunded_at timestamptz,
      reason text)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'invoice_transactions')} (
      id serial PRIMARY KEY,
      project_id uuid NOT NULL,
      invoice_number text NOT NULL,
      date timestamptz NOT NULL,
      currency text NOT NULL,
      amount text NOT NULL,
      reference text NOT NULL,
      remark text NOT NULL)`.execute(db);
  },
  async createIndexes(db, schema) {
    await sql`CREATE INDEX ON ${sql.id(schema, 'invoices')} USING gin (project_ids)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'invoices')} (customer_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'invoice_transactions')} (project_id, id)`.execute(db);
  },
  async apply(db, recorded: RecordedEvent) {
    const event = recorded as unknown as InvoiceEvent;
    switch (event.type) {
      case 'InvoiceIssued': {
        const d = event.data;
        const inserted = await db
          .insertInto('invoices')
          .values({
            invoice_number: d.invoiceNumber,
            party_kind: d.party.kind,
            customer_id: d.party.kind === 'CUSTOMER' ? d.party.customerId : null,
            customer_email: d.customerEmail,
            brand_feature_id: d.brandFeatureId,
            project_id: d.projectId,
            project_ids: JSON.stringify(d.projectIds),
            year: d.year,
            month: d.month,
            currency: d.currency,
            amount: d.amount,
            lines: JSON.stringify(d.lines),
            status: 'OPEN',
            issued: d.at,
            due_date: d.dueDate,
            manual_collection: d.manualCollection,
            payment_instructions: d.paymentInstructions,
          })
          .onConflict((oc) => oc.column('invoice_number').doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return;
        await record(db, d.invoiceNumber, d.at, [{ sign: -1, reference: d.invoiceNumber, remark: (p) => `Invoice ${d.invoiceNumber} for ${p}` }]);
        return;
      }
      case 'InvoicePaid': {
        const d = event.data;
        await db
          .updateTable('invoices')
          .set({ status: 'PAID', paid_at: d.at, external_reference: d.externalReference, note: d.note })
          .where('invoice_number', '=', d.invoiceNumber)
          .execute();
        const how = d.externalReference ? ` (reference ${d.externalReference})` : '';
        await record(db, d.invoiceNumber, d.at, [
          { sign: 1, reference: d.externalReference ?? d.invoiceNumber, remark: (p) => `Payment of invoice ${d.invoiceNumber} for ${p}${how}` },
        ]);
        return;
      }
      case 'InvoiceVoided': {
        const d = event.data;
        await db.updateTable('invoices').set({ status: 'VOIDED', voided_at: d.at, reason: d.reason }).where('invoice_number', '=', d.invoiceNumber).execute();
        await record(db, d.invoiceNumber, d.at, [{ sign: 1, reference: d.invoiceNumber, remark: (p) => `Invoice ${d.invoiceNumber} for ${p} voided` }]);
        return;
      }
      case 'InvoiceRefunded': {
        const d = event.data;
        await db
          .updateTable('invoices')
          .set({ status: 'REFUNDED', refunded_at: d.at, reason: d.reason })
          .where('invoice_number', '=', d.invoiceNumber)
          .execute();
        await record(db, d.invoiceNumber, d.at, [
          { sign: -1, reference: d.invoiceNumber, remark: (p) => `Payment of invoice ${d.invoiceNumber} for ${p} refunded` },
          { sign: 1, reference: d.invoiceNumber, remark: (p) => `Invoice ${d.invoiceNumber} for ${p} cancelled by the refund` },
        ]);
        return;
      }
      default:
        return;
    }
  },
};
