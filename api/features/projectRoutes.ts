// Project features (spec "Feature DTOs" and the reference, scope project: FeatureWebhookDTO,
// FeatureMaintenanceWindowDTO, FeatureFallbackSettingDTO, FeatureDedicatedIpPoolDTO, FeatureMyHomeIpDTO), at
//   GET, POST          /projects/{projectId}/features
//   GET, PUT, DELETE   /projects/{projectId}/features/{featureId}
// with the shapes and rules of the account feature routes (routes.ts), for a project-level key of that
// project only (projectScope.ts); and the webhooks' deliveries (deliveryRoutes.ts).
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { featureDefinition } from '../../domain/feature/catalogue.js';
import type { FeatureCommand } from '../../domain/feature/commands.js';
import { featureDecider } from '../../domain/feature/decider.js';
import { type FeatureScope, featureStream } from '../../domain/feature/events.js';
import { projectFeatureRows } from '../../projections/features/queries.js';
import { withMaintenanceState } from '../../projections/maintenanceWindows/queries.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import { commandMetadata, execute, oneAtATime, type Services } from '../../app/services.js';
import { errorResponses, Uuid } from '../shared/schemas.js';
import { webhookDeliveryRoutes } from './deliveryRoutes.js';
import { featureDtoOf, type FeatureWrite, fromFeatureWriteDTO, toFeatureDTO } from './dto.js';
import { FeatureDTO, FeatureWriteDTO, FeatureWriteEnvelope } from './schemas.js';
import { projectFeatureRow, projectFeatureScope } from './projectScope.js';
import { prepareSetting } from './settingHooks.js';

type WriteBody = FeatureWrite;
type Context = Parameters<typeof commandMetadata>[1];

const TAG = 'Features';

export const ProjectFeatureParams = Type.Object({ projectId: Uuid }, { additionalProperties: false });
export const ProjectFeatureIdParams = Type.Object({ projectId: Uuid, featureId: Uuid }, { additionalProperties: false });

export const projectFeatureRoutes = (routes: Routes, services: Services): void => {
  const run = (command: FeatureCommand) => execute(services, featureStream(command.data.featureId), featureDecider, command);

  const add = async (caller: Caller, context: Context, scope: FeatureScope & { kind: 'project' }, body: WriteBody) => {
    const setting = await prepareSetting(services, fromFeatureWriteDTO(body, scope), null, { projectId: caller.projectId, scope });
    const definition = featureDefinition(setting.type)!;
    const featureId = randomUUID();
    await oneAtATime(services, `features:project:${scope.projectId}`, async () => {
      if (!definition.multiple && (await projectFeatureRows(services.db, scope.projectId)).some((r) => r.type === setting.type)) {
        throw new ApiError(409, '[FEATURE_ALREADY_EXISTS]', `this project has a ${setting.type} already; change it with PUT, or delete it first`);
      }
      await run({ type: 'AddFeature', data: { featureId, projectId: caller.projectId, scope, setting }, metadata: commandMetadata(services, context) });
    });
    return { body: toFeatureDTO(await projectFeatureRow(services, scope.projectId, featureId)) };
  };

  const writeDescription =
    'A FeatureDTO: `type.id` names the feature (FeatureTypeDTO, GET /types/featureTypes), `setting` holds its members; `projectId` may be sent (the path decides). Only features with scope project attach here (FeatureWebhookDTO, FeatureMaintenanceWindowDTO, FeatureFallbackSettingDTO, FeatureDedicatedIpPoolDTO, FeatureMyHomeIpDTO; GET /types/featureTypes and each FeatureSettingDTO branch name their scopes), others give 400 [FEATURE_SCOPE_NOT_ALLOWED]. Members left out take their defaults; an unknown type or member, or a value out of bounds, gives 400 [VALIDATION_FAILED]; a webhook URL that is not allowed 400 [WEBHOOK_URL_INVALID], [WEBHOOK_URL_INVALID_PROTOCOL] or [WEBHOOK_URL_NOT_ALLOWED]. Nothing is stored then. Needs a project-level key of this project.';
  const one = { 200: { description: 'the feature', schema: FeatureDTO }, ...errorResponses(400, 401, 403, 404, 409) };

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/features',
    tag: TAG,
    operationId: 'listProjectFeatures',
    summary: 'The features of a project',
    description:
      "Features attached to the project itself, applying to every account of the project (a webhook's events, a maintenance window, the fallback setting). A single-instance feature also set on an account or a copier applies there instead (the most specific scope wins). Secrets are masked.",
    params: ProjectFeatureParams,
    responses: { 200: { description: 'the features', schema: Type.Array(FeatureDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      const scope = projectFeatureScope(caller, params.projectId);
      return { body: (await withMaintenanceState(services.db, await projectFeatureRows(services.db, scope.projectId))).map(toFeatureDTO) };
    },
  });
  routes.add<{ projectId: string }, unknown, WriteBody>({
    method: 'post',
    path: '/projects/{projectId}/features',
    tag: TAG,
    operationId: 'addProjectFeature',
    summary: 'Attach a feature to a project',
    description: writeDescription,
    params: ProjectFeatureParams,
    body: FeatureWriteDTO,
    bodyValidation: FeatureWriteEnvelope,
    bodyRequired: true,
    responses: one,
    async handler({ params, caller, context, body }) {
      return add(caller, context, projectFeatureScope(caller, params.projectId), body);
    },
  });
  routes.add<{ projectId: string; featureId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/features/{featureId}',
    tag: TAG,
    operationId: 'getProjectFeature',
    summary: 'One feature of a project',
    params: ProjectFeatureIdParams,
    responses: one,
    async handler({ params, caller }) {
      const scope = projectFeatureScope(caller, params.projectId);
      return { body: toFeatureDTO(await projectFeatureRow(services, scope.projectId, params.featureId)) };
    },
  });
  routes.add<{ projectId: string; featureId: string }, unknown, WriteBody>({
    method: 'put',
    path: '/projects/{projectId}/features/{featureId}',
    tag: TAG,
    operationId: 'updateProjectFeature',
    summary: 'Replace the setting of a project feature',
    description: `The whole setting is replaced (members left out take their defaults; a webhook secret left out or sent masked is kept); its type cannot change (400 [FEATURE_TYPE_IMMUTABLE]). ${writeDescription}`,
    params: ProjectFeatureIdParams,
    body: FeatureWriteDTO,
    bodyValidation: FeatureWriteEnvelope,
    bodyRequired: true,
    responses: one,
    async handler({ params, caller, context, body }) {
      const scope = projectFeatureScope(caller, params.projectId);
      const current = await projectFeatureRow(services, scope.projectId, params.featureId);
      if (current.type !== featureDtoOf(body.type.id)) {
        throw new ApiError(
          400,
          '[FEATURE_TYPE_IMMUTABLE]',
          `feature ${params.featureId} is a ${current.type}; its type cannot change (delete it and add another)`,
        );
      }
      const setting = await prepareSetting(services, fromFeatureWriteDTO(body, scope), current.setting, { projectId: caller.projectId, scope });
      await run({
        type: 'UpdateFeature',
        data: { featureId: params.featureId, projectId: caller.projectId, scope, setting },
        metadata: commandMetadata(services, context),
      });
      return { body: toFeatureDTO(await projectFeatureRow(services, scope.projectId, params.featureId)) };
    },
  });
  routes.add<{ projectId: string; featureId: string }, unknown, unknown>({
    method: 'delete',
    path: '/projects/{projectId}/features/{featureId}',
    tag: TAG,
    operationId: 'removeProjectFeature',
    summary: 'Remove a feature from a project',
    description: 'A removed webhook delivers nothing more; its pending deliveries end as CANCELLED.',
    params: ProjectFeatureIdParams,
    responses: { 200: { description: 'removed' }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, context }) {
      const scope = projectFeatureScope(caller, params.projectId);
      await projectFeatureRow(services, scope.projectId, params.featureId);
      await run({
        type: 'RemoveFeature',
        data: { featureId: params.featureId, projectId: caller.projectId, scope },
        metadata: commandMetadata(services, context),
      });
      return { status: 200 };
    },
  });

  webhookDeliveryRoutes(routes, services);
};
