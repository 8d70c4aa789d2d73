// Strategies (reference StrategyDTO, spec "Operations known by path and purpose"):
//   GET, POST          /projects/{projectId}/strategies
//   GET, PUT, DELETE   /projects/{projectId}/strategies/{strategyId}
//   GET, POST          /projects/{projectId}/strategies/{strategyId}/copiers
//   GET, PUT, DELETE   /projects/{projectId}/strategies/{strategyId}/copiers/{copierId}
//   POST               /projects/{projectId}/strategies/{strategyId}/copiers/{copierId}/resync
//   GET, POST          /projects/{projectId}/strategies/{strategyId}/copiers/{copierId}/features
//   GET, PUT, DELETE   /projects/{projectId}/strategies/{strategyId}/copiers/{copierId}/features/{featureId}
// A strategy is its aggregate (domain/strategy, app/strategies.ts), read from the strategies read model.
// A strategy copier is a copier (domain/copier) carrying fromStrategyId or toStrategyId: these routes
// reach it through its strategy and run the copier's and the feature area's own operations on it.
import { type Static, Type } from '@sinclair/typebox';
import type { CopierCommand } from '../../domain/copier/commands.js';
import { copierDecider } from '../../domain/copier/decider.js';
import { copierStream } from '../../domain/copier/events.js';
import { defaultCopierSettings } from '../../domain/copier/settings.js';
import type { FeatureScope } from '../../domain/feature/events.js';
import { findStrategy, findStrategyCopier, listStrategies, listStrategyCopiers } from '../../projections/strategies/queries.js';
import { COPIER_READ_MODELS } from '../../app/commands/createCopier.js';
import { createStrategy, createStrategyCopier, deleteStrategy, updateStrategy } from '../../app/strategies.js';
import { afterCopyEngine, commandMetadata, execute, type Services } from '../../app/services.js';
import { checkStrategiesUnchanged, type CopierRow, fromCopierDTO, toCopierDTO } from '../copiers/dto.js';
import { CopierDTO, CopierUpdateDTO } from '../copiers/schemas.js';
import { toFeatureDTO } from '../features/dto.js';
import { featureOperations } from '../features/routes.js';
import { FeatureWriteDTO, FeatureWriteEnvelope } from '../features/schemas.js';
import type { FeatureWrite } from '../features/dto.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import { loadAccount } from '../shared/accounts.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses } from '../shared/schemas.js';
import { ProjectParams } from '../symbolMappings/schemas.js';
import { fromStrategyDTO, toStrategyDTO } from './dto.js';
import { StrategyCopierCreateDTO, StrategyCopierFeatureParams, StrategyCopierParams, StrategyDTO, StrategyParams, StrategyWriteDTO } from './schemas.js';

const TAG = 'Strategies';

type StrategyParamsOf = { projectId: string; strategyId: string };
type CopierParamsOf = StrategyParamsOf & { copierId: string };
type FeatureParamsOf = CopierParamsOf & { featureId: string };

const keyRules =
  "A strategy groups trades by its key (a positive whole number, one strategy per key in a project): a copier with toStrategyId writes the key into the magic number of the slave orders it places; a copier with fromStrategyId copies only the master trades whose magic number is the key (others: skip reason STRATEGY_KEY_FILTERED in the slave's log). An inactive strategy's copiers open nothing new (STRATEGY_INACTIVE). Needs a project-level key of this project.";

const copierRules =
  'A strategy copier is a copier (it belongs to its slave account, toAccountId, and is listed under /accounts/{toAccountId}/copiers too): every CopierDTO member and every copier feature applies to it as to an account copier (ours: the reference says only active, multiplier and FeatureCopierFilterDTO are available to one; we keep them all, see the issue).';

export const strategyRoutes = (routes: Routes, services: Services): void => {
  const features = featureOperations(services);
  const scope = (caller: Caller, projectId: string) => checkProjectScope(caller, projectId, 'strategies');
  const loadStrategy = async (caller: Caller, projectId: string, strategyId: string) => {
    const row = await findStrategy(services.db, scope(caller, projectId), strategyId);
    if (!row) throw new ApiError(404, '[STRATEGY_NOT_FOUND]', `strategy ${strategyId} not found`);
    return row;
  };
  const loadCopier = async (caller: Caller, params: CopierParamsOf): Promise<CopierRow> => {
    await loadStrategy(caller, params.projectId, params.strategyId);
    const row = await findStrategyCopier(services.db, params.projectId, params.strategyId, params.copierId);
    if (!row) throw new ApiError(404, '[COPIER_NOT_FOUND]', `copier ${params.copierId} not found`);
    return row as CopierRow;
  };
  const copierScope = async (caller: Caller, params: CopierParamsOf): Promise<FeatureScope> => {
    const row = await loadCopier(caller, params);
    return { kind: 'copier', accountId: row.to_account_id, copierId: row.id };
  };
  const runCopier = (command: CopierCommand) => execute(services, copierStream(command.data.copierId), copierDecider, command, COPIER_READ_MODELS);

  const oneStrategy = { 200: { description: 'the strategy', schema: StrategyDTO }, ...errorResponses(400, 401, 403, 404, 409) };
  const oneCopier = { 200: { description: 'the strategy copier', schema: CopierDTO }, ...errorResponses(400, 401, 403, 404, 409) };

  // ------------------------------------------------------------------ strategies
  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/strategies',
    tag: TAG,
    operationId: 'getStrategies',
    summary: "The project's strategies",
    description: `Oldest first. ${keyRules}`,
    params: ProjectParams,
    responses: { 200: { description: 'the strategies', schema: Type.Array(StrategyDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      return { body: (await listStrategies(services.db, scope(caller, params.projectId))).map(toStrategyDTO) };
    },
  });
  routes.add<{ projectId: string }, unknown, Static<typeof StrategyWriteDTO>>({
    method: 'post',
    path: '/projects/{projectId}/strategies',
    tag: TAG,
    operationId: 'createStrategy',
    summary: 'Create a strategy',
    description: `name (0 to 255 characters) and key are required; active defaults to true. ${keyRules}`,
    params: ProjectParams,
    body: StrategyWriteDTO,
    bodyRequired: true,
    responses: oneStrategy,
    async handler({ params, caller, context, body }) {
      const projectId = scope(caller, params.projectId);
      const strategyId = await createStrategy(services, projectId, fromStrategyDTO(body, projectId), context);
      return { body: toStrategyDTO(await loadStrategy(caller, projectId, strategyId)) };
    },
  });
  routes.add<StrategyParamsOf, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/strategies/{strategyId}',
    tag: TAG,
    operationId: 'getStrategy',
    summary: 'One strategy',
    params: StrategyParams,
    responses: oneStrategy,
    handler: async ({ params, caller }) => ({ body: toStrategyDTO(await loadStrategy(caller, params.projectId, params.strategyId)) }),
  });
  routes.add<StrategyParamsOf, unknown, Static<typeof StrategyWriteDTO>>({
    method: 'put',
    path: '/projects/{projectId}/strategies/{strategyId}',
    tag: TAG,
    operationId: 'updateStrategy',
    summary: 'Replace the name, key and activity of a strategy',
    description: `name and key are required; active left out becomes true. The strategy's copiers route by the new key from the next trade on. ${keyRules}`,
    params: StrategyParams,
    body: StrategyWriteDTO,
    bodyRequired: true,
    responses: oneStrategy,
    async handler({ params, caller, context, body }) {
      await loadStrategy(caller, params.projectId, params.strategyId);
      await updateStrategy(services, params.projectId, params.strategyId, fromStrategyDTO(body, params.projectId), context);
      return { body: toStrategyDTO(await loadStrategy(caller, params.projectId, params.strategyId)) };
    },
  });
  routes.add<StrategyParamsOf, unknown, unknown>({
    method: 'delete',
    path: '/projects/{projectId}/strategies/{strategyId}',
    tag: TAG,
    operationId: 'deleteStrategy',
    summary: 'Delete a strategy',
    description:
      'Ours (the reference is silent): refused while a copier copies from or into it (409 [STRATEGY_IN_USE]): delete its copiers first. Trades that carry its key keep their magic number.',
    params: StrategyParams,
    responses: { 200: { description: 'deleted' }, ...errorResponses(400, 401, 403, 404, 409) },
    async handler({ params, caller, context }) {
      await loadStrategy(caller, params.projectId, params.strategyId);
      await deleteStrategy(services, params.projectId, params.strategyId, context);
      return { status: 200 };
    },
  });

  // ------------------------------------------------------------------ strategy copiers
  routes.add<StrategyParamsOf, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/strategies/{strategyId}/copiers',
    tag: TAG,
    operationId: 'getStrategyCopiers',
    summary: 'The copiers from or into a strategy',
    description: `Oldest first. ${copierRules}`,
    params: StrategyParams,
    responses: { 200: { description: 'the strategy copiers', schema: Type.Array(CopierDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      await loadStrategy(caller, params.projectId, params.strategyId);
      const rows = await listStrategyCopiers(services.db, params.projectId, params.strategyId);
      return { body: rows.map((r) => toCopierDTO(r as CopierRow)) };
    },
  });
  routes.add<StrategyParamsOf, unknown, Static<typeof StrategyCopierCreateDTO>>({
    method: 'post',
    path: '/projects/{projectId}/strategies/{strategyId}/copiers',
    tag: TAG,
    operationId: 'createStrategyCopier',
    summary: 'Create a copier from or into a strategy',
    description: `fromAccountId (the master) and toAccountId (the slave) are required. With toStrategyId (the default) the copier marks its copies with the strategy's key; with fromStrategyId it copies only the master trades carrying it. ${copierRules} Refused as an account copier is (404 [ACCOUNT_NOT_FOUND], 409 [ACCOUNT_DELETED], 400 [COPIER_SELF_REFERENCE], 409 [COPIER_CYCLE]); a second copier between the same two accounts only for another strategy (409 [COPIER_ALREADY_EXISTS]).`,
    params: StrategyParams,
    body: StrategyCopierCreateDTO,
    bodyRequired: true,
    responses: oneCopier,
    async handler({ params, caller, context, body }) {
      const { projectId, strategyId } = params;
      await loadStrategy(caller, projectId, strategyId);
      for (const member of ['fromStrategyId', 'toStrategyId'] as const) {
        const value = body[member];
        if (value !== undefined && value !== null && value !== strategyId) {
          throw new ApiError(400, '[VALIDATION_FAILED]', `body.${member}: must be the strategy in the path`, [
            { field: `body.${member}`, message: 'must be the strategy in the path' },
          ]);
        }
      }
      const strategies = body.fromStrategyId
        ? { fromStrategyId: strategyId, ...(body.toStrategyId ? { toStrategyId: strategyId } : {}) }
        : { toStrategyId: strategyId };
      const slave = await loadAccount(services, caller, body.toAccountId);
      const settings = { ...defaultCopierSettings, ...fromCopierDTO(body) };
      const copierId = await createStrategyCopier(services, { projectId, slave, fromAccountId: body.fromAccountId, settings, strategies, context });
      return { body: toCopierDTO(await loadCopier(caller, { ...params, copierId })) };
    },
  });
  routes.add<CopierParamsOf, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/strategies/{strategyId}/copiers/{copierId}',
    tag: TAG,
    operationId: 'getStrategyCopier',
    summary: 'One strategy copier',
    params: StrategyCopierParams,
    responses: oneCopier,
    handler: async ({ params, caller }) => ({ body: toCopierDTO(await loadCopier(caller, params)) }),
  });
  routes.add<CopierParamsOf, unknown, Static<typeof CopierUpdateDTO>>({
    method: 'put',
    path: '/projects/{projectId}/strategies/{strategyId}/copiers/{copierId}',
    tag: TAG,
    operationId: 'updateStrategyCopier',
    summary: 'Change a strategy copier',
    description: `As PUT /accounts/{accountId}/copiers/{copierId}: members present are changed, members left out keep their value; the master (400 [COPIER_MASTER_IMMUTABLE]) and the strategy (400 [COPIER_STRATEGY_IMMUTABLE]) cannot change; toAccountId is ignored. ${copierRules}`,
    params: StrategyCopierParams,
    body: CopierUpdateDTO,
    bodyRequired: true,
    responses: oneCopier,
    async handler({ params, caller, context, body }) {
      const current = await loadCopier(caller, params);
      if (body.fromAccountId !== undefined && body.fromAccountId !== current.from_account_id) {
        throw new ApiError(400, '[COPIER_MASTER_IMMUTABLE]', 'the master of a copier cannot change');
      }
      checkStrategiesUnchanged(body, current);
      const result = await runCopier({
        type: 'UpdateCopier',
        data: { copierId: current.id, projectId: params.projectId, toAccountId: current.to_account_id, changes: fromCopierDTO(body) },
        metadata: commandMetadata(services, context),
      });
      // An activation with copyOpenPositions copies the master's open positions before the answer.
      if (result.events.some((e) => e.type === 'CopierUpdated' && e.data.changes.active === true) && result.state.settings?.copyOpenPositions) {
        await afterCopyEngine(services, result.position);
      }
      return { body: toCopierDTO(await loadCopier(caller, params)) };
    },
  });
  routes.add<CopierParamsOf, unknown, unknown>({
    method: 'delete',
    path: '/projects/{projectId}/strategies/{strategyId}/copiers/{copierId}',
    tag: TAG,
    operationId: 'deleteStrategyCopier',
    summary: 'Delete a strategy copier',
    description: 'Copying stops; positions already copied stay open on the slave.',
    params: StrategyCopierParams,
    responses: { 200: { description: 'deleted' }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, context }) {
      const current = await loadCopier(caller, params);
      await runCopier({
        type: 'DeleteCopier',
        data: { copierId: current.id, projectId: params.projectId, toAccountId: current.to_account_id },
        metadata: commandMetadata(services, context),
      });
      return { status: 200 };
    },
  });
  routes.add<CopierParamsOf, unknown, unknown>({
    method: 'post',
    path: '/projects/{projectId}/strategies/{strategyId}/copiers/{copierId}/resync',
    tag: TAG,
    operationId: 'resyncStrategyCopier',
    summary: 'Copy again what the slave is missing',
    description:
      "As POST /accounts/{accountId}/copiers/{copierId}/resync: every master position and pending order the copier holds no live copy of is copied now, sized and filtered like a new trade (a copier from a strategy: only those carrying the strategy's key). Answers once the engine has handled it.",
    params: StrategyCopierParams,
    responses: { 204: { description: 'resynced' }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, context }) {
      const current = await loadCopier(caller, params);
      const result = await runCopier({
        type: 'ResyncCopier',
        data: { copierId: current.id, projectId: params.projectId, toAccountId: current.to_account_id },
        metadata: commandMetadata(services, context),
      });
      await afterCopyEngine(services, result.position);
      return { status: 204 };
    },
  });

  // ------------------------------------------------------------------ strategy copier features
  const path = '/projects/{projectId}/strategies/{strategyId}/copiers/{copierId}/features';
  routes.add<CopierParamsOf, unknown, unknown>({
    method: 'get',
    path,
    tag: TAG,
    operationId: 'getStrategyCopierFeatures',
    summary: 'The features of a strategy copier',
    params: StrategyCopierParams,
    responses: features.list,
    async handler({ params, caller }) {
      return { body: (await features.rowsOf(caller, await copierScope(caller, params))).map(toFeatureDTO) };
    },
  });
  routes.add<CopierParamsOf, unknown, FeatureWrite>({
    method: 'post',
    path,
    tag: TAG,
    operationId: 'createStrategyCopierFeature',
    summary: 'Attach a feature to a strategy copier',
    description: `As POST /accounts/{accountId}/copiers/{copierId}/features (accountId, when sent, is the copier's slave account). ${features.writeDescription}`,
    params: StrategyCopierParams,
    body: FeatureWriteDTO,
    bodyValidation: FeatureWriteEnvelope,
    bodyRequired: true,
    responses: features.one,
    async handler({ params, caller, context, body }) {
      return features.add(caller, context, await copierScope(caller, params), body);
    },
  });
  routes.add<FeatureParamsOf, unknown, unknown>({
    method: 'get',
    path: `${path}/{featureId}`,
    tag: TAG,
    operationId: 'getStrategyCopierFeature',
    summary: 'One feature of a strategy copier',
    params: StrategyCopierFeatureParams,
    responses: features.one,
    async handler({ params, caller }) {
      return { body: toFeatureDTO(await features.rowOf(caller, await copierScope(caller, params), params.featureId)) };
    },
  });
  routes.add<FeatureParamsOf, unknown, FeatureWrite>({
    method: 'put',
    path: `${path}/{featureId}`,
    tag: TAG,
    operationId: 'updateStrategyCopierFeature',
    summary: 'Replace the setting of a strategy copier feature',
    description: `The whole setting is replaced (members left out take their defaults); its type cannot change (400 [FEATURE_TYPE_IMMUTABLE]). ${features.writeDescription}`,
    params: StrategyCopierFeatureParams,
    body: FeatureWriteDTO,
    bodyValidation: FeatureWriteEnvelope,
    bodyRequired: true,
    responses: features.one,
    async handler({ params, caller, context, body }) {
      return features.update(caller, context, await copierScope(caller, params), params.featureId, body);
    },
  });
  routes.add<FeatureParamsOf, unknown, unknown>({
    method: 'delete',
    path: `${path}/{featureId}`,
    tag: TAG,
    operationId: 'deleteStrategyCopierFeature',
    summary: 'Remove a feature from a strategy copier',
    params: StrategyCopierFeatureParams,
    responses: { 200: { description: 'removed' }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, context }) {
      return features.remove(caller, context, await copierScope(caller, params), params.featureId);
    },
  });
};
