// The project in a request's path (/projects/{projectId}/...), as the caller may reach it: only with a
// project-level key of that project. Another project's id looks like a missing project (404
// [PROJECT_NOT_FOUND]), so no caller learns which projects exist; an account-level key gets 403
// [PROJECT_LEVEL_API_KEY_REQUIRED].
import { ApiError } from '../errors.js';
import type { Caller } from '../route.js';

export const checkProjectScope = (caller: Caller, projectId: string, what: string): string => {
  if (projectId !== caller.projectId) throw new ApiError(404, '[PROJECT_NOT_FOUND]', `project ${projectId} not found`);
  if (caller.level === 'ACCOUNT') throw new ApiError(403, '[PROJECT_LEVEL_API_KEY_REQUIRED]', `${what} needs a project-level API key`);
  return projectId;
};
