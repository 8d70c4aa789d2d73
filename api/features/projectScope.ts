// Project features are reached only with a project-level key of that project: another project's id
// looks like a missing project (404 [PROJECT_NOT_FOUND], as under /projects/{projectId}/apiKeys), an
// account-level key gets 403 [PROJECT_LEVEL_API_KEY_REQUIRED].
import type { FeatureScope } from '../../domain/feature/events.js';
import { type FeatureRow, projectFeatureRows } from '../../projections/features/queries.js';
import { withMaintenanceState } from '../../projections/maintenanceWindows/queries.js';
import { ApiError } from '../errors.js';
import type { Caller } from '../route.js';
import type { Services } from '../../app/services.js';

/** The project in the path, as the caller may reach it. */
export const projectFeatureScope = (caller: Caller, projectId: string): FeatureScope & { kind: 'project' } => {
  if (projectId !== caller.projectId) throw new ApiError(404, '[PROJECT_NOT_FOUND]', `project ${projectId} not found`);
  if (caller.level === 'ACCOUNT') throw new ApiError(403, '[PROJECT_LEVEL_API_KEY_REQUIRED]', 'project features need a project-level API key');
  return { kind: 'project', projectId };
};

export const projectFeatureRow = async (services: Services, projectId: string, featureId: string): Promise<FeatureRow> => {
  const row = (await withMaintenanceState(services.db, await projectFeatureRows(services.db, projectId))).find((r) => r.id === featureId);
  if (!row) throw new ApiError(404, '[FEATURE_NOT_FOUND]', `feature ${featureId} not found`);
  return row;
};
