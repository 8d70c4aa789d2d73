// The customers read model: every customer of every brand (id, e-mail, brand, status, the block and its
// summary), the project → customer map, the live sessions (by their token's hash, which the customer
// routes look up) and the sign-in codes sent (for the sending limit). Rebuildable: everything comes from
// the customer and sign-in code events (domain/customer/).
import { sql } from 'kysely';
import { customerEventTypes, type CustomerEvent } from '../../domain/customer/events.js';
import { customerCodeEventTypes, type CustomerCodeEvent } from '../../domain/customer/signInCode.js';
import type { Projection } from '../projection.js';

export const customersProjection: Projection = {
  name: 'customers',
  version: 2,
  handles: [...customerEventTypes, ...customerCodeEventTypes],
  tables: ['customers', 'customer_projects', 'customer_sessions', 'customer_codes'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'customers')} (
      customer_id integer PRIMARY KEY,
      brand_feature_id uuid NOT NULL,
      brand_project_id uuid NOT NULL,
      email text NOT NULL,
      status text NOT NULL,
      created timestamptz NOT NULL,
      last_sign_in timestamptz,
      blocked_at timestamptz,
      blocked_reason text,
      block_job_id uuid,
      block_completed_at timestamptz,
      block_summary jsonb,
      unblock_job_id uuid,
      unblock_account_ids jsonb,
      unblocked_at timestamptz,
      UNIQUE (brand_feature_id, email))`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'customer_projects')} (
      project_id uuid PRIMARY KEY,
      customer_id integer NOT NULL,
      brand_feature_id uuid NOT NULL,
      blocked boolean NOT NULL,
      created timestamptz NOT NULL)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'customer_sessions')} (
      token_hash text PRIMARY KEY,
      session_id uuid NOT NULL,
      customer_id integer NOT NULL,
      expires_at timestamptz NOT NULL)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'customer_codes')} (
      code_id uuid PRIMARY KEY,
      brand_feature_id uuid NOT NULL,
      email text NOT NULL,
      purpose text NOT NULL,
      created timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      attempts integer NOT NULL,
      used boolean NOT NULL)`.execute(db);
  },
  async createIndexes(db, schema) {
    await sql`CREATE INDEX ON ${sql.id(schema, 'customer_projects')} (customer_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'customer_sessions')} (customer_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'customer_codes')} (brand_feature_id, email, created)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as CustomerEvent | CustomerCodeEvent;
    switch (event.type) {
      case 'CustomerRegistered': {
        const d = event.data;
        await db
          .insertInto('customers')
          .values({
            customer_id: d.customerId,
            brand_feature_id: d.brandFeatureId,
            brand_project_id: d.brandProjectId,
            email: d.email,
            status: 'ACTIVE',
            created: d.at,
            last_sign_in: null,
            blocked_at: null,
            blocked_reason: null,
            block_job_id: null,
            block_completed_at: null,
            block_summary: JSON.stringify(null),
            unblock_job_id: null,
            unblock_account_ids: JSON.stringify(null),
            unblocked_at: null,
          })
          .onConflict((oc) => oc.column('customer_id').doNothing())
          .execute();
        return;
      }
      case 'CustomerSignedIn': {
        const d = event.data;
        await db
          .insertInto('customer_sessions')
          .values({ token_hash: d.tokenHash, session_id: d.sessionId, customer_id: d.customerId, expires_at: d.expiresAt })
          .onConflict((oc) => oc.column('token_hash').doNothing())
          .execute();
        await db.updateTable('customers').set({ last_sign_in: d.at }).where('customer_id', '=', d.customerId).execute();
        return;
      }
      case 'CustomerSignedOut':
        await db.deleteFrom('customer_sessions').where('session_id', '=', event.data.sessionId).execute();
        return;
      case 'CustomerProjectOwned': {
        const d = event.data;
        const customer = await db.selectFrom('customers').select(['brand_feature_id', 'status']).where('customer_id', '=', d.customerId).executeTakeFirst();
        if (!customer) return;
        await db
          .insertInto('customer_projects')
          .values({
            project_id: d.projectId,
            customer_id: d.customerId,
            brand_feature_id: customer.brand_feature_id,
            blocked: customer.status === 'BLOCKED',
            created: d.at,
          })
          .onConflict((oc) => oc.column('project_id').doNothing())
          .execute();
        return;
      }
      case 'CustomerBlocked': {
        const d = event.data;
        await db
          .updateTable('customers')
          .set({
            status: 'BLOCKED',
            blocked_at: d.at,
            blocked_reason: d.reason,
            block_job_id: d.jobId,
            block_completed_at: null,
            block_summary: JSON.stringify(null),
            unblock_job_id: null,
            unblock_account_ids: JSON.stringify(null),
          })
          .where('customer_id', '=', d.customerId)
          .execute();
        await db.updateTable('customer_projects').set({ blocked: true }).where('customer_id', '=', d.customerId).execute();
        await db.deleteFrom('customer_sessions').where('customer_id', '=', d.customerId).execute();
        return;
      }
      case 'CustomerBlockCompleted': {
        const { customerId, jobId, at, ...summary } = event.data;
        await db
          .updateTable('customers')
          .set({ block_completed_at: at, block_summary: JSON.stringify(summary) })
          .where('customer_id', '=', customerId)
          .where('block_job_id', '=', jobId)
          .execute();
        return;
      }
      case 'CustomerUnblocked': {
        const d = event.data;
        await db
          .updateTable('customers')
          .set({
            status: 'ACTIVE',
            blocked_at: null,
            blocked_reason: null,
            block_job_id: null,
            block_completed_at: null,
            block_summary: JSON.stringify(null),
            unblock_job_id: d.jobId,
            unblock_account_ids: JSON.stringify(d.accountIds),
            unblocked_at: d.at,
          })
          .where('customer_id', '=', d.customerId)
          .execute();
        await db.updateTable('customer_projects').set({ blocked: false }).where('customer_id', '=', d.customerId).execute();
        return;
      }
      case 'CustomerUnblockCompleted':
        await db
          .updateTable('customers')
          .set({ unblock_job_id: null, unblock_account_ids: JSON.stringify(null) })
          .where('customer_id', '=', event.data.customerId)
          .where('unblock_job_id', '=', event.data.jobId)
          .execute();
        return;
      case 'CustomerCodeSent': {
        const d = event.data;
        await db
          .insertInto('customer_codes')
          .values({
            code_id: d.codeId,
            brand_feature_id: d.brandFeatureId,
            email: d.email,
            purpose: d.purpose,
            created: d.at,
            expires_at: d.expiresAt,
            attempts: 0,
            used: false,
          })
          .onConflict((oc) => oc.column('code_id').doNothing())
          .execute();
        return;
      }
      case 'CustomerCodeRejected':
        await db.updateTable('customer_codes').set({ attempts: event.data.attempts }).where('code_id', '=', event.data.codeId).execute();
        return;
      case 'CustomerCodeUsed':
        await db.updateTable('customer_codes').set({ used: true }).where('code_id', '=', event.data.codeId).execute();
        return;
    }
  },
};
