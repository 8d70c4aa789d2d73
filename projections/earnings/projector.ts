// The earnings read model: the facts a signal provider's earnings and covered follower costs are
// computed from (domain/earnings/earnings.ts), taken from the events as they happened:
// - a provider's FeatureSignalProviderDTO added (its billing terms, its first fees), changed (every
//   fee it carried from then on), removed;
// - a follower's FeatureSignalFollowerDTO added (subscribed, to its signalProviderId) and removed;
// - the positions a follower's copier opened (CopyExecuted of the copier whose id is the follower's:
//   a follower's copier carries its feature's id), and their closed volumes (PositionClosed,
//   PositionPartiallyClosed of the follower account) with their net result in decimals, and the rate
//   that converts it to the provider's currency when the follower's account keeps another one
//   (CopyExecuted.slaveToMasterRate of the copy's opening, kept with the position and its closes).
// Nothing is computed here beyond that: a rebuild gives the same facts, hence the same numbers.
import { sql } from 'kysely';
import type { CopyEvent } from '../../domain/copy/events.js';
import type { FeatureEvent } from '../../domain/feature/events.js';
import { SIGNAL_PROVIDER_FEATURE } from '../../domain/market/ranking.js';
import type { PositionsEvent } from '../../domain/positions/events.js';
import { exact } from '../../domain/shared/decimal.js';
import type { RecordedEvent } from '../../store/port.js';
import type { Projection } from '../projection.js';
import { earningsApplyBatch, rateOf, SIGNAL_FOLLOWER_FEATURE } from './batch.js';

const money = (value: unknown, fallback: string): string => (typeof value === 'number' && Number.isFinite(value) ? exact(value).toFixed() : fallback);

export const earningsProjection: Projection = {
  name: 'earnings',
  // v2: the rate columns of positions and trades.
  version: 2,
  handles: ['FeatureAdded', 'FeatureUpdated', 'FeatureRemoved', 'CopyExecuted', 'PositionClosed', 'PositionPartiallyClosed'],
  tables: ['earnings_providers', 'earnings_fees', 'earnings_followers', 'earnings_positions', 'earnings_trades'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'earnings_providers')} (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      account_id uuid NOT NULL,
      billing_model text NOT NULL,
      cover_follower_costs boolean NOT NULL,
      max_covered_accounts_per_project integer NOT NULL,
      created timestamptz NOT NULL,
      removed timestamptz)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'earnings_fees')} (
      provider_id uuid NOT NULL,
      seq integer NOT NULL,
      at timestamptz NOT NULL,
      monthly_subscription_fee text NOT NULL,
      profit_sharing_fee text NOT NULL,
      PRIMARY KEY (provider_id, seq))`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'earnings_followers')} (
      id uuid PRIMARY KEY,
      provider_id uuid NOT NULL,
      project_id uuid NOT NULL,
      account_id uuid NOT NULL,
      subscribed timestamptz NOT NULL,
      removed timestamptz)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'earnings_positions')} (
      follower_id uuid NOT NULL,
      account_id uuid NOT NULL,
      position_id text NOT NULL,
      rate text,
      PRIMARY KEY (account_id, position_id, follower_id))`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'earnings_trades')} (
      follower_id uuid NOT NULL,
      account_id uuid NOT NULL,
      trade_id text NOT NULL,
      close_time timestamptz NOT NULL,
      result text NOT NULL,
      rate text,
      PRIMARY KEY (account_id, trade_id, follower_id))`.execute(db);
  },
  async createIndexes(db, schema) {
    await sql`CREATE INDEX ON ${sql.id(schema, 'earnings_followers')} (provider_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'earnings_trades')} (follower_id, close_time)`.execute(db);
  },
  apply: async (db, recorded: RecordedEvent) => {
    const event = recorded as unknown as FeatureEvent | CopyEvent | PositionsEvent;
    switch (event.type) {
      case 'FeatureAdded': {
        const { featureId, scope, projectId, setting, at } = event.data;
        if (scope.kind !== 'account') return;
        if (setting.type === SIGNAL_PROVIDER_FEATURE) {
          await db
            .insertInto('earnings_providers')
            .values({
              id: featureId,
              project_id: projectId,
              account_id: scope.accountId,
              billing_model: setting.billingModel === 'HIGH_WATERMARK' ? 'HIGH_WATERMARK' : 'MONTHLY_PROFIT',
              cover_follower_costs: setting.coverFollowerCosts === true,
              max_covered_accounts_per_project: typeof setting.maxCoveredAccountsPerProject === 'number' ? setting.maxCoveredAccountsPerProject : 0,
              created: at,
            })
            .onConflict((oc) => oc.column('id').doNothing())
            .execute();
          await db
            .insertInto('earnings_fees')
            .values({
              provider_id: featureId,
              seq: 0,
              at,
              monthly_subscription_fee: money(setting.monthlySubscriptionFee, '0'),
              profit_sharing_fee: money(setting.profitSharingFee, '0'),
            })
            .onConflict((oc) => oc.columns(['provider_id', 'seq']).doNothing())
            .execute();
        } else if (setting.type === SIGNAL_FOLLOWER_FEATURE && typeof setting.signalProviderId === 'string') {
          await db
            .insertInto('earnings_followers')
            .values({ id: featureId, provider_id: setting.signalProviderId, project_id: projectId, account_id: scope.accountId, subscribed: at })
            .onConflict((oc) => oc.column('id').doNothing())
            .execute();
        }
        return;
      }
      case 'FeatureUpdated': {
        const { featureId, setting, at } = event.data;
        if (setting.type !== SIGNAL_PROVIDER_FEATURE) return;
        const last = await db
          .selectFrom('earnings_fees')
          .select(['seq'])
          .where('provider_id', '=', featureId)
          .orderBy('seq', 'desc')
          .limit(1)
          .executeTakeFirst();
        if (!last) return;
        await db
          .insertInto('earnings_fees')
          .values({
            provider_id: featureId,
            seq: last.seq + 1,
            at,
            monthly_subscription_fee: money(setting.monthlySubscriptionFee, '0'),
            profit_sharing_fee: money(setting.profitSharingFee, '0'),
          })
          .execute();
        return;
      }
      case 'FeatureRemoved': {
        const { featureId, at } = event.data;
        await db.updateTable('earnings_providers').set({ removed: at }).where('id', '=', featureId).where('removed', 'is', null).execute();
        await db.updateTable('earnings_followers').set({ removed: at }).where('id', '=', featureId).where('removed', 'is', null).execute();
        return;
      }
      case 'CopyExecuted': {
        const { copierId, slaveAccountId, result } = event.data;
        if (result.type !== 'opened') return;
        const follower = await db.selectFrom('earnings_followers').select('id').where('id', '=', copierId).executeTakeFirst();
        if (!follower) return;
        await db
          .insertInto('earnings_positions')
          .values({ follower_id: copierId, account_id: slaveAccountId, position_id: result.slavePositionId, rate: rateOf(event) })
          .onConflict((oc) => oc.doNothing())
          .execute();
        return;
      }
      case 'PositionClosed':
      case 'PositionPartiallyClosed': {
        const { accountId, trade } = event.data;
        const owners = await db
          .selectFrom('earnings_positions')
          .select(['follower_id', 'rate'])
          .where('account_id', '=', accountId)
          .where('position_id', '=', trade.positionId)
          .execute();
        if (owners.length === 0) return;
        const result = exact(trade.profit).plus(exact(trade.swap)).plus(exact(trade.commission)).toFixed();
        await db
          .insertInto('earnings_trades')
          .values(
            owners.map((o) => ({
              follower_id: o.follower_id,
              account_id: accountId,
              trade_id: trade.tradeId,
              close_time: trade.closeTime,
              result,
              rate: o.rate,
            })),
          )
          .onConflict((oc) => oc.doNothing())
          .execute();
        return;
      }
      default:
        return;
    }
  }, // A batch in a few statements (projections/earnings/batch.ts): the same rows as `apply` on each in turn.
  applyBatch: (db, events) => earningsApplyBatch(earningsProjection.apply)(db, events),
};
