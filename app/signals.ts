// Signal providers and followers (issue 19; spec "Feature DTOs" FeatureSignalProviderDTO and
// FeatureSignalFollowerDTO, the /signals operations). A provider and a follower are account features;
// what spans aggregates and projects is decided here:
//   - a follower's copying is a copier of the follower's project whose id is the follower feature's id
//     and whose master is the provider's account, which may belong to another project. That is the one
//     deliberate exception to "a copier copies within its project" (app/commands/createCopier.ts checks
//     the master is the project's): it is made only here, for a provider the follower's project may
//     follow (domain/signal/provider.ts followableBy), and the copier is reached only through the
//     follower feature (its project's copier routes do not list it) and the provider's /signals routes.
//   - a follower sees the provider's public members (the FeatureSignalProviderDTO without its account)
//     and the copies of its trades on its own account; the provider sees its followers only through
//     /signals/{signalProviderId}/... (api/signals/routes.ts), which act on the follower's account as the
//     follower's project would, for that account only.
// A follower's feature and copier are written together (writeFollower: one appendToStreams, one
// transaction on PostgreSQL): subscribing, changing and leaving store both or neither. On EventStoreDB
// that is two appends; app/signalsRepair.ts finishes (or undoes) one a crash left half-done.
// Every step of one provider (its changes, its followers' subscriptions, changes and removal) takes the
// provider's turn, so a follower's copier settings always follow the provider's current ones. A
// subscription's cycle check and its write also take the copy network's turn (COPIER_GRAPH_TURN, inside
// the provider's), the one every copier creation of any project takes: a follower's link joins projects.
import { AccountStatus } from '../domain/account/enums.js';
import type { CopierCommand } from '../domain/copier/commands.js';
import { copierDecider } from '../domain/copier/decider.js';
import { copierStream } from '../domain/copier/events.js';
import { wouldCloseCycle } from '../domain/copier/graph.js';
import type { FeatureCommand } from '../domain/feature/commands.js';
import { featureDecider } from '../domain/feature/decider.js';
import { type FeatureSetting, featureStream } from '../domain/feature/events.js';
import type { RequestContext } from '../domain/shared/command.js';
import { illegalState, invalid, notFound } from '../domain/shared/errors.js';
import { forbiddenOverrides, followerCopierSettings, SIGNAL_FOLLOWER, type SignalFollowerSettings } from '../domain/signal/follower.js';
import { checkMinimumBalanceMet } from '../domain/signal/minimumBalance.js';
import { brokerAllowed, followableBy, SIGNAL_PROVIDER, type SignalProviderSettings } from '../domain/signal/provider.js';
import { venueConversion } from '../engine/copy/currencyRate.js';
import { copierEdgesAround } from '../projections/copiers/queries.js';
import { findProject } from '../projections/projects/queries.js';
import {
  findSignalProvider,
  providersFollowedBy,
  signalFollowerOnAccount,
  signalProvidersOnAccount,
  signalFollowers,
  type SignalFollowerRow,
  type SignalProviderRow,
} from '../projections/signals/queries.js';
import { comparePositions, type Position } from '../store/port.js';
import { COPIER_GRAPH_TURN } from './commands/createCopier.js';
import { afterCopyEngine, commandMetadata, execute, oneAtATime, readYourWrites, type Services } from './services.js';
import { MultiStreamCommand } from './templatesCommand.js';

/** What the answers of signal writes are read from. */
export const SIGNAL_READ_MODELS = ['features', 'signals', 'copiers'] as const;

export const isSignalFeature = (type: string): boolean => type === SIGNAL_PROVIDER || type === SIGNAL_FOLLOWER;

const members = <S>(setting: FeatureSetting): S => {
  const { type: _type, ...rest } = setting;
  return rest as S;
};

export const signalProviderNotFound = (providerId: string) => notFound('[SIGNAL_PROVIDER_NOT_FOUND]', `signal provider ${providerId} not found`);

export const providerTurn = (providerId: string) => `signal:${providerId}`;

const runFeature = (services: Services, command: FeatureCommand) =>
  execute(services, featureStream(command.data.featureId), featureDecider, command, SIGNAL_READ_MODELS);
const runCopier = (services: Services, command: CopierCommand) =>
  execute(services, copierStream(command.data.copierId), copierDecider, command, SIGNAL_READ_MODELS);

/**
 * A follower's feature and copier steps written together: both decided by their own aggregates, then
 * appended in ONE appendToStreams call (store/port.ts), so a crash or a refusal between the two stores
 * neither and no follower is left without its copier (or a copier without its follower). PostgreSQL: one
 * transaction. EventStoreDB (no transaction across streams, store/port.ts): appended in the order given
 * (a subscription's feature first, a removal's copier first, so a half write never copies unseen); a
 * crash between the two entries is repaired by the leased SignalFollowerRepair (app/signalsRepair.ts).
 * Answers the copier stream's append position (the copy engine acts on it) once the read models hold both.
 */
const writeFollower = async (
  services: Services,
  context: RequestContext,
  name: string,
  feature: FeatureCommand,
  copier: CopierCommand | null,
  copierFirst = false,
): Promise<Position | null> => {
  const command = new MultiStreamCommand(services.store, name, commandMetadata(services, context));
  const steps: (() => Promise<unknown>)[] = [
    () => command.decide(featureStream(feature.data.featureId), featureDecider, feature),
    ...(copier ? [() => command.decide(copierStream(copier.data.copierId), copierDecider, copier)] : []),
  ];
  for (const step of copierFirst ? steps.reverse() : steps) await step();
  if (!command.changes) return null;
  const committed = await command.commit();
  const positions = [...committed.results.values()].map((r) => r.position);
  const last = positions.reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b));
  await readYourWrites(services, last, name, SIGNAL_READ_MODELS);
  return copier ? (committed.results.get(copierStream(copier.data.copierId))?.position ?? null) : null;
};

/** The owner e-mail of a project, for allowCustomers. */
const ownerOf = async (services: Services, projectId: string): Promise<string | null> => (await findProject(services.db, projectId))?.owner ?? null;

/**
 * The provider as a project may see it: its own, or one it may follow (public, in the marketplace, or
 * its owner in allowCustomers). Another is not found, as if it did not exist.
 */
export const visibleSignalProvider = async (services: Services, projectId: string, providerId: string): Promise<SignalProviderRow> => {
  const provider = await findSignalProvider(services.db, providerId);
  if (!provider) throw signalProviderNotFound(providerId);
  if (provider.project_id === projectId) return provider;
  if (!followableBy(provider.settings, await ownerOf(services, projectId))) throw signalProviderNotFound(providerId);
  return provider;
};

/** The provider of the caller's project: the /signals operations are the provider's only. */
export const ownSignalProvider = async (services: Services, projectId: string, providerId: string): Promise<SignalProviderRow> => {
  const provider = await findSignalProvider(services.db, providerId);
  if (!provider || provider.project_id !== projectId) throw signalProviderNotFound(providerId);
  return provider;
};

/** The live follower of a provider on `accountId`; 404 [SIGNAL_FOLLOWER_NOT_FOUND] for any other account. */
export const followerOf = async (services: Services, providerId: string, accountId: string): Promise<SignalFollowerRow> => {
  const follower = await signalFollowerOnAccount(services.db, providerId, accountId);
  if (!follower) throw notFound('[SIGNAL_FOLLOWER_NOT_FOUND]', `account ${accountId} does not follow signal provider ${providerId}`);
  return follower;
};

/** The projects reading them: every project that may follow the signal, with accessAllowed as that project sees it. */
export const followableProviders = async (services: Services, projectId: string, rows: readonly SignalProviderRow[]): Promise<SignalProviderRow[]> => {
  const owner = await ownerOf(services, projectId);
  return rows.filter((p) => p.project_id === projectId || followableBy(p.settings, owner));
};

interface FeatureWrite {
  readonly command: Extract<FeatureCommand, { type: 'AddFeature' | 'UpdateFeature' }>;
  readonly context: RequestContext;
}

// ------------------------------------------------------------------ the provider's feature

const updateFollowerCopiers = async (services: Services, provider: SignalProviderSettings, context: RequestContext, providerId: string) => {
  for (const follower of await signalFollowers(services.db, providerId)) {
    await runCopier(services, {
      type: 'UpdateCopier',
      data: {
        copierId: follower.id,
        projectId: follower.project_id,
        toAccountId: follower.account_id,
        changes: followerCopierSettings(provider, follower.settings),
      },
      metadata: commandMetadata(services, context),
    });
  }
};

// ------------------------------------------------------------------ the follower's feature

/** The checks of a subscription that read other aggregates; the setting as stored. */
const subscription = async (services: Services, command: FeatureWrite['command'], previous: SignalFollowerSettings | null) => {
  const { projectId, scope } = command.data;
  if (scope.kind !== 'account') throw invalid('[FEATURE_SCOPE_NOT_ALLOWED]', 'a signal follower attaches to an account');
  const sent = members<SignalFollowerSettings>(command.data.setting);
  if (previous && sent.signalProviderId !== previous.signalProviderId) {
    throw invalid('[SIGNAL_PROVIDER_IMMUTABLE]', `signalProviderId cannot change (it is ${previous.signalProviderId}); delete the follower and add another`, {
      field: 'body.setting.signalProviderId',
    });
  }
  const provider = await visibleSignalProvider(services, projectId, sent.signalProviderId);
  const forbidden = forbiddenOverrides(provider.settings, sent.copier);
  if (forbidden.length > 0) {
    throw invalid('[SIGNAL_OVERRIDE_NOT_ALLOWED]', `the signal provider does not let followers override ${forbidden.join(', ')} (allowedOverrideFields)`, {
      field: `body.setting.copier.${forbidden[0]}`,
    });
  }
  // suspended is the provider's: the follower's own write keeps what the provider set.
  const settings: SignalFollowerSettings = {
    ...sent,
    suspended: previous?.suspended ?? false,
    signalProviderName: provider.name,
    signalProviderAvailable: true,
  };
  return { provider, settings, accountId: scope.accountId };
};

/**
 * minimumBalance (FeatureSignalProviderDTO; 0 = none), in the provider account's currency: the follower
 * account's balance, read from its live session when it subscribes, converted from its currency at its
 * venue's quotes as its copies' rate is (the pair of the two, else through USD: engine/copy/currencyRate.ts),
 * must be at least that much.
 * Below it: 409 [SIGNAL_MINIMUM_BALANCE_NOT_MET]; currencies no quote links: 409
 * [SIGNAL_CURRENCY_NOT_CONVERTIBLE]; a follower account without a live session (its balance cannot be
 * read) or a provider account without one (its currency cannot be read): 409 [ACCOUNT_NOT_CONNECTED].
 * Only at subscription: a follower whose balance falls later keeps following.
 */
const checkMinimumBalance = async (services: Services, provider: SignalProviderRow, accountId: string): Promise<void> => {
  const minimum = provider.settings.minimumBalance;
  if (!minimum) return;
  const connection = services.connections.connection(accountId);
  if (!connection) {
    throw illegalState(
      '[ACCOUNT_NOT_CONNECTED]',
      `the signal provider asks for a balance of at least ${minimum}; account ${accountId} has no live session to read its balance from (start it first)`,
    );
  }
  const source = services.connections.connection(provider.account_id);
  if (!source) {
    throw illegalState(
      '[ACCOUNT_NOT_CONNECTED]',
      `the signal provider asks for a balance of at least ${minimum} in its account's currency, which cannot be read while its account has no live session`,
    );
  }
  const [{ balance, currency }, { currency: providerCurrency }] = await Promise.all([connection.accountInformation(), source.accountInformation()]);
  // The follower venue's quotes, as its copies' rate reads them (a venue that does not list a symbol refuses its quote).
  const toProvider = await venueConversion(connection, currency, providerCurrency);
  checkMinimumBalanceMet({ minimum, providerCurrency, accountId, balance, currency }, toProvider);
};

/**
 * The checks a follower's copier must pass that read other aggregates (the accounts, the provider's
 * brokers, a cycle through the copiers of any project): a refusal throws. Subscribing runs them, and so does
 * the repair of a subscription left half-done (app/signalsRepair.ts), which undoes one that fails them.
 */
export const checkFollowerCopier = async (services: Services, provider: SignalProviderRow, accountId: string, projectId: string): Promise<void> => {
  if (accountId === provider.account_id) throw invalid('[COPIER_SELF_REFERENCE]', 'an account cannot follow its own signal');
  const [account, master] = await Promise.all([
    services.db.selectFrom('accounts').selectAll().where('id', '=', accountId).where('project_id', '=', projectId).executeTakeFirst(),
    services.db.selectFrom('accounts').select(['id', 'account_status_id']).where('id', '=', provider.account_id).executeTakeFirst(),
  ]);
  if (!account) throw notFound('[ACCOUNT_NOT_FOUND]', `account ${accountId} not found`);
  if (account.account_status_id === AccountStatus.Deleted) throw illegalState('[ACCOUNT_DELETED]', `account ${accountId} was deleted`);
  if (!master || master.account_status_id === AccountStatus.Deleted) throw signalProviderNotFound(provider.id);
  if (!brokerAllowed(provider.settings, account.login_server)) {
    throw invalid('[SIGNAL_BROKER_NOT_ALLOWED]', `the signal provider allows followers of the brokers ${provider.settings.allowedBrokers.join(', ')} only`, {
      field: 'body.setting.signalProviderId',
    });
  }
  await checkNoFollowerCycle(services, provider, accountId, projectId);
};

/**
 * The links on from the follower's account, through every project (signals join them): a cycle runs back
 * from it to the provider's account. Not the whole network: one recursive walk (copierEdgesAround). It
 * holds until the write only in the copy network's turn (COPIER_GRAPH_TURN).
 */
export const checkNoFollowerCycle = async (services: Services, provider: SignalProviderRow, accountId: string, projectId: string): Promise<void> => {
  const edges = await copierEdgesAround(services.db, projectId, [accountId]);
  if (wouldCloseCycle(edges, provider.account_id, accountId)) {
    throw illegalState('[COPIER_CYCLE]', "following would close a cycle: the provider's account copies from this account, directly or through others");
  }
};

/** The CreateCopier of a follower: its id is the follower feature's, its master the provider's account. */
export const followerCopierCreation = (
  services: Services,
  provider: SignalProviderRow,
  follower: { featureId: string; projectId: string; accountId: string; settings: SignalFollowerSettings },
  context: RequestContext,
): Extract<CopierCommand, { type: 'CreateCopier' }> => ({
  type: 'CreateCopier',
  data: {
    copierId: follower.featureId,
    projectId: follower.projectId,
    toAccountId: follower.accountId,
    fromAccountId: provider.account_id,
    settings: followerCopierSettings(provider.settings, follower.settings),
    signalProviderId: provider.id,
  },
  metadata: commandMetadata(services, context),
});

const subscribe = async (services: Services, { command, context }: FeatureWrite): Promise<void> => {
  const { provider, settings, accountId } = await subscription(services, command, null);
  const projectId = command.data.projectId;
  let position: Position | null = null;
  await oneAtATime(services, providerTurn(provider.id), async () => {
    await checkFollowerCopier(services, provider, accountId, projectId);
    if (!provider.settings.allowReselling && (await signalProvidersOnAccount(services.db, accountId)).length > 0) throw resellingRefused(provider, accountId);
    await checkMinimumBalance(services, provider, accountId);
    if (await signalFollowerOnAccount(services.db, provider.id, accountId)) {
      throw illegalState('[SIGNAL_ALREADY_FOLLOWED]', `account ${accountId} follows signal provider ${provider.id} already`);
    }
    const copier = followerCopierCreation(services, provider, { featureId: command.data.featureId, projectId, accountId, settings }, context);
    // Feature and copier in one write: the copier's own rules answer before anything is written.
    const feature: FeatureCommand = { ...command, data: { ...command.data, setting: { ...settings, type: SIGNAL_FOLLOWER } } };
    // The cycle walk again, in the copy network's turn, where it holds until the write (the first answered
    // before the balance check asked the venue, which is not done in that turn).
    const written = await oneAtATime(services, COPIER_GRAPH_TURN, async () => {
      await checkNoFollowerCycle(services, provider, accountId, projectId);
      return writeFollower(services, context, 'SubscribeSignalFollower', feature, copier);
    });
    if (copier.data.settings.copyOpenPositions && copier.data.settings.active) position = written;
  });
  await afterCopyEngine(services, position, [...SIGNAL_READ_MODELS, 'copies', 'positions']);
};

/** A follower's feature and copier as `settings` say (the follower's PUT, or the provider's suspension). */
const changeFollower = async (services: Services, follower: SignalFollowerRow, settings: SignalFollowerSettings, context: RequestContext): Promise<void> => {
  await oneAtATime(services, providerTurn(follower.provider_id), async () => {
    const provider = await findSignalProvider(services.db, follower.provider_id);
    const scope = { kind: 'account', accountId: follower.account_id } as const;
    const metadata = commandMetadata(services, context);
    const feature: FeatureCommand = {
      type: 'UpdateFeature',
      data: { featureId: follower.id, projectId: follower.project_id, scope, setting: { ...settings, type: SIGNAL_FOLLOWER } },
      metadata,
    };
    const copier: CopierCommand | null = provider
      ? {
          type: 'UpdateCopier',
          data: {
            copierId: follower.id,
            projectId: follower.project_id,
            toAccountId: follower.account_id,
            changes: followerCopierSettings(provider.settings, settings),
          },
          metadata,
        }
      : null;
    await writeFollower(services, context, 'UpdateSignalFollower', feature, copier);
  });
};

/**
 * The follower leaves: its copier and its feature in one write (the copier's entry first, so on
 * EventStoreDB nothing more is copied once anything is stored).
 */
const unsubscribe = async (services: Services, follower: Pick<SignalFollowerRow, 'id' | 'project_id' | 'account_id'>, context: RequestContext) => {
  const metadata = commandMetadata(services, context);
  const target = { copierId: follower.id, projectId: follower.project_id, toAccountId: follower.account_id };
  const copier = await services.db.selectFrom('copiers').select('id').where('id', '=', follower.id).executeTakeFirst();
  const feature: FeatureCommand = {
    type: 'RemoveFeature',
    data: { featureId: follower.id, projectId: follower.project_id, scope: { kind: 'account', accountId: follower.account_id } },
    metadata,
  };
  await writeFollower(services, context, 'RemoveSignalFollower', feature, copier ? { type: 'DeleteCopier', data: target, metadata } : null, true);
};

// ------------------------------------------------------------------ the feature routes' entry points

/**
 * allowReselling (FeatureSignalProviderDTO, set at creation): whether a follower may resell the signal,
 * i.e. offer the trades it copies as a signal of its own. Here that is a signal provider on an account
 * that follows the provider: refused with 409 [SIGNAL_RESELLING_NOT_ALLOWED] when the followed provider's
 * allowReselling is false, both ways (a provider added on a following account, or a provider account
 * subscribing to such a signal).
 */
const resellingRefused = (followed: SignalProviderRow, accountId: string) =>
  illegalState(
    '[SIGNAL_RESELLING_NOT_ALLOWED]',
    `account ${accountId} follows signal provider ${followed.id}, which does not allow reselling its signal (allowReselling false): it cannot be a signal provider while it follows`,
  );

/** POST of a FeatureSignalProviderDTO or FeatureSignalFollowerDTO (api/features/routes.ts, in the account's turn). */
export const addSignalFeature = async (services: Services, write: FeatureWrite): Promise<void> => {
  if (write.command.data.setting.type === SIGNAL_FOLLOWER) return subscribe(services, write);
  const scope = write.command.data.scope;
  if (scope.kind === 'account') {
    const closed = (await providersFollowedBy(services.db, scope.accountId)).find((p) => !p.settings.allowReselling);
    if (closed) throw resellingRefused(closed, scope.accountId);
  }
  await runFeature(services, write.command);
};

/** PUT of one: a provider's followers' copiers follow its change; a follower's copier follows its own. */
export const updateSignalFeature = async (services: Services, write: FeatureWrite, previous: FeatureSetting): Promise<void> => {
  const { command, context } = write;
  if (command.data.setting.type === SIGNAL_FOLLOWER) {
    const { settings } = await subscription(services, command, members<SignalFollowerSettings>(previous));
    const follower = await signalFollowerOnAccount(
      services.db,
      settings.signalProviderId,
      command.data.scope.kind === 'account' ? command.data.scope.accountId : '',
    );
    if (!follower || follower.id !== command.data.featureId) throw notFound('[FEATURE_NOT_FOUND]', `feature ${command.data.featureId} not found`);
    await changeFollower(services, follower, settings, context);
    return;
  }
  const providerId = command.data.featureId;
  await oneAtATime(services, providerTurn(providerId), async () => {
    await runFeature(services, command);
    await updateFollowerCopiers(services, members<SignalProviderSettings>(command.data.setting), context, providerId);
  });
};

/** DELETE of one: a provider with followers stays (409); a follower leaves (its copier goes first). */
export const removeSignalFeature = async (
  services: Services,
  command: Extract<FeatureCommand, { type: 'RemoveFeature' }>,
  current: FeatureSetting,
  context: RequestContext,
): Promise<void> => {
  const { featureId, projectId, scope } = command.data;
  if (current.type === SIGNAL_FOLLOWER) {
    const providerId = members<SignalFollowerSettings>(current).signalProviderId;
    const accountId = scope.kind === 'account' ? scope.accountId : '';
    await oneAtATime(services, providerTurn(providerId), () => unsubscribe(services, { id: featureId, project_id: projectId, account_id: accountId }, context));
    return;
  }
  await oneAtATime(services, providerTurn(featureId), async () => {
    const followers = await signalFollowers(services.db, featureId);
    if (followers.length > 0) {
      throw illegalState(
        '[SIGNAL_PROVIDER_HAS_FOLLOWERS]',
        `${followers.length} account(s) follow this signal provider; remove them first (DELETE /signals/${featureId}/accounts/{accountId}/followerFeature)`,
      );
    }
    await runFeature(services, command);
  });
};

// ------------------------------------------------------------------ the provider's actions on its followers

/** PUT .../followerFeature: the provider sets `suspended` (the follower's other members stay the follower's). */
export const setFollowerSuspended = async (services: Services, follower: SignalFollowerRow, suspended: boolean, context: RequestContext): Promise<void> => {
  if (follower.settings.suspended === suspended) return;
  await changeFollower(services, follower, { ...follower.settings, suspended }, context);
};

/** Open positions of the provider's source account, from the positions read model. */
export const providerOpenPositions = async (services: Services, provider: SignalProviderRow): Promise<number> => {
  const row = await services.db
    .selectFrom('positions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', provider.account_id)
    .where('kind', '=', 'position')
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

/**
 * DELETE .../followerFeature (spec: "removes a follower; only possible when the provider's source account
 * has no open positions"): 409 [SIGNAL_PROVIDER_HAS_OPEN_POSITIONS] while it holds some, so no follower is
 * left holding copies nobody closes.
 */
export const removeFollower = async (services: Services, provider: SignalProviderRow, follower: SignalFollowerRow, context: RequestContext): Promise<void> => {
  await oneAtATime(services, providerTurn(provider.id), async () => {
    const open = await providerOpenPositions(services, provider);
    if (open > 0) {
      throw illegalState(
        '[SIGNAL_PROVIDER_HAS_OPEN_POSITIONS]',
        `the signal provider's account holds ${open} open position(s); a follower is removed only when it holds none`,
      );
    }
    await unsubscribe(services, follower, context);
  });
};
