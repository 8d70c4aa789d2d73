// Queries of the signals read model: providers, their live followers, what a project may follow.
import type { Kysely, Selectable } from 'kysely';
import type { SignalFollowerSettings } from '../../domain/signal/follower.js';
import type { SignalProviderSettings } from '../../domain/signal/provider.js';
import type { FeatureRow } from '../features/queries.js';
import type { ReadModels } from '../schema.js';
import type { SignalFollowersTable, SignalProvidersTable } from './tables.js';

export type SignalProviderRow = Omit<Selectable<SignalProvidersTable>, 'settings'> & { settings: SignalProviderSettings };
export type SignalFollowerRow = Omit<Selectable<SignalFollowersTable>, 'settings'> & { settings: SignalFollowerSettings };

/** A live provider, whatever its project (callers decide who may see it). */
export const findSignalProvider = async (db: Kysely<ReadModels>, providerId: string): Promise<SignalProviderRow | undefined> =>
  (await db.selectFrom('signal_providers').selectAll().where('id', '=', providerId).where('removed', 'is', null).executeTakeFirst()) as
    SignalProviderRow | undefined;

/** The live providers of a project's accounts. */
export const projectSignalProviders = async (db: Kysely<ReadModels>, projectId: string): Promise<SignalProviderRow[]> =>
  (await db
    .selectFrom('signal_providers')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('removed', 'is', null)
    .orderBy('created')
    .orderBy('id')
    .execute()) as SignalProviderRow[];

/** Live providers of other projects that are public or in the marketplace, or that name one of `emails` in allowCustomers. */
export const followableSignalProviders = async (db: Kysely<ReadModels>, projectId: string): Promise<SignalProviderRow[]> =>
  (await db
    .selectFrom('signal_providers')
    .selectAll()
    .where('project_id', '<>', projectId)
    .where('removed', 'is', null)
    .orderBy('created')
    .orderBy('id')
    .execute()) as SignalProviderRow[];

/** The live followers of a provider. */
export const signalFollowers = async (db: Kysely<ReadModels>, providerId: string): Promise<SignalFollowerRow[]> =>
  (await db
    .selectFrom('signal_followers')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('removed', 'is', null)
    .orderBy('subscribed')
    .orderBy('id')
    .execute()) as SignalFollowerRow[];

/** The live follower of a provider on one account. */
export const signalFollowerOnAccount = async (db: Kysely<ReadModels>, providerId: string, accountId: string): Promise<SignalFollowerRow | undefined> =>
  (await db
    .selectFrom('signal_followers')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('account_id', '=', accountId)
    .where('removed', 'is', null)
    .executeTakeFirst()) as SignalFollowerRow | undefined;

/** A live follower by its id (= its copier's id). */
export const findSignalFollower = async (db: Kysely<ReadModels>, followerId: string): Promise<SignalFollowerRow | undefined> =>
  (await db.selectFrom('signal_followers').selectAll().where('id', '=', followerId).where('removed', 'is', null).executeTakeFirst()) as
    SignalFollowerRow | undefined;

/** Every follower row of a provider, removed ones too, in subscription order (earnings, follower costs). */
export const signalFollowerHistory = async (db: Kysely<ReadModels>, providerId: string): Promise<SignalFollowerRow[]> =>
  (await db
    .selectFrom('signal_followers')
    .selectAll()
    .where('provider_id', '=', providerId)
    .orderBy('subscribed')
    .orderBy('id')
    .execute()) as SignalFollowerRow[];

/** A signal provider's or follower's feature row (the features read model), whatever its project. */
export const signalFeatureRow = (db: Kysely<ReadModels>, featureId: string): Promise<FeatureRow | undefined> =>
  db.selectFrom('features').selectAll().where('id', '=', featureId).where('scope_kind', '=', 'account').executeTakeFirst() as Promise<FeatureRow | undefined>;

/** The live providers on an account (allowReselling: a provider account that follows). */
export const signalProvidersOnAccount = async (db: Kysely<ReadModels>, accountId: string): Promise<SignalProviderRow[]> =>
  (await db.selectFrom('signal_providers').selectAll().where('account_id', '=', accountId).where('removed', 'is', null).execute()) as SignalProviderRow[];

/** The providers an account follows now (live followers on it, with their live providers). */
export const providersFollowedBy = async (db: Kysely<ReadModels>, accountId: string): Promise<SignalProviderRow[]> =>
  (await db
    .selectFrom('signal_followers as f')
    .innerJoin('signal_providers as p', 'p.id', 'f.provider_id')
    .selectAll('p')
    .where('f.account_id', '=', accountId)
    .where('f.removed', 'is', null)
    .where('p.removed', 'is', null)
    .execute()) as SignalProviderRow[];
