// The maintenance windows read model: per FeatureMaintenanceWindowDTO and window (startsAt/endsAt), how
// far it went: entered with the recorded copier modes, copiers switched, accounts whose positions were
// closed, entry completed, exited. The feature's answers show it (its read-only members) and the
// runner (engine/schedule/maintenanceWindows.ts) decides its next step from it.
import { sql } from 'kysely';
import { maintenanceEventTypes, type MaintenanceEvent } from '../../domain/maintenanceWindow/events.js';
import type { Projection } from '../projection.js';

export const maintenanceWindowsProjection: Projection = {
  name: 'maintenance_windows',
  version: 2,
  handles: maintenanceEventTypes,
  tables: ['maintenance_windows'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'maintenance_windows')} (
      feature_id uuid NOT NULL,
      window_key text NOT NULL,
      account_id uuid,
      project_id uuid NOT NULL,
      starts_at timestamptz NOT NULL,
      ends_at timestamptz NOT NULL,
      affected_account_ids jsonb NOT NULL,
      copier_states jsonb NOT NULL,
      copiers_switched boolean NOT NULL,
      closed_for jsonb NOT NULL,
      entry_completed boolean NOT NULL,
      exited boolean NOT NULL,
      entered_at timestamptz NOT NULL,
      exited_at timestamptz,
      PRIMARY KEY (feature_id, window_key))`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as MaintenanceEvent;
    const { featureId, windowKey } = event.data;
    const row = () => db.updateTable('maintenance_windows').where('feature_id', '=', featureId).where('window_key', '=', windowKey);
    switch (event.type) {
      case 'MaintenanceWindowEntered': {
        const d = event.data;
        await db
          .insertInto('maintenance_windows')
          .values({
            feature_id: featureId,
            window_key: windowKey,
            account_id: d.accountId,
            project_id: d.projectId,
            starts_at: d.startsAt,
            ends_at: d.endsAt,
            affected_account_ids: JSON.stringify(d.affectedAccountIds),
            copier_states: JSON.stringify(d.copierStates),
            copiers_switched: false,
            closed_for: JSON.stringify([]),
            entry_completed: false,
            exited: false,
            entered_at: d.at,
            exited_at: null,
          })
          .onConflict((oc) => oc.columns(['feature_id', 'window_key']).doNothing())
          .execute();
        return;
      }
      case 'MaintenanceWindowCopiersSwitched':
        await row().set({ copiers_switched: true }).execute();
        return;
      case 'MaintenanceWindowPositionsClosed':
        await row()
          .set({ closed_for: sql`closed_for || ${JSON.stringify([event.data.closedAccountId])}::jsonb` })
          .execute();
        return;
      case 'MaintenanceWindowEntryCompleted':
        await row().set({ entry_completed: true }).execute();
        return;
      case 'MaintenanceWindowExited':
        await row().set({ exited: true, exited_at: event.data.at }).execute();
        return;
    }
  },
};
