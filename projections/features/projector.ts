// The features read model: every configured feature with its setting and where it is attached, and
// when each feature's running state was last reset (by key: a symbol, or '*' for all).
import { sql } from 'kysely';
import { featureEventTypes, type FeatureEvent, type FeatureScope } from '../../domain/feature/events.js';
import type { Projection } from '../projection.js';

const scopeColumns = (scope: FeatureScope) => ({
  scope_kind: scope.kind,
  account_id: scope.kind === 'project' ? null : scope.accountId,
  copier_id: scope.kind === 'copier' ? scope.copierId : null,
});

export const featuresProjection: Projection = {
  name: 'features',
  version: 1,
  handles: featureEventTypes,
  tables: ['features', 'feature_resets'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'features')} (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      scope_kind text NOT NULL,
      account_id uuid,
      copier_id uuid,
      type text NOT NULL,
      setting jsonb NOT NULL,
      created timestamptz NOT NULL,
      updated timestamptz NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'features')} (copier_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'features')} (account_id)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'feature_resets')} (
      feature_id uuid NOT NULL,
      key text NOT NULL,
      at timestamptz NOT NULL,
      PRIMARY KEY (feature_id, key))`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as FeatureEvent;
    const { featureId, at } = event.data;
    switch (event.type) {
      case 'FeatureAdded':
        await db
          .insertInto('features')
          .values({
            id: featureId,
            project_id: event.data.projectId,
            ...scopeColumns(event.data.scope),
            type: event.data.setting.type,
            setting: JSON.stringify(event.data.setting),
            created: at,
            updated: at,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      case 'FeatureUpdated':
        await db
          .updateTable('features')
          .set({ setting: JSON.stringify(event.data.setting), updated: at })
          .where('id', '=', featureId)
          .execute();
        return;
      case 'FeatureRemoved':
        await db.deleteFrom('features').where('id', '=', featureId).execute();
        await db.deleteFrom('feature_resets').where('feature_id', '=', featureId).execute();
        return;
      case 'FeatureStateReset': {
        const key = event.data.key ?? '*';
        await db
          .insertInto('feature_resets')
          .values({ feature_id: featureId, key, at })
          .onConflict((oc) => oc.columns(['feature_id', 'key']).doUpdateSet({ at }))
          .execute();
        return;
      }
    }
  },
};
