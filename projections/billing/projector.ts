// The billing read model: what usage is metered from (issue 23 "Usage metered from events"), taken
// from the events as they happened: accounts (AccountCreated with its type and alias, AccountUpdated
// changing either, AccountDeleted) and features of every scope (FeatureAdded with the DTO name and, for
// the messaging connector, its aiTier; FeatureRemoved). Prices are not kept here: usage is priced when
// read (domain/billing/usage.ts) with the operator's price list, and an invoice keeps the lines it was
// issued with. A rebuild gives the same facts, hence the same amounts.
import { sql } from 'kysely';
import type { AccountEvent } from '../../domain/account/events.js';
import type { FeatureEvent } from '../../domain/feature/events.js';
import type { RecordedEvent } from '../../store/port.js';
import type { Projection } from '../projection.js';

export const MESSAGING_CONNECTOR_FEATURE = 'FeatureMessagingConnectorDTO';

export const billingProjection: Projection = {
  name: 'billing',
  version: 1,
  handles: ['AccountCreated', 'AccountUpdated', 'AccountDeleted', 'FeatureAdded', 'FeatureRemoved'],
  tables: ['billing_accounts', 'billing_account_types', 'billing_features'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'billing_accounts')} (
      account_id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      alias text,
      created timestamptz NOT NULL,
      deleted timestamptz)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'billing_account_types')} (
      account_id uuid NOT NULL,
      seq integer NOT NULL,
      at timestamptz NOT NULL,
      account_type_id integer NOT NULL,
      PRIMARY KEY (account_id, seq))`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'billing_features')} (
      feature_id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      feature_dto text NOT NULL,
      ai_tier text,
      added timestamptz NOT NULL,
      removed timestamptz)`.execute(db);
  },
  async createIndexes(db, schema) {
    await sql`CREATE INDEX ON ${sql.id(schema, 'billing_accounts')} (project_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'billing_features')} (project_id)`.execute(db);
  },
  async apply(db, recorded: RecordedEvent) {
    const event = recorded as unknown as AccountEvent | FeatureEvent;
    switch (event.type) {
      case 'AccountCreated': {
        const { accountId, projectId, settings, at } = event.data;
        await db
          .insertInto('billing_accounts')
          .values({ account_id: accountId, project_id: projectId, alias: settings.alias, created: at })
          .onConflict((oc) => oc.column('account_id').doNothing())
          .execute();
        await db
          .insertInto('billing_account_types')
          .values({ account_id: accountId, seq: 0, at, account_type_id: settings.accountTypeId })
          .onConflict((oc) => oc.columns(['account_id', 'seq']).doNothing())
          .execute();
        return;
      }
      case 'AccountUpdated': {
        const { accountId, changes, at } = event.data;
        if (changes.alias !== undefined) await db.updateTable('billing_accounts').set({ alias: changes.alias }).where('account_id', '=', accountId).execute();
        if (changes.accountTypeId === undefined) return;
        const last = await db
          .selectFrom('billing_account_types')
          .select(['seq', 'account_type_id'])
          .where('account_id', '=', accountId)
          .orderBy('seq', 'desc')
          .limit(1)
          .executeTakeFirst();
        if (!last || last.account_type_id === changes.accountTypeId) return;
        await db
          .insertInto('billing_account_types')
          .values({ account_id: accountId, seq: last.seq + 1, at, account_type_id: changes.accountTypeId })
          .execute();
        return;
      }
      case 'AccountDeleted':
        await db
          .updateTable('billing_accounts')
          .set({ deleted: event.data.at })
          .where('account_id', '=', event.data.accountId)
          .where('deleted', 'is', null)
          .execute();
        return;
      case 'FeatureAdded': {
        const { featureId, projectId, setting, at } = event.data;
        const tier = setting.type === MESSAGING_CONNECTOR_FEATURE && typeof setting.aiTier === 'string' ? setting.aiTier : null;
        await db
          .insertInto('billing_features')
          .values({ feature_id: featureId, project_id: projectId, feature_dto: setting.type, ai_tier: tier, added: at })
          .onConflict((oc) => oc.column('feature_id').doNothing())
          .execute();
        return;
      }
      case 'FeatureRemoved':
        await db
          .updateTable('billing_features')
          .set({ removed: event.data.at })
          .where('feature_id', '=', event.data.featureId)
          .where('removed', 'is', null)
          .execute();
        return;
      default:
        return;
    }
  },
};
