// Acknowledging entries of a project's account logs (spec: PUT /projects/{projectId}/logs/{id}/acknowledge,
// .../logs/acknowledge/bulk, .../logs/acknowledgeAll): the ids are checked against the project's logs in
// the read model (an id of another project is unknown here, as one that never existed), then the
// acknowledgement is an event of the project's stream and the answer waits for the read model to show it.
import { accountLogDecider } from '../../domain/accountLog/decider.js';
import { logAcknowledgementsStream } from '../../domain/accountLog/events.js';
import type { RequestContext } from '../../domain/shared/command.js';
import { notFound } from '../../domain/shared/errors.js';
import { projectLogIds } from '../../projections/accountLogs/queries.js';
import { commandMetadata, execute, type Services } from '../services.js';

const READ_MODELS = ['account_logs'];

/** Acknowledges `logIds` of the project's logs; one unknown id answers 404 [LOG_NOT_FOUND] and acknowledges none. */
export const acknowledgeLogs = async (
  services: Services,
  request: { readonly projectId: string; readonly logIds: readonly number[]; readonly context: RequestContext },
): Promise<void> => {
  const { projectId, logIds, context } = request;
  const known = await projectLogIds(services.db, projectId, logIds);
  const missing = logIds.filter((id) => !known.has(id));
  if (missing.length) throw notFound('[LOG_NOT_FOUND]', `log ${missing.slice(0, 10).join(', ')} not found in project ${projectId}`);
  await execute(
    services,
    logAcknowledgementsStream(projectId),
    accountLogDecider,
    { type: 'AcknowledgeLogs', data: { projectId, logIds }, metadata: commandMetadata(services, context) },
    READ_MODELS,
  );
};

/** Acknowledges every entry of the project's logs written so far. */
export const acknowledgeAllLogs = async (services: Services, request: { readonly projectId: string; readonly context: RequestContext }): Promise<void> => {
  await execute(
    services,
    logAcknowledgementsStream(request.projectId),
    accountLogDecider,
    { type: 'AcknowledgeAllLogs', data: { projectId: request.projectId }, metadata: commandMetadata(services, request.context) },
    READ_MODELS,
  );
};
