// The signal operations (reference `/signals/{signalProviderId}/...`, `/projects/{projectId}/signals`;
// spec "Operations known by path and purpose"), and the follower-scope features
// (`/accounts/{accountId}/signalFollowers/{signalFollowerId}/features[/{featureId}]`).
//
// Who sees what (the isolation exception, app/signals.ts):
//   - /signals/{signalProviderId}/... are the provider's: a key of the provider's project, and only for
//     accounts that follow that provider (404 [SIGNAL_PROVIDER_NOT_FOUND] / [SIGNAL_FOLLOWER_NOT_FOUND]
//     otherwise). Each reads or acts on the follower's account exactly as the follower's own project would
//     through /accounts/{accountId}/... (the same operation runs, on that account only, for the provider's
//     key: the follower's audit log names it); nothing else of the follower's project is reachable.
//   - a follower's project sees the providers it may follow (GET /projects/{projectId}/signals) without
//     their account, subscribers or anything but their public members, and the copies on its own account.
import { Type } from '@sinclair/typebox';
import { SIGNAL_FOLLOWER } from '../../domain/signal/follower.js';
import { SIGNAL_PROVIDER } from '../../domain/signal/provider.js';
import { followableProviders, followerOf, ownSignalProvider, removeFollower, setFollowerSuspended, signalProviderNotFound } from '../../app/signals.js';
import type { Services } from '../../app/services.js';
import {
  findSignalFollower,
  followableSignalProviders,
  projectSignalProviders,
  signalFeatureRow,
  signalFollowers,
  type SignalProviderRow,
} from '../../projections/signals/queries.js';
import { checkAccountScope } from '../shared/accounts.js';
import { ApiError } from '../errors.js';
import { featureOperations } from '../features/routes.js';
import { FeatureDTO, FeatureWriteDTO, FeatureWriteEnvelope } from '../features/schemas.js';
import { toFeatureDTO, toFeatureTypeDTO, type FeatureWrite } from '../features/dto.js';
import type { Caller, HandlerInput, HandlerOutput, RouteSpec, Routes } from '../route.js';
import { errorResponses, Uuid } from '../shared/schemas.js';

const TAG = 'Signals';

const ProviderParams = Type.Object({ signalProviderId: Uuid }, { additionalProperties: false });
const FollowerParams = Type.Object({ signalProviderId: Uuid, accountId: Uuid }, { additionalProperties: false });
const FollowerPositionParams = Type.Object(
  { signalProviderId: Uuid, accountId: Uuid, positionId: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);
const ProjectParams = Type.Object({ projectId: Uuid }, { additionalProperties: false });
const FollowerFeaturesParams = Type.Object({ accountId: Uuid, signalFollowerId: Uuid }, { additionalProperties: false });
const FollowerFeatureParams = Type.Object({ accountId: Uuid, signalFollowerId: Uuid, featureId: Uuid }, { additionalProperties: false });

type FollowerPath = { signalProviderId: string; accountId: string };

/** The follower's project as the caller: a project-level caller of that project, for the one account the route names. */
const asFollowerProject = (caller: Caller, projectId: string): Caller => ({
  apiKeyId: caller.apiKeyId,
  projectId,
  level: 'PROJECT',
  accountId: null,
  accessPolicy: null,
});

/** A FeatureSignalProviderDTO as another project reads it: its public members, no account, no subscribers. */
const publicProviderDTO = (row: SignalProviderRow) => ({
  id: row.id,
  featureId: row.id,
  type: toFeatureTypeDTO(SIGNAL_PROVIDER),
  setting: { ...row.settings, accessAllowed: true, subscribers: [], copier: publicCopier(row.settings.copier) },
  created: new Date(row.created).toISOString(),
  updated: new Date(row.updated).toISOString(),
});

/** The provider's copier settings without anything naming an account. */
const publicCopier = (copier: Record<string, unknown>) => {
  const { fromAccountId: _from, fromAccountAlias: _alias, toAccountId: _to, id: _id, ...rest } = copier;
  return rest;
};

export const signalRoutes = (routes: Routes, services: Services): void => {
  /** An operation declared before this one: the signal routes run it for the follower's project. */
  const declared = (method: RouteSpec['method'], path: string): RouteSpec => {
    const spec = routes.specs.find((s) => s.method === method && s.path === path);
    if (!spec) throw new Error(`signal routes: ${method} ${path} is not declared (register signalRoutes after it)`);
    return spec;
  };

  /** The provider (of the caller's project) and its follower on the path's account. */
  const followerOfPath = async (caller: Caller, params: FollowerPath) => {
    if (caller.level === 'ACCOUNT') throw signalProviderNotFound(params.signalProviderId);
    const provider = await ownSignalProvider(services, caller.projectId, params.signalProviderId);
    const follower = await followerOf(services, provider.id, params.accountId);
    return { provider, follower };
  };

  /** GET/POST/DELETE .../accounts/{accountId}/... run as `target` on the follower's account, for its project. */
  const onFollowerAccount = (method: RouteSpec['method'], path: string, target: string, operationId: string, summary: string, withPosition = false) => {
    const spec = declared(method, target);
    routes.add<FollowerPath & { positionId?: string }, unknown, unknown>({
      method,
      path,
      tag: TAG,
      operationId,
      summary,
      description: `The provider's view of one follower account: ${target} of that account, as its own project would get it (the same query members and answer). Only for an account that follows this provider: 404 [SIGNAL_FOLLOWER_NOT_FOUND] otherwise; a provider of another project: 404 [SIGNAL_PROVIDER_NOT_FOUND]. ${spec.description ?? ''}`,
      params: withPosition ? FollowerPositionParams : FollowerParams,
      ...(spec.query ? { query: spec.query } : {}),
      ...(spec.headers ? { headers: spec.headers } : {}),
      responses: { ...spec.responses, ...errorResponses(404) },
      async handler(input: HandlerInput<FollowerPath & { positionId?: string }, unknown, unknown>) {
        const { follower } = await followerOfPath(input.caller, input.params);
        const params = { accountId: follower.account_id, ...(withPosition ? { positionId: input.params.positionId } : {}) };
        return spec.handler({ ...input, params, caller: asFollowerProject(input.caller, follower.project_id), keyCheck: null });
      },
    });
  };

  // ------------------------------------------------------------------ GET /projects/{projectId}/signals
  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/signals',
    tag: TAG,
    operationId: 'getProjectAvailableSignalsToFollow',
    summary: 'The signal providers the project may follow',
    description:
      "Its own providers (as GET /accounts/{accountId}/features answers them, with accessAllowed true and subscribers the projects following them), then the providers of other projects it may follow: public (isPublic), in the marketplace (makeVisibleInMarketplace), or naming the project's owner in allowCustomers, with their public members only: no accountId, subscribers empty, the copier without account members. Another project id: 404 [PROJECT_NOT_FOUND]. Needs a project-level key.",
    params: ProjectParams,
    responses: {
      200: { description: 'signal providers (FeatureDTO with a FeatureSignalProviderDTO setting)', schema: Type.Array(FeatureDTO) },
      ...errorResponses(401, 404),
    },
    async handler({ params, caller }) {
      if (params.projectId !== caller.projectId || caller.level === 'ACCOUNT')
        throw new ApiError(404, '[PROJECT_NOT_FOUND]', `project ${params.projectId} not found`);
      const own = await projectSignalProviders(services.db, caller.projectId);
      const others = await followableProviders(services, caller.projectId, await followableSignalProviders(services.db, caller.projectId));
      const ownDTOs = await Promise.all(
        own.map(async (row) => {
          const feature = await signalFeatureRow(services.db, row.id);
          const subscribers = [...new Set((await signalFollowers(services.db, row.id)).map((f) => f.project_id))];
          const dto = toFeatureDTO(feature!);
          return { ...dto, setting: { ...dto.setting, subscribers } };
        }),
      );
      return { body: [...ownDTOs, ...others.map(publicProviderDTO)] };
    },
  });

  // ------------------------------------------------------------------ the provider's followers
  const accountSpec = declared('get', '/accounts/{accountId}');
  const accountSchema = accountSpec.responses[200]!.schema!;
  routes.add<{ signalProviderId: string }, unknown, unknown>({
    method: 'get',
    path: '/signals/{signalProviderId}/accounts',
    tag: TAG,
    operationId: 'getSignalFollowerAccounts',
    summary: 'The accounts following the provider',
    description:
      "Each follower account as GET /accounts/{accountId} answers it to its own project, oldest subscription first. Only the provider's project may ask: 404 [SIGNAL_PROVIDER_NOT_FOUND] otherwise.",
    params: ProviderParams,
    responses: { 200: { description: 'the follower accounts (AccountDTO)', schema: Type.Array(accountSchema) }, ...errorResponses(401, 404) },
    async handler(input) {
      if (input.caller.level === 'ACCOUNT') throw signalProviderNotFound(input.params.signalProviderId);
      const provider = await ownSignalProvider(services, input.caller.projectId, input.params.signalProviderId);
      const accounts: unknown[] = [];
      for (const follower of await signalFollowers(services.db, provider.id)) {
        const out: HandlerOutput = await accountSpec.handler({
          ...input,
          params: { accountId: follower.account_id },
          caller: asFollowerProject(input.caller, follower.project_id),
          keyCheck: null,
        });
        accounts.push(out.body ?? (out.json ? JSON.parse(out.json.bytes.toString('utf8')) : null));
      }
      return { body: accounts };
    },
  });

  const closeAll = declared('post', '/accounts/{accountId}/actions/closeAllPositions');
  routes.add<{ signalProviderId: string }, unknown, unknown>({
    method: 'post',
    path: '/signals/{signalProviderId}/closeAllPositions',
    tag: TAG,
    operationId: 'closeAllPositionsInAllFollowerAccounts',
    summary: 'Close every open position of every follower account',
    description:
      "POST /accounts/{accountId}/actions/closeAllPositions on each follower account, in turn; every account is tried: when some position stays open, 409 [CLOSE_ALL_INCOMPLETE] lists them (details: accountId, and what its own answer said). The provider's own account is not touched.",
    params: ProviderParams,
    responses: { 204: { description: 'every follower position closed' }, ...errorResponses(401, 404, 409) },
    async handler(input) {
      if (input.caller.level === 'ACCOUNT') throw signalProviderNotFound(input.params.signalProviderId);
      const provider = await ownSignalProvider(services, input.caller.projectId, input.params.signalProviderId);
      const failures: { accountId: string; error: string; message: string }[] = [];
      for (const follower of await signalFollowers(services.db, provider.id)) {
        try {
          await closeAll.handler({
            ...input,
            params: { accountId: follower.account_id },
            caller: asFollowerProject(input.caller, follower.project_id),
            keyCheck: null,
          });
        } catch (error) {
          const e = error as { code?: string; message?: string };
          failures.push({ accountId: follower.account_id, error: e.code ?? '[ERROR]', message: e.message ?? String(error) });
        }
      }
      if (failures.length > 0) throw new ApiError(409, '[CLOSE_ALL_INCOMPLETE]', `${failures.length} follower account(s) kept open positions`, failures);
      return { status: 204 };
    },
  });

  onFollowerAccount(
    'post',
    '/signals/{signalProviderId}/accounts/{accountId}/actions/closeAllPositions',
    '/accounts/{accountId}/actions/closeAllPositions',
    'closeSignalFollowerAllPositions',
    'Close every open position of a follower account',
  );
  onFollowerAccount(
    'get',
    '/signals/{signalProviderId}/accounts/{accountId}/auditLogs',
    '/accounts/{accountId}/auditLogs',
    'getSignalFollowerAccountAuditLogs',
    "A follower account's audit log",
  );
  onFollowerAccount(
    'get',
    '/signals/{signalProviderId}/accounts/{accountId}/history/positions',
    '/accounts/{accountId}/history/positions',
    'getSignalFollowerAccountHistoryPositions',
    "A follower account's closed positions between start and stop (both required)",
  );
  onFollowerAccount(
    'get',
    '/signals/{signalProviderId}/accounts/{accountId}/logs',
    '/accounts/{accountId}/logs',
    'getSignalFollowerAccountLogs',
    "A follower account's logs",
  );
  onFollowerAccount(
    'get',
    '/signals/{signalProviderId}/accounts/{accountId}/performanceMetrics',
    '/accounts/{accountId}/performanceMetrics',
    'getSignalFollowerAccountPerformanceMetrics',
    "A follower account's performance metrics",
  );
  onFollowerAccount(
    'get',
    '/signals/{signalProviderId}/accounts/{accountId}/positions',
    '/accounts/{accountId}/positions',
    'getSignalFollowerAccountPositions',
    "A follower account's open positions",
  );
  onFollowerAccount(
    'delete',
    '/signals/{signalProviderId}/accounts/{accountId}/positions/{positionId}',
    '/accounts/{accountId}/positions/{positionId}',
    'closeSignalFollowerPosition',
    'Close one position of a follower account',
    true,
  );
  onFollowerAccount(
    'get',
    '/signals/{signalProviderId}/accounts/{accountId}/symbols',
    '/accounts/{accountId}/symbols',
    'getSignalSymbols',
    "A follower account's symbols",
  );

  // ------------------------------------------------------------------ the follower's feature, as the provider sees it
  const followerFeatureDTO = async (followerId: string) => {
    const row = await signalFeatureRow(services.db, followerId);
    if (!row) throw new ApiError(404, '[SIGNAL_FOLLOWER_NOT_FOUND]', `signal follower ${followerId} not found`);
    return toFeatureDTO(row);
  };
  routes.add<FollowerPath, unknown, unknown>({
    method: 'get',
    path: '/signals/{signalProviderId}/accounts/{accountId}/followerFeature',
    tag: TAG,
    operationId: 'getFollowerFeature',
    summary: "The follower's FeatureSignalFollowerDTO",
    params: FollowerParams,
    responses: { 200: { description: 'the follower feature', schema: FeatureDTO }, ...errorResponses(401, 404) },
    async handler({ params, caller }) {
      const { follower } = await followerOfPath(caller, params);
      return { body: await followerFeatureDTO(follower.id) };
    },
  });
  routes.add<FollowerPath, unknown, FeatureWrite>({
    method: 'put',
    path: '/signals/{signalProviderId}/accounts/{accountId}/followerFeature',
    tag: TAG,
    operationId: 'updateFollowerFeature',
    summary: 'Suspend a follower, or end its suspension',
    description:
      "A FeatureDTO of type FeatureSignalFollowerDTO (id 14): the provider sets `suspended` (true deactivates the follower's copier; the copies it holds stay open). The follower's other members are the follower's: what is sent for them is not used. Another type: 400 [FEATURE_TYPE_IMMUTABLE].",
    params: FollowerParams,
    body: FeatureWriteDTO,
    bodyValidation: FeatureWriteEnvelope,
    bodyRequired: true,
    responses: { 200: { description: 'the follower feature', schema: FeatureDTO }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller, body, context }) {
      const { follower } = await followerOfPath(caller, params);
      if (body.type.id !== toFeatureTypeDTO(SIGNAL_FOLLOWER).id) {
        throw new ApiError(400, '[FEATURE_TYPE_IMMUTABLE]', `the follower feature is a ${SIGNAL_FOLLOWER} (type id ${toFeatureTypeDTO(SIGNAL_FOLLOWER).id})`);
      }
      const suspended = body.setting['suspended'];
      if (suspended !== undefined && typeof suspended !== 'boolean') {
        throw new ApiError(400, '[VALIDATION_FAILED]', 'body.setting.suspended must be a boolean', [
          { field: 'body.setting.suspended', message: 'must be a boolean' },
        ]);
      }
      await setFollowerSuspended(services, follower, suspended ?? false, context);
      return { body: await followerFeatureDTO(follower.id) };
    },
  });
  routes.add<FollowerPath, unknown, unknown>({
    method: 'delete',
    path: '/signals/{signalProviderId}/accounts/{accountId}/followerFeature',
    tag: TAG,
    operationId: 'removeFollowerFeature',
    summary: 'Remove a follower',
    description:
      "(spec 1.2.6) Ends the follower's subscription: its copier is deleted (the copies it holds stay open on its account, unmanaged) and its FeatureSignalFollowerDTO removed. Only while the provider's source account has no open position: 409 [SIGNAL_PROVIDER_HAS_OPEN_POSITIONS] otherwise.",
    params: FollowerParams,
    responses: { 200: { description: 'removed' }, ...errorResponses(401, 404, 409) },
    async handler({ params, caller, context }) {
      const { provider, follower } = await followerOfPath(caller, params);
      await removeFollower(services, provider, follower, context);
      return { status: 200 };
    },
  });

  // ------------------------------------------------------------------ follower-scope features
  const features = featureOperations(services);
  /** A follower of the caller's project on the path's account: its features are its copier's (the copier has the follower's id). */
  const followerScope = async (caller: Caller, accountId: string, followerId: string) => {
    checkAccountScope(caller, accountId);
    const follower = await findSignalFollower(services.db, followerId);
    if (!follower || follower.project_id !== caller.projectId || follower.account_id !== accountId) {
      throw new ApiError(404, '[SIGNAL_FOLLOWER_NOT_FOUND]', `signal follower ${followerId} not found`);
    }
    return { kind: 'copier', accountId, copierId: followerId } as const;
  };
  const scopeWords =
    "A signal follower's features are the features of its copier (the copier whose id is the signalFollowerId): copier-scope features (FeatureCopierFilterDTO, FeatureMaxLotSizeDTO, ...), applied to the provider's trades as to any copier's. An account feature (FeatureSignalFollowerDTO itself included) gives 400 [FEATURE_SCOPE_NOT_ALLOWED].";
  routes.add<{ accountId: string; signalFollowerId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/signalFollowers/{signalFollowerId}/features',
    tag: TAG,
    operationId: 'listSignalFollowerFeatures',
    summary: 'The features of a signal follower',
    description: scopeWords,
    params: FollowerFeaturesParams,
    responses: features.list,
    async handler({ params, caller }) {
      const scope = await followerScope(caller, params.accountId, params.signalFollowerId);
      return { body: (await features.rowsOf(caller, scope)).map(toFeatureDTO) };
    },
  });
  routes.add<{ accountId: string; signalFollowerId: string }, unknown, FeatureWrite>({
    method: 'post',
    path: '/accounts/{accountId}/signalFollowers/{signalFollowerId}/features',
    tag: TAG,
    operationId: 'addSignalFollowerFeature',
    summary: 'Attach a feature to a signal follower',
    description: `${scopeWords} ${features.writeDescription}`,
    params: FollowerFeaturesParams,
    body: FeatureWriteDTO,
    bodyValidation: FeatureWriteEnvelope,
    bodyRequired: true,
    responses: features.one,
    async handler({ params, caller, context, body }) {
      return features.add(caller, context, await followerScope(caller, params.accountId, params.signalFollowerId), body);
    },
  });
  routes.add<{ accountId: string; signalFollowerId: string; featureId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/signalFollowers/{signalFollowerId}/features/{featureId}',
    tag: TAG,
    operationId: 'getSignalFollowerFeature',
    summary: 'One feature of a signal follower',
    params: FollowerFeatureParams,
    responses: features.one,
    async handler({ params, caller }) {
      return { body: toFeatureDTO(await features.rowOf(caller, await followerScope(caller, params.accountId, params.signalFollowerId), params.featureId)) };
    },
  });
  routes.add<{ accountId: string; signalFollowerId: string; featureId: string }, unknown, FeatureWrite>({
    method: 'put',
    path: '/accounts/{accountId}/signalFollowers/{signalFollowerId}/features/{featureId}',
    tag: TAG,
    operationId: 'updateSignalFollowerFeature',
    summary: 'Replace the setting of a signal follower feature',
    description: `The whole setting is replaced; its type cannot change (400 [FEATURE_TYPE_IMMUTABLE]). ${features.writeDescription}`,
    params: FollowerFeatureParams,
    body: FeatureWriteDTO,
    bodyValidation: FeatureWriteEnvelope,
    bodyRequired: true,
    responses: features.one,
    async handler({ params, caller, context, body }) {
      return features.update(caller, context, await followerScope(caller, params.accountId, params.signalFollowerId), params.featureId, body);
    },
  });
  routes.add<{ accountId: string; signalFollowerId: string; featureId: string }, unknown, unknown>({
    method: 'delete',
    path: '/accounts/{accountId}/signalFollowers/{signalFollowerId}/features/{featureId}',
    tag: TAG,
    operationId: 'removeSignalFollowerFeature',
    summary: 'Remove a feature from a signal follower',
    params: FollowerFeatureParams,
    responses: { 200: { description: 'removed' }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller, context }) {
      return features.remove(caller, context, await followerScope(caller, params.accountId, params.signalFollowerId), params.featureId);
    },
  });
};
