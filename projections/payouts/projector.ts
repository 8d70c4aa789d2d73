// The payouts read model: each customer's payout method (domain/billing/payouts.ts), the latest wins.
import { sql } from 'kysely';
import type { PayoutEvent } from '../../domain/billing/payouts.js';
import type { RecordedEvent } from '../../store/port.js';
import type { Projection } from '../projection.js';

export const payoutsProjection: Projection = {
  name: 'payouts',
  version: 1,
  handles: ['PayoutMethodSet'],
  tables: ['payout_methods'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'payout_methods')} (
      customer_id integer PRIMARY KEY,
      brand_feature_id uuid NOT NULL,
      wise_emails jsonb NOT NULL,
      updated timestamptz NOT NULL)`.execute(db);
  },
  async createIndexes(db, schema) {
    await sql`CREATE INDEX ON ${sql.id(schema, 'payout_methods')} (brand_feature_id)`.execute(db);
  },
  async apply(db, recorded: RecordedEvent) {
    const event = recorded as unknown as PayoutEvent;
    if (event.type !== 'PayoutMethodSet') return;
    const d = event.data;
    const values = { customer_id: d.customerId, brand_feature_id: d.brandFeatureId, wise_emails: JSON.stringify(d.wiseEmails), updated: d.at };
    await db
      .insertInto('payout_methods')
      .values(values)
      .onConflict((oc) => oc.column('customer_id').doUpdateSet({ wise_emails: values.wise_emails, updated: values.updated }))
      .execute();
  },
};
