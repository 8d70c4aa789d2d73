// Queries of the billing read model: the usage facts of some projects (domain/billing/usage.ts), and
// the follower-days signal providers cover, from the earnings read model (domain/earnings followerCosts).
import type { Kysely } from 'kysely';
import type { AccountUsage, CoveredFollowerDays, FeatureUsage, Month, UsageFacts } from '../../domain/billing/usage.js';
import { followerCosts } from '../../domain/earnings/earnings.js';
import { earningsFacts } from '../earnings/queries.js';
import type { ReadModels } from '../schema.js';

const iso = (value: Date | string): string => new Date(value).toISOString();

/** The follower-days of `month` that signal providers cover, where the provider or the follower is one of `projectIds`. */
export const coveredFollowerDays = async (
  db: Kysely<ReadModels>,
  projectIds: readonly string[],
  month: Month,
  rate: string,
  zone: string,
): Promise<CoveredFollowerDays[]> => {
  if (projectIds.length === 0) return [];
  const providers = await db
    .selectFrom('earnings_providers')
    .select('id')
    .where('cover_follower_costs', '=', true)
    .where((eb) =>
      eb.or([
        eb('project_id', 'in', projectIds),
        eb('id', 'in', eb.selectFrom('earnings_followers').select('provider_id').where('project_id', 'in', projectIds)),
      ]),
    )
    .orderBy('created')
    .orderBy('id')
    .execute();
  const out: CoveredFollowerDays[] = [];
  for (const { id } of providers) {
    const facts = await earningsFacts(db, id);
    if (!facts) continue;
    for (const m of followerCosts(facts.terms, facts.followers, [month], rate, undefined, zone)) {
      for (const f of m.followers) {
        if (!projectIds.includes(facts.projectId) && !projectIds.includes(f.projectId)) continue;
        out.push({
          providerId: id,
          providerProjectId: facts.projectId,
          followerId: f.followerId,
          followerProjectId: f.projectId,
          followerAccountId: f.accountId,
          daysActive: f.daysActive,
        });
      }
    }
  }
  return out;
};

/** Every account and feature of `projectIds` ever recorded (usage picks the days of a month). */
export const usageFacts = async (
  db: Kysely<ReadModels>,
  projectIds: readonly string[],
  month: Month,
  followerRate: string,
  zone: string,
): Promise<UsageFacts> => {
  if (projectIds.length === 0) return { accounts: [], features: [], coveredFollowers: [] };
  const accounts = await db.selectFrom('billing_accounts').selectAll().where('project_id', 'in', projectIds).execute();
  const types =
    accounts.length === 0
      ? []
      : await db
          .selectFrom('billing_account_types')
          .selectAll()
          .where(
            'account_id',
            'in',
            accounts.map((a) => a.account_id),
          )
          .orderBy('account_id')
          .orderBy('seq')
          .execute();
  const features = await db.selectFrom('billing_features').selectAll().where('project_id', 'in', projectIds).execute();
  const accountUsage: AccountUsage[] = accounts.map((a) => ({
    accountId: a.account_id,
    projectId: a.project_id,
    alias: a.alias,
    created: iso(a.created),
    deleted: a.deleted ? iso(a.deleted) : null,
    types: types.filter((t) => t.account_id === a.account_id).map((t) => ({ at: iso(t.at), accountTypeId: t.account_type_id })),
  }));
  const featureUsage: FeatureUsage[] = features.map((f) => ({
    featureId: f.feature_id,
    projectId: f.project_id,
    featureDto: f.feature_dto,
    aiTier: f.ai_tier,
    added: iso(f.added),
    removed: f.removed ? iso(f.removed) : null,
  }));
  return { accounts: accountUsage, features: featureUsage, coveredFollowers: await coveredFollowerDays(db, projectIds, month, followerRate, zone) };
};

/** The first month anything of `projectIds` was used (null: nothing ever was). */
export const firstUsage = async (db: Kysely<ReadModels>): Promise<Date | null> => {
  const a = await db
    .selectFrom('billing_accounts')
    .select((eb) => eb.fn.min('created').as('first'))
    .executeTakeFirst();
  const f = await db
    .selectFrom('billing_features')
    .select((eb) => eb.fn.min('added').as('first'))
    .executeTakeFirst();
  const times = [a?.first, f?.first].filter((x): x is Date => x !== null && x !== undefined).map((x) => new Date(x));
  return times.length === 0 ? null : new Date(Math.min(...times.map((x) => x.getTime())));
};

/** Projects with anything in use during [from, to) (ms). */
export const projectsUsedBetween = async (db: Kysely<ReadModels>, from: Date, to: Date): Promise<string[]> => {
  const a = await db
    .selectFrom('billing_accounts')
    .select('project_id')
    .distinct()
    .where('created', '<', to)
    .where((eb) => eb.or([eb('deleted', 'is', null), eb('deleted', '>', from)]))
    .execute();
  const f = await db
    .selectFrom('billing_features')
    .select('project_id')
    .distinct()
    .where('added', '<', to)
    .where((eb) => eb.or([eb('removed', 'is', null), eb('removed', '>', from)]))
    .execute();
  return [...new Set([...a, ...f].map((r) => r.project_id))].sort();
};
