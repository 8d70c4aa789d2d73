// First start: the default project exists, and a project-level key for it does too. BOOTSTRAP_API_KEY
// makes that key's value known in advance; otherwise one is generated and shown exactly once.
import { v5 as uuidv5 } from 'uuid';
import { apiKeyDecider } from '../domain/apiKey/decider.js';
import { apiKeyStream } from '../domain/apiKey/events.js';
import { systemContext } from '../domain/shared/command.js';
import { DEFAULT_PROJECT_ID, DEFAULT_PROJECT_NAME, projectDecider } from '../domain/project/decider.js';
import { projectStream } from '../domain/project/events.js';
import { countActiveProjectKeys } from '../projections/apiKeys/queries.js';
import { EVENT_ID_NAMESPACE } from '../store/commandHandler.js';
import { generateApiKey, hashApiKey, keyPrefix } from './auth.js';
import { execute, type Services } from './services.js';

export interface IssuedKey {
  readonly apiKeyId: string;
  readonly key: string;
}

export const ensureProject = async (services: Services, projectId: string, name: string): Promise<void> => {
  await execute(services, projectStream(projectId), projectDecider, {
    type: 'CreateProject',
    data: { projectId, name, owner: null },
    metadata: { now: services.clock().toISOString(), context: systemContext('bootstrap') },
  });
};

/** Issues a project-level key; the same key value always gets the same id, so this is idempotent. */
export const issueProjectKey = async (services: Services, projectId: string, key: string, name: string): Promise<IssuedKey> => {
  const keyHash = hashApiKey(key);
  const apiKeyId = uuidv5(`apiKey:${keyHash}`, EVENT_ID_NAMESPACE);
  await execute(services, apiKeyStream(apiKeyId), apiKeyDecider, {
    type: 'IssueApiKey',
    data: {
      apiKeyId,
      projectId,
      accountId: null,
      level: 'PROJECT',
      keyType: 'INTEGRATION',
      name,
      keyHash,
      keyPrefix: keyPrefix(key),
      expiresAt: null,
    },
    metadata: { now: services.clock().toISOString(), context: { ...systemContext('bootstrap'), projectId } },
  });
  return { apiKeyId, key };
};

/** Returns the generated key when one had to be made (to be printed once), null otherwise. */
export const bootstrap = async (services: Services): Promise<IssuedKey | null> => {
  await ensureProject(services, DEFAULT_PROJECT_ID, DEFAULT_PROJECT_NAME);
  if (services.config.bootstrapApiKey) {
    await issueProjectKey(services, DEFAULT_PROJECT_ID, services.config.bootstrapApiKey, 'bootstrap key (BOOTSTRAP_API_KEY)');
    return null;
  }
  if ((await countActiveProjectKeys(services.db, DEFAULT_PROJECT_ID)) > 0) return null;
  return issueProjectKey(services, DEFAULT_PROJECT_ID, generateApiKey(), 'first-start key');
};
