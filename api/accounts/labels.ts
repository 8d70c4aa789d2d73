// GET /projects/{projectId}/labels (reference: getAvailableLabels): the labels the project's accounts
// carry (AccountDTO.labels), to offer when labelling another account.
import { Type } from '@sinclair/typebox';
import type { Services } from '../../app/services.js';
import { projectLabels } from '../../projections/accounts/queries.js';
import { ApiError } from '../errors.js';
import type { Routes } from '../route.js';
import { errorResponses, Uuid } from '../shared/schemas.js';

export const labelRoutes = (routes: Routes, services: Services): void => {
  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/labels',
    tag: 'Projects',
    operationId: 'getAvailableLabels',
    summary: 'The labels in use on the accounts of the project',
    description:
      'Each label once, in alphabetical order; deleted accounts do not count. An account-level key sees the labels of its own account. Another project id gives 404 [PROJECT_NOT_FOUND].',
    params: Type.Object({ projectId: Uuid }, { additionalProperties: false }),
    responses: { 200: { description: 'labels', schema: Type.Array(Type.String()) }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller }) {
      if (params.projectId !== caller.projectId) throw new ApiError(404, '[PROJECT_NOT_FOUND]', `project ${params.projectId} not found`);
      return { body: await projectLabels(services.db, caller.projectId, caller.accountId) };
    },
  });
};
