// The risk limits read model (spec "RiskLimitDTO"): every limit of every account with its settings and
// the copier it is scoped to (null: the whole account).
// Whether a limit is hit is the protections read model's (projections/protections).
import { sql } from 'kysely';
import { riskLimitEventTypes, type RiskLimitEvent } from '../../domain/riskLimit/events.js';
import type { Projection } from '../projection.js';

export const riskLimitsProjection: Projection = {
  name: 'risk_limits',
  version: 2,
  handles: riskLimitEventTypes,
  tables: ['risk_limits'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'risk_limits')} (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      account_id uuid NOT NULL,
      copier_id uuid,
      settings jsonb NOT NULL,
      active boolean NOT NULL,
      created timestamptz NOT NULL,
      updated timestamptz NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'risk_limits')} (account_id)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as RiskLimitEvent;
    switch (event.type) {
      case 'RiskLimitCreated': {
        const { riskLimitId, projectId, accountId, copierId, settings, at } = event.data;
        await db
          .insertInto('risk_limits')
          .values({
            id: riskLimitId,
            project_id: projectId,
            account_id: accountId,
            copier_id: copierId ?? null,
            settings: JSON.stringify(settings),
            active: settings.active,
            created: at,
            updated: at,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'RiskLimitUpdated':
        await db
          .updateTable('risk_limits')
          .set({ settings: JSON.stringify(event.data.settings), active: event.data.settings.active, updated: event.data.at })
          .where('id', '=', event.data.riskLimitId)
          .execute();
        return;
      case 'RiskLimitDeleted':
        await db.deleteFrom('risk_limits').where('id', '=', event.data.riskLimitId).execute();
        return;
    }
  },
};
