// Queries of the earnings read model: one provider's terms, fees, followers and their trades.
import type { Kysely } from 'kysely';
import type { BillingModel, FollowerPeriod, FollowerTrade, ProviderTerms } from '../../domain/earnings/earnings.js';
import { Decimal } from '../../domain/shared/decimal.js';
import type { ReadModels } from '../schema.js';

const iso = (value: Date | string): string => new Date(value).toISOString();

export interface EarningsFacts {
  readonly providerId: string;
  readonly projectId: string;
  readonly accountId: string;
  readonly created: string;
  readonly removed: string | null;
  readonly terms: ProviderTerms;
  readonly followers: FollowerPeriod[];
  /** In the provider account's currency: a result in a follower's other currency times its rate. */
  readonly trades: FollowerTrade[];
}

/** A follower's net result in the provider's currency: exact, rounded only where the amounts are. */
const inProviderCurrency = (result: string, rate: string | null): string => (rate === null ? result : new Decimal(result).times(rate).toFixed());

/** Everything the provider's earnings and follower costs are computed from; undefined for no provider. */
export const earningsFacts = async (db: Kysely<ReadModels>, providerId: string): Promise<EarningsFacts | undefined> => {
  const provider = await db.selectFrom('earnings_providers').selectAll().where('id', '=', providerId).executeTakeFirst();
  if (!provider) return undefined;
  const fees = await db.selectFrom('earnings_fees').selectAll().where('provider_id', '=', providerId).orderBy('seq').execute();
  const followers = await db.selectFrom('earnings_followers').selectAll().where('provider_id', '=', providerId).orderBy('subscribed').orderBy('id').execute();
  const trades =
    followers.length === 0
      ? []
      : await db
          .selectFrom('earnings_trades')
          .selectAll()
          .where(
            'follower_id',
            'in',
            followers.map((f) => f.id),
          )
          .orderBy('close_time')
          .orderBy('trade_id')
          .execute();
  return {
    providerId,
    projectId: provider.project_id,
    accountId: provider.account_id,
    created: iso(provider.created),
    removed: provider.removed ? iso(provider.removed) : null,
    terms: {
      billingModel: provider.billing_model as BillingModel,
      coverFollowerCosts: provider.cover_follower_costs,
      maxCoveredAccountsPerProject: provider.max_covered_accounts_per_project,
      fees: fees.map((f) => ({ at: iso(f.at), monthlySubscriptionFee: f.monthly_subscription_fee, profitSharingFee: f.profit_sharing_fee })),
    },
    followers: followers.map((f) => ({
      followerId: f.id,
      projectId: f.project_id,
      accountId: f.account_id,
      subscribed: iso(f.subscribed),
      removed: f.removed ? iso(f.removed) : null,
    })),
    trades: trades.map((t) => ({ followerId: t.follower_id, closeTime: iso(t.close_time), result: inProviderCurrency(t.result, t.rate) })),
  };
};
