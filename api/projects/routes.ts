// The project resource (reference ProjectDTO; spec "Other resource members": owner, billingRegion):
//   GET, PUT, DELETE   /projects/{projectId}           (DELETE is ours: the spec names project deletion without a path)
//   GET                /projects/{projectId}/traders   the investor program's traders of the project
// on the project aggregate (domain/project) and its use cases (app/commands/projects.ts), read back from
// the projects read model. Projects are created by the operator (npm run project -- create NAME).
import type { Static } from '@sinclair/typebox';
import { projectDecider } from '../../domain/project/decider.js';
import { projectStream } from '../../domain/project/events.js';
import { projectTraders } from '../../projections/projects/queries.js';
import { projectBlocked } from '../../projections/customers/queries.js';
import { deleteProject, loadLiveProject } from '../../app/commands/projects.js';
import { Type } from '@sinclair/typebox';
import { commandMetadata, execute, type Services } from '../../app/services.js';
import type { Routes } from '../route.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses } from '../shared/schemas.js';
import { projectBalance } from '../../app/invoices.js';
import { fromProjectDTO, toProjectDTO, toTraderDTO } from './dto.js';
import { ProjectDeletionDTO, ProjectDTO, ProjectParams, ProjectWriteDTO, TraderDTO } from './schemas.js';

const TAG = 'Projects';

export const projectRoutes = (routes: Routes, services: Services): void => {
  const load = (projectId: string) => loadLiveProject(services, projectId);

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}',
    tag: TAG,
    operationId: 'getProject',
    summary: 'The project',
    description:
      "Its name, billing address and currency. Needs a project-level key of this project (another project looks missing: 404 [PROJECT_NOT_FOUND]). The one operation a blocked white-label customer's key still reaches: blocked true says why every other is refused (403 [CUSTOMER_BLOCKED]).",
    params: ProjectParams,
    responses: { 200: { description: 'the project', schema: ProjectDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      const projectId = checkProjectScope(caller, params.projectId, 'the project resource');
      return { body: toProjectDTO(await load(projectId), await projectBalance(services, projectId), await projectBlocked(services.db, projectId)) };
    },
  });

  routes.add<{ projectId: string }, unknown, Static<typeof ProjectWriteDTO>>({
    method: 'put',
    path: '/projects/{projectId}',
    tag: TAG,
    operationId: 'updateProject',
    summary: 'Change the name, billing address and currency of the project',
    description:
      "Every member is replaced. name is required (not blank); the billing members may be '' while unknown; billingCountryIsoAlpha2 is two letters or ''; billingRegion is an ISO 3166-2 subdivision code without the country prefix, required when billingCountryIsoAlpha2 is AE; currencyType.id is 1 (USD), 2 (EUR) or 3 (CHF); dedicated must be the project's own value. id, balance, blocked, owner, paymentMethod and created are read-only and ignored when sent. Invalid members give 400 [VALIDATION_FAILED] and change nothing. Needs a project-level key of this project.",
    params: ProjectParams,
    body: ProjectWriteDTO,
    bodyRequired: true,
    responses: { 200: { description: 'the project now', schema: ProjectDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, context, body }) {
      const projectId = checkProjectScope(caller, params.projectId, 'changing the project');
      await load(projectId);
      await execute(
        services,
        projectStream(projectId),
        projectDecider,
        { type: 'UpdateProject', data: { projectId, settings: fromProjectDTO(body), dedicated: body.dedicated }, metadata: commandMetadata(services, context) },
        ['projects'],
      );
      return { body: toProjectDTO(await load(projectId), await projectBalance(services, projectId), await projectBlocked(services.db, projectId)) };
    },
  });

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'delete',
    path: '/projects/{projectId}',
    tag: TAG,
    operationId: 'deleteProject',
    summary: 'Delete the project (final)',
    description:
      "Ours: the spec says project deletion exists without giving its path; the reference has none. Every account of the project that runs is stopped, then every account is deleted (its broker session ends, nothing is copied from or to it any more; positions stay open at the broker), and then every API key of the project is revoked (revokedReason PROJECT_DELETED), this request's key too: later requests with them get 401 [API_KEY_REVOKED] ('its project was deleted'). Each of these is an event of its own, listed in the project's audit log beside ProjectDeleted; nothing is erased, the events stay for audit. An account creation that waits for its turn while the project is deleted is refused with 404 [PROJECT_DELETED]. Answers what it ended. Needs a project-level key of this project.",
    params: ProjectParams,
    responses: { 200: { description: 'deleted', schema: ProjectDeletionDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, context }) {
      const projectId = checkProjectScope(caller, params.projectId, 'deleting the project');
      const ended = await deleteProject(services, projectId, context);
      return { body: { projectId, ...ended } };
    },
  });

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/traders',
    tag: TAG,
    operationId: 'getProjectTraders',
    summary: "The investor program's traders of the project",
    description:
      'Spec: "approved traders configured in the project". A trader is an account of the project with the investor program\'s trader role, the account feature FeatureTraderDTO, oldest first; deleted accounts are not listed. Attaching FeatureTraderDTO is the project\'s approval (a project-level key only); featureId is the trader id in /investorProgram/traders, where investors of any project see its public data. TraderDTO is ours (the spec does not show its members). Needs a project-level key of this project.',
    params: ProjectParams,
    responses: { 200: { description: 'the traders', schema: Type.Array(TraderDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      const projectId = checkProjectScope(caller, params.projectId, 'the traders of the project');
      await load(projectId);
      return { body: (await projectTraders(services.db, projectId)).map(toTraderDTO) };
    },
  });
};
