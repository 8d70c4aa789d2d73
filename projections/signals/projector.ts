// The signals read model: every signal provider and every signal follower, from their feature events
// (domain/signal/events.ts). A removed provider or follower keeps its row with `removed` set, so the days
// a follower followed and the fees a provider asked stay readable (the earnings read them); the queries
// of live ones filter on `removed IS NULL`.
import { sql } from 'kysely';
import { featureEventTypes, type FeatureEvent } from '../../domain/feature/events.js';
import { signalEventOf } from '../../domain/signal/events.js';
import type { SignalProviderSettings } from '../../domain/signal/provider.js';
import type { Projection } from '../projection.js';

const visibility = (s: SignalProviderSettings) => ({ visible: s.isPublic || s.makeVisibleInMarketplace, in_marketplace: s.makeVisibleInMarketplace });

export const signalsProjection: Projection = {
  name: 'signals',
  version: 1,
  handles: featureEventTypes,
  tables: ['signal_providers', 'signal_followers'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'signal_providers')} (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      account_id uuid NOT NULL,
      name text NOT NULL,
      settings jsonb NOT NULL,
      visible boolean NOT NULL,
      in_marketplace boolean NOT NULL,
      created timestamptz NOT NULL,
      updated timestamptz NOT NULL,
      removed timestamptz)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'signal_followers')} (
      id uuid PRIMARY KEY,
      provider_id uuid NOT NULL,
      project_id uuid NOT NULL,
      account_id uuid NOT NULL,
      settings jsonb NOT NULL,
      active boolean NOT NULL,
      suspended boolean NOT NULL,
      monitor_only boolean NOT NULL,
      subscribed timestamptz NOT NULL,
      updated timestamptz NOT NULL,
      removed timestamptz)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'signal_providers')} (project_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'signal_providers')} (account_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'signal_followers')} (provider_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'signal_followers')} (account_id)`.execute(db);
  },
  async apply(db, recorded) {
    const signal = signalEventOf(recorded as unknown as FeatureEvent);
    if (!signal) return;
    switch (signal.kind) {
      case 'ProviderCreated':
        await db
          .insertInto('signal_providers')
          .values({
            id: signal.providerId,
            project_id: signal.projectId!,
            account_id: signal.accountId,
            name: signal.settings.name,
            settings: JSON.stringify(signal.settings),
            ...visibility(signal.settings),
            created: signal.at,
            updated: signal.at,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      case 'ProviderUpdated':
        await db
          .updateTable('signal_providers')
          .set({ name: signal.settings.name, settings: JSON.stringify(signal.settings), ...visibility(signal.settings), updated: signal.at })
          .where('id', '=', signal.providerId)
          .execute();
        return;
      case 'FollowerSubscribed':
        await db
          .insertInto('signal_followers')
          .values({
            id: signal.followerId,
            provider_id: signal.settings.signalProviderId,
            project_id: signal.projectId!,
            account_id: signal.accountId,
            settings: JSON.stringify(signal.settings),
            active: signal.settings.active,
            suspended: signal.settings.suspended,
            monitor_only: signal.settings.monitorOnly,
            subscribed: signal.at,
            updated: signal.at,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      case 'FollowerUpdated':
        await db
          .updateTable('signal_followers')
          .set({
            settings: JSON.stringify(signal.settings),
            active: signal.settings.active,
            suspended: signal.settings.suspended,
            monitor_only: signal.settings.monitorOnly,
            updated: signal.at,
          })
          .where('id', '=', signal.followerId)
          .execute();
        return;
      case 'Removed':
        await db.updateTable('signal_providers').set({ removed: signal.at, updated: signal.at }).where('id', '=', signal.featureId).execute();
        await db.updateTable('signal_followers').set({ removed: signal.at, updated: signal.at }).where('id', '=', signal.featureId).execute();
        return;
    }
  },
};
