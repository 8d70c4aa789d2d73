// The feature area (spec: "Copiers" feature rows, "Account features and risk limits", the Masaniello
// reset): features attached to a copier (reached through its slave account) or to an account.
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { featureDefinition } from '../../domain/feature/catalogue.js';
import type { FeatureCommand } from '../../domain/feature/commands.js';
import { featureDecider } from '../../domain/feature/decider.js';
import { type FeatureScope, featureStream } from '../../domain/feature/events.js';
import { findCopier } from '../../projections/copiers/queries.js';
import { accountFeatureRows, copierFeatureRows, type FeatureRow, findCopierFeatureOfAccount } from '../../projections/features/queries.js';
import { withMaintenanceState } from '../../projections/maintenanceWindows/queries.js';
import { checkAccountScope, loadAccount } from '../shared/accounts.js';
import { AccountIdParams } from '../accounts/schemas.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import { commandMetadata, execute, oneAtATime, type Services } from '../../app/services.js';
import { errorResponses, Uuid } from '../shared/schemas.js';
import { AccountFeatureIdParams, CopierFeatureIdParams, CopierFeatureParams, FeatureDTO, FeatureWriteDTO, FeatureWriteEnvelope } from './schemas.js';
import { featureDtoOf, type FeatureWrite, fromFeatureWriteDTO, toFeatureDTO } from './dto.js';
import { prepareSetting } from './settingHooks.js';
import { PROJECT_APPROVED_ROLES } from '../../domain/investor/features.js';
import { addSignalFeature, isSignalFeature, removeSignalFeature, updateSignalFeature } from '../../app/signals.js';

type WriteBody = FeatureWrite;

const featureNotFound = (featureId: string) => new ApiError(404, '[FEATURE_NOT_FOUND]', `feature ${featureId} not found`);

/** The investor program's roles are the project's approval: an account-level key cannot give, change or take them. */
const checkRoleGiver = (caller: Caller, type: string): void => {
  if (caller.level === 'ACCOUNT' && PROJECT_APPROVED_ROLES.has(type)) {
    throw new ApiError(403, '[PROJECT_LEVEL_API_KEY_REQUIRED]', `${type} is given, changed and taken by the project: it needs a project-level API key`);
  }
};

const scopeKey = (scope: FeatureScope): string =>
  scope.kind === 'copier' ? `copier:${scope.copierId}` : scope.kind === 'account' ? `account:${scope.accountId}` : `project:${scope.projectId}`;

/**
 * The feature operations of a scope (a copier, an account), shared by every route that reaches one: the
 * account and copier routes here, the strategy copier routes (api/strategies).
 */
export const featureOperations = (services: Services) => {
  const run = (command: FeatureCommand) => execute(services, featureStream(command.data.featureId), featureDecider, command);
  const rowsOf = (caller: Caller, scope: FeatureScope) =>
    scope.kind === 'copier'
      ? copierFeatureRows(services.db, caller.projectId, scope.copierId)
      : accountFeatureRows(services.db, caller.projectId, scope.kind === 'account' ? scope.accountId : '').then((rows) =>
          withMaintenanceState(services.db, rows),
        );
  const rowOf = async (caller: Caller, scope: FeatureScope, featureId: string): Promise<FeatureRow> => {
    const row = (await rowsOf(caller, scope)).find((r) => r.id === featureId);
    if (!row) throw featureNotFound(featureId);
    return row;
  };

  const add = async (caller: Caller, context: Parameters<typeof commandMetadata>[1], scope: FeatureScope, body: WriteBody) => {
    const featureId = randomUUID();
    checkRoleGiver(caller, featureDtoOf(body.type.id));
    // The single-instance check, what the setting takes from the features there (a messaging
    // connector's lowest free connectorIndex) and the write are one step per copier or account.
    await oneAtATime(services, `features:${scopeKey(scope)}`, async () => {
      const setting = await prepareSetting(services, fromFeatureWriteDTO(body, scope), null, { projectId: caller.projectId, scope });
      const definition = featureDefinition(setting.type)!;
      if (!definition.multiple && (await rowsOf(caller, scope)).some((r) => r.type === setting.type)) {
        throw new ApiError(409, '[FEATURE_ALREADY_EXISTS]', `this ${scope.kind} has a ${setting.type} already; change it with PUT, or delete it first`);
      }
      const command = {
        type: 'AddFeature',
        data: { featureId, projectId: caller.projectId, scope, setting },
        metadata: commandMetadata(services, context),
      } as const;
      // A signal provider or follower spans projects and copiers (app/signals.ts).
      if (isSignalFeature(setting.type)) await addSignalFeature(services, { command, context });
      else await run(command);
    });
    return { body: toFeatureDTO(await rowOf(caller, scope, featureId)) };
  };

  const update = async (caller: Caller, context: Parameters<typeof commandMetadata>[1], scope: FeatureScope, featureId: string, body: WriteBody) => {
    const current = await rowOf(caller, scope, featureId);
    checkRoleGiver(caller, current.type);
    if (current.type !== featureDtoOf(body.type.id)) {
      throw new ApiError(400, '[FEATURE_TYPE_IMMUTABLE]', `feature ${featureId} is a ${current.type}; its type cannot change (delete it and add another)`);
    }
    const setting = await prepareSetting(services, fromFeatureWriteDTO(body, scope), current.setting, { projectId: caller.projectId, scope });
    const command = {
      type: 'UpdateFeature',
      data: { featureId, projectId: caller.projectId, scope, setting },
      metadata: commandMetadata(services, context),
    } as const;
    if (isSignalFeature(setting.type)) await updateSignalFeature(services, { command, context }, current.setting);
    else await run(command);
    return { body: toFeatureDTO(await rowOf(caller, scope, featureId)) };
  };

  const remove = async (caller: Caller, context: Parameters<typeof commandMetadata>[1], scope: FeatureScope, featureId: string) => {
    const current = await rowOf(caller, scope, featureId);
    checkRoleGiver(caller, current.type);
    const command = { type: 'RemoveFeature', data: { featureId, projectId: caller.projectId, scope }, metadata: commandMetadata(services, context) } as const;
    if (isSignalFeature(current.type)) await removeSignalFeature(services, command, current.setting, context);
    else await run(command);
    return { status: 200 };
  };

  const writeDescription =
    'A FeatureDTO: `type.id` names the feature (FeatureTypeDTO, GET /types/featureTypes), `setting` holds its members (the FeatureSettingDTO branch of that type); members left out take their defaults. `accountId`, `copierId` and `projectId` may be sent: the path decides, another value gives 400 [VALIDATION_FAILED]; `id`, `featureId`, `created` and `updated` are ignored. A type the service does not run yet gives 400 [FEATURE_TYPE_NOT_SUPPORTED]. A feature that attaches elsewhere gives 400 [FEATURE_SCOPE_NOT_ALLOWED]; a second instance of a single-instance feature 409 [FEATURE_ALREADY_EXISTS]; an unknown type or member, or a value out of bounds, 400 [VALIDATION_FAILED]. Nothing is stored then.';
  const one = { 200: { description: 'the feature', schema: FeatureDTO }, ...errorResponses(400, 401, 403, 404, 409) };
  const list = { 200: { description: 'the features', schema: Type.Array(FeatureDTO) }, ...errorResponses(400, 401, 404) };
  return { run, rowsOf, rowOf, add, update, remove, writeDescription, one, list };
};

export const featureRoutes = (routes: Routes, services: Services): void => {
  const { run, rowsOf, rowOf, add, update, remove, writeDescription, one, list } = featureOperations(services);

  const copierScope = async (caller: Caller, accountId: string, copierId: string): Promise<FeatureScope> => {
    checkAccountScope(caller, accountId);
    const copier = await findCopier(services.db, caller.projectId, accountId, copierId);
    if (!copier) throw new ApiError(404, '[COPIER_NOT_FOUND]', `copier ${copierId} not found`);
    return { kind: 'copier', accountId, copierId };
  };
  const accountScope = async (caller: Caller, accountId: string): Promise<FeatureScope> => {
    await loadAccount(services, caller, accountId);
    return { kind: 'account', accountId };
  };

  // ------------------------------------------------------------------ copier features
  routes.add<{ accountId: string; copierId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/copiers/{copierId}/features',
    tag: 'Features',
    operationId: 'listCopierFeatures',
    summary: 'The features of a copier',
    params: CopierFeatureParams,
    responses: list,
    async handler({ params, caller }) {
      const scope = await copierScope(caller, params.accountId, params.copierId);
      return { body: (await rowsOf(caller, scope)).map(toFeatureDTO) };
    },
  });
  routes.add<{ accountId: string; copierId: string }, unknown, WriteBody>({
    method: 'post',
    path: '/accounts/{accountId}/copiers/{copierId}/features',
    tag: 'Features',
    operationId: 'addCopierFeature',
    summary: 'Attach a feature to a copier',
    description: writeDescription,
    params: CopierFeatureParams,
    body: FeatureWriteDTO,
    bodyValidation: FeatureWriteEnvelope,
    bodyRequired: true,
    responses: one,
    async handler({ params, caller, context, body }) {
      return add(caller, context, await copierScope(caller, params.accountId, params.copierId), body);
    },
  });
  routes.add<{ accountId: string; copierId: string; featureId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/copiers/{copierId}/features/{featureId}',
    tag: 'Features',
    operationId: 'getCopierFeature',
    summary: 'One feature of a copier',
    params: CopierFeatureIdParams,
    responses: one,
    async handler({ params, caller }) {
      return { body: toFeatureDTO(await rowOf(caller, await copierScope(caller, params.accountId, params.copierId), params.featureId)) };
    },
  });
  routes.add<{ accountId: string; copierId: string; featureId: string }, unknown, WriteBody>({
    method: 'put',
    path: '/accounts/{accountId}/copiers/{copierId}/features/{featureId}',
    tag: 'Features',
    operationId: 'updateCopierFeature',
    summary: 'Replace the setting of a copier feature',
    description: `The whole setting is replaced (members left out take their defaults); its type cannot change (400 [FEATURE_TYPE_IMMUTABLE]). ${writeDescription}`,
    params: CopierFeatureIdParams,
    body: FeatureWriteDTO,
    bodyValidation: FeatureWriteEnvelope,
    bodyRequired: true,
    responses: one,
    async handler({ params, caller, context, body }) {
      return update(caller, context, await copierScope(caller, params.accountId, params.copierId), params.featureId, body);
    },
  });
  routes.add<{ accountId: string; copierId: string; featureId: string }, unknown, unknown>({
    method: 'delete',
    path: '/accounts/{accountId}/copiers/{copierId}/features/{featureId}',
    tag: 'Features',
    operationId: 'removeCopierFeature',
    summary: 'Remove a feature from a copier',
    params: CopierFeatureIdParams,
    responses: { 200: { description: 'removed' }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller, context }) {
      return remove(caller, context, await copierScope(caller, params.accountId, params.copierId), params.featureId);
    },
  });

  // ------------------------------------------------------------------ account features
  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/features',
    tag: 'Features',
    operationId: 'listAccountFeatures',
    summary: 'The features of an account',
    params: AccountIdParams,
    responses: list,
    async handler({ params, caller }) {
      const scope = await accountScope(caller, params.accountId);
      return { body: (await rowsOf(caller, scope)).map(toFeatureDTO) };
    },
  });
  routes.add<{ accountId: string }, unknown, WriteBody>({
    method: 'post',
    path: '/accounts/{accountId}/features',
    tag: 'Features',
    operationId: 'addAccountFeature',
    summary: 'Attach a feature to an account',
    description: writeDescription,
    params: AccountIdParams,
    body: FeatureWriteDTO,
    bodyValidation: FeatureWriteEnvelope,
    bodyRequired: true,
    responses: one,
    async handler({ params, caller, context, body }) {
      return add(caller, context, await accountScope(caller, params.accountId), body);
    },
  });
  routes.add<{ accountId: string; featureId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/features/{featureId}',
    tag: 'Features',
    operationId: 'getAccountFeature',
    summary: 'One feature of an account',
    params: AccountFeatureIdParams,
    responses: one,
    async handler({ params, caller }) {
      return { body: toFeatureDTO(await rowOf(caller, await accountScope(caller, params.accountId), params.featureId)) };
    },
  });
  routes.add<{ accountId: string; featureId: string }, unknown, WriteBody>({
    method: 'put',
    path: '/accounts/{accountId}/features/{featureId}',
    tag: 'Features',
    operationId: 'updateAccountFeature',
    summary: 'Replace the setting of an account feature',
    description: `The whole setting is replaced (members left out take their defaults); its type cannot change (400 [FEATURE_TYPE_IMMUTABLE]). ${writeDescription}`,
    params: AccountFeatureIdParams,
    body: FeatureWriteDTO,
    bodyValidation: FeatureWriteEnvelope,
    bodyRequired: true,
    responses: one,
    async handler({ params, caller, context, body }) {
      return update(caller, context, await accountScope(caller, params.accountId), params.featureId, body);
    },
  });
  routes.add<{ accountId: string; featureId: string }, unknown, unknown>({
    method: 'delete',
    path: '/accounts/{accountId}/features/{featureId}',
    tag: 'Features',
    operationId: 'removeAccountFeature',
    summary: 'Remove a feature from an account',
    params: AccountFeatureIdParams,
    responses: { 200: { description: 'removed' }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, context }) {
      return remove(caller, context, await accountScope(caller, params.accountId), params.featureId);
    },
  });

  // ------------------------------------------------------------------ Masaniello reset
  routes.add<{ accountId: string; masanielloFeatureId: string }, { symbol?: string }, unknown>({
    method: 'put',
    path: '/accounts/{accountId}/masaniello/{masanielloFeatureId}/reset',
    tag: 'Features',
    operationId: 'resetMasaniello',
    summary: 'Start the Masaniello series of a copier feature over',
    description:
      "masanielloFeatureId is a FeatureMasanielloDTO of one of this account's copiers. With symbol, only that symbol's series restarts; without, every series. Trades closed before the reset no longer count.",
    params: Type.Object({ accountId: Uuid, masanielloFeatureId: Uuid }, { additionalProperties: false }),
    query: Type.Object(
      { symbol: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'the slave symbol whose series restarts; omitted = all' })) },
      { additionalProperties: false },
    ),
    responses: { 200: { description: 'reset' }, ...errorResponses(400, 401, 404) },
    async handler({ params, query, caller, context }) {
      checkAccountScope(caller, params.accountId);
      const row = await findCopierFeatureOfAccount(services.db, caller.projectId, params.accountId, params.masanielloFeatureId);
      if (!row || row.type !== 'FeatureMasanielloDTO' || !row.copier_id) throw featureNotFound(params.masanielloFeatureId);
      await run({
        type: 'ResetFeatureState',
        data: {
          featureId: row.id,
          projectId: caller.projectId,
          scope: { kind: 'copier', accountId: params.accountId, copierId: row.copier_id },
          key: query.symbol ?? null,
          expectedType: 'FeatureMasanielloDTO',
        },
        metadata: commandMetadata(services, context),
      });
      return { status: 200 };
    },
  });
};
