// The features read model: every configured feature with its setting and where it is attached, and
// when each feature's running state was last reset (by key: a symbol, or '*' for all). An account's new
// alias (AccountUpdated) is written into the aliasMapping of the chat notification features naming that
// account (FeatureMessagingNotificationDTO, FeatureTelegramNotificationDTO: read-only, "the aliases of
// accountIds"), so the answer never shows an alias the account no longer has; a rebuild folds the same.
import { sql } from 'kysely';
import type { AccountEvent } from '../../domain/account/events.js';
import { featureEventTypes, type FeatureEvent, type FeatureScope, type FeatureSetting } from '../../domain/feature/events.js';
import { CHAT_NOTIFICATION_TYPES, type ChatNotificationEntry, settingWithAlias } from '../../domain/notification/chatFeatures.js';
import type { Projection } from '../projection.js';

const scopeColumns = (scope: FeatureScope) => ({
  scope_kind: scope.kind,
  account_id: scope.kind === 'project' ? null : scope.accountId,
  copier_id: scope.kind === 'copier' ? scope.copierId : null,
});

/** The chat notification features naming the account answer its new alias (or none). */
const aliasChanged = async (db: Parameters<Projection['apply']>[0], event: Extract<AccountEvent, { type: 'AccountUpdated' }>): Promise<void> => {
  const { accountId, changes } = event.data;
  if (changes.alias === undefined) return;
  const rows = await db
    .selectFrom('features')
    .select(['id', 'setting'])
    .where('type', 'in', [...CHAT_NOTIFICATION_TYPES])
    .where(sql<boolean>`setting->'notifications' @> ${JSON.stringify([{ accountIds: [accountId] }])}::jsonb`)
    .execute();
  for (const row of rows) {
    const setting = settingWithAlias(row.setting as FeatureSetting & { notifications?: ChatNotificationEntry[] }, accountId, changes.alias);
    if (setting)
      await db
        .updateTable('features')
        .set({ setting: JSON.stringify(setting) })
        .where('id', '=', row.id)
        .execute();
  }
};

export const featuresProjection: Projection = {
  name: 'features',
  // v2: aliasMapping follows AccountUpdated.
  version: 2,
  handles: [...featureEventTypes, 'AccountUpdated'],
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
    if (recorded.type === 'AccountUpdated') return aliasChanged(db, recorded as unknown as Extract<AccountEvent, { type: 'AccountUpdated' }>);
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
