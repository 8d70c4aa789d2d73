// The charting data read model (spec: /webhooks/charting/accounts/{accountId}/data): one row per alert a
// charting webhook received, with every attempt's outcomes, where it stands, and (while it is retried)
// when the next attempt is due, which the retry job reads (app/chartingWebhook/retries.ts).
import { sql } from 'kysely';
import type { ChartingDataEvent } from '../../domain/chartingWebhook/events.js';
import { chartingDataEventTypes } from '../../domain/chartingWebhook/events.js';
import type { RecordedEvent } from '../../store/port.js';
import type { Projection } from '../projection.js';

export const chartingDataProjection: Projection = {
  name: 'charting_data',
  version: 1,
  handles: chartingDataEventTypes,
  tables: ['charting_data'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'charting_data')} (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL,
      project_id uuid NOT NULL,
      feature_id uuid NOT NULL,
      received timestamptz NOT NULL,
      format text NOT NULL,
      message text NOT NULL,
      alert jsonb,
      status text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      outcomes jsonb NOT NULL DEFAULT '[]',
      remaining jsonb NOT NULL DEFAULT '{"openLegs":[],"closePositions":[]}',
      retry_until timestamptz,
      next_attempt_at timestamptz,
      updated timestamptz NOT NULL)`.execute(db);
  },
  async createIndexes(db, schema) {
    await sql`CREATE INDEX ON ${sql.id(schema, 'charting_data')} (account_id, received DESC)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'charting_data')} (updated) WHERE status = 'RETRYING'`.execute(db);
  },
  async apply(db, recorded: RecordedEvent) {
    const event = recorded as unknown as ChartingDataEvent;
    switch (event.type) {
      case 'ChartingAlertReceived': {
        const d = event.data;
        await db
          .insertInto('charting_data')
          .values({
            id: d.dataId,
            account_id: d.accountId,
            project_id: d.projectId,
            feature_id: d.featureId,
            received: d.at,
            format: d.format,
            message: d.message,
            alert: d.alert === null ? null : JSON.stringify(d.alert),
            status: 'RECEIVED',
            retry_until: d.retryUntil,
            updated: d.at,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'ChartingAlertAttempted': {
        const d = event.data;
        const outcomes = d.outcomes.map((o) => ({ ...o, attempt: d.attempt, at: d.at }));
        await db
          .updateTable('charting_data')
          .set({
            status: d.status,
            attempts: d.attempt,
            outcomes: sql`outcomes || ${JSON.stringify(outcomes)}::jsonb`,
            remaining: JSON.stringify(d.remaining),
            next_attempt_at: d.nextAttemptAt,
            updated: d.at,
          })
          .where('id', '=', d.dataId)
          .execute();
        return;
      }
      case 'ChartingDataDeleted':
        await db.deleteFrom('charting_data').where('id', '=', event.data.dataId).execute();
        return;
    }
  },
};
