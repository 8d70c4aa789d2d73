// The project resource (reference ProjectDTO; spec "Other resource members": owner, billingRegion):
//   GET, PUT   /projects/{projectId}
// on the project aggregate (domain/project), read back from the projects read model. Creating and
// deleting projects through the API is issue 17's.
import type { Static } from '@sinclair/typebox';
import { projectDecider } from '../../domain/project/decider.js';
import { projectStream } from '../../domain/project/events.js';
import { findProject } from '../../projections/projects/queries.js';
import { commandMetadata, execute, type Services } from '../../app/services.js';
import { ApiError } from '../errors.js';
import type { Routes } from '../route.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses } from '../shared/schemas.js';
import { fromProjectDTO, toProjectDTO } from './dto.js';
import { ProjectDTO, ProjectParams, ProjectWriteDTO } from './schemas.js';

const TAG = 'Projects';

export const projectRoutes = (routes: Routes, services: Services): void => {
  const load = async (projectId: string) => {
    const row = await findProject(services.db, projectId);
    if (!row) throw new ApiError(404, '[PROJECT_NOT_FOUND]', `project ${projectId} not found`);
    return row;
  };

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}',
    tag: TAG,
    operationId: 'getProject',
    summary: 'The project',
    description: 'Its name, billing address and currency. Needs a project-level key of this project (another project looks missing: 404 [PROJECT_NOT_FOUND]).',
    params: ProjectParams,
    responses: { 200: { description: 'the project', schema: ProjectDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      return { body: toProjectDTO(await load(checkProjectScope(caller, params.projectId, 'the project resource'))) };
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
      return { body: toProjectDTO(await load(projectId)) };
    },
  });
};
