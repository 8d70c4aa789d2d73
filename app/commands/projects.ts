// The project use cases: create one (the operator's command line, scripts/project.ts), issue it a
// project-level key, and delete it (DELETE /projects/{projectId}).
//
// Deleting a project is one ProjectDeleted event followed by the events of what it ends: each live
// account is stopped (when it runs) and deleted, its broker session closed, its calendar alerts disarmed,
// alert rules deleted and feed subscriptions revoked, and then every key of the project is revoked
// (PROJECT_DELETED). Every one of these is an ordinary command on its own stream, so
// the project's audit log lists them all, and nothing is erased: the events stay for audit. ProjectDeleted
// comes first, so an interrupted deletion is finished by running it again (deleting a deleted project
// is a no-op that still sweeps), and an account creation waiting for the project's creation lock sees
// the project deleted and refuses (app/commands/createAccount.ts).
import { accountDecider } from '../../domain/account/decider.js';
import { AccountStatus } from '../../domain/account/enums.js';
import { accountStream } from '../../domain/account/events.js';
import { apiKeyDecider } from '../../domain/apiKey/decider.js';
import { apiKeyStream } from '../../domain/apiKey/events.js';
import { projectDecider } from '../../domain/project/decider.js';
import { projectStream } from '../../domain/project/events.js';
import type { RequestContext } from '../../domain/shared/command.js';
import { illegalState, invalid, notFound } from '../../domain/shared/errors.js';
import { findProject, liveAccountsOfProject, listProjects, liveKeysOfProject, type ProjectRow } from '../../projections/projects/queries.js';
import { creationLock } from '../accounts/creationLock.js';
import { endProjectAlerting } from '../alerts.js';
import { commandMetadata, type CommandServices, execute, oneAtATime, type Services, settle } from '../services.js';
import { type IssuedKey, issueKey } from './apiKeys.js';

const PROJECT_READ_MODELS = ['projects'];

/** A project's row, or 404 [PROJECT_NOT_FOUND]. */
export const loadProject = async (services: Pick<Services, 'db'>, projectId: string): Promise<ProjectRow> => {
  const row = await findProject(services.db, projectId);
  if (!row) throw notFound('[PROJECT_NOT_FOUND]', `project ${projectId} not found`);
  return row;
};

/** A project that is not deleted, or 404 [PROJECT_NOT_FOUND] / [PROJECT_DELETED]. */
export const loadLiveProject = async (services: Pick<Services, 'db'>, projectId: string): Promise<ProjectRow> => {
  const row = await loadProject(services, projectId);
  if (row.deleted) throw notFound('[PROJECT_DELETED]', `project ${projectId} was deleted at ${new Date(row.deleted).toISOString()}`);
  return row;
};

/** The live project whose id, or else whose name, is `idOrName`: 404 when none, 409 when the name is not unique. */
export const findLiveProjectByIdOrName = async (services: CommandServices, idOrName: string): Promise<ProjectRow> => {
  const live = (await listProjects(services.db)).filter((p) => !p.deleted);
  const byId = live.find((p) => p.id === idOrName);
  if (byId) return byId;
  const named = live.filter((p) => p.name === idOrName);
  if (named.length === 0) throw notFound('[PROJECT_NOT_FOUND]', `no project with the id or name ${idOrName}`);
  if (named.length > 1)
    throw illegalState('[PROJECT_NAME_AMBIGUOUS]', `${named.length} projects are named ${idOrName}: give the id (${named.map((p) => p.id).join(', ')})`);
  return named[0]!;
};

/**
 * Creates a project with a new id and a first project-level key (shown once, to be handed over). Names
 * are unique among live projects, so the operator can name a project in `npm run project -- key NAME`.
 */
export const createProject = async (
  services: CommandServices,
  input: { name: string; owner: string | null },
  context: RequestContext,
): Promise<{ project: ProjectRow; key: IssuedKey }> => {
  const name = input.name.trim();
  if (input.owner !== null && !/^[^\s@]+@[^\s@]+$/.test(input.owner)) {
    throw invalid('[VALIDATION_FAILED]', `owner: an e-mail address, not ${input.owner}`, { field: 'owner' });
  }
  const projectId = await oneAtATime(services, 'project-names', async () => {
    await settle(services, PROJECT_READ_MODELS);
    const taken = (await listProjects(services.db)).find((p) => !p.deleted && p.name === name);
    if (taken) throw illegalState('[PROJECT_ALREADY_EXISTS]', `a project named ${name} exists already (${taken.id})`);
    const id = crypto.randomUUID();
    await execute(
      services,
      projectStream(id),
      projectDecider,
      { type: 'CreateProject', data: { projectId: id, name, owner: input.owner }, metadata: commandMetadata(services, { ...context, projectId: id }) },
      PROJECT_READ_MODELS,
    );
    return id;
  });
  const key = await issueProjectLevelKey(services, projectId, 'first project key', { ...context, projectId });
  return { project: await loadProject(services, projectId), key };
};

/** A new project-level key of a live project; its value is in the answer only. */
export const issueProjectLevelKey = async (services: CommandServices, projectId: string, name: string, context: RequestContext): Promise<IssuedKey> => {
  await loadLiveProject(services, projectId);
  return issueKey(services, { projectId, accountId: null, level: 'PROJECT', keyType: 'INTEGRATION', name, expiresAt: null, accessPolicy: null }, context);
};

export interface ProjectDeletion {
  readonly deletedAccounts: number;
  readonly revokedKeys: number;
}

/** Deletes a project: see the top of this file. Answers what it ended (0 and 0 when run again after a complete deletion). */
export const deleteProject = async (services: Services, projectId: string, context: RequestContext): Promise<ProjectDeletion> => {
  await loadProject(services, projectId);
  const metadata = () => commandMetadata(services, context);
  await execute(services, projectStream(projectId), projectDecider, { type: 'DeleteProject', data: { projectId }, metadata: metadata() }, PROJECT_READ_MODELS);
  // Under the project's creation lock: a creation either finished before (and is swept here) or sees the project deleted.
  const deletedAccounts = await oneAtATime(services, creationLock(projectId), async () => {
    await settle(services, ['accounts']);
    const accounts = await liveAccountsOfProject(services.db, projectId);
    for (const account of accounts) {
      const data = { accountId: account.id, projectId };
      if (account.account_status_id === AccountStatus.Active) {
        await execute(services, accountStream(account.id), accountDecider, { type: 'StopAccount', data, metadata: metadata() });
      }
      await execute(services, accountStream(account.id), accountDecider, { type: 'DeleteAccount', data, metadata: metadata() });
      await services.connections.disconnect(account.id, 'deleted');
    }
    return accounts.length;
  });
  // Its calendar alerting ends with it: no alert of a deleted project fires, no feed of it answers.
  await endProjectAlerting(services, context, projectId);
  await settle(services, ['api_keys']);
  const keys = await liveKeysOfProject(services.db, projectId);
  for (const key of keys) {
    await execute(services, apiKeyStream(key.id), apiKeyDecider, {
      type: 'RevokeApiKey',
      data: { apiKeyId: key.id, projectId, reason: 'PROJECT_DELETED' },
      metadata: metadata(),
    });
  }
  await settle(services);
  return { deletedAccounts, revokedKeys: keys.length };
};
