// First start: the default project exists, and a project-level key for it does too. BOOTSTRAP_API_KEY
// makes that key's value known in advance; otherwise one is generated and shown exactly once.
//
// Key ids are random: nothing in an id (which audit logs show) derives from the value. The operator's key
// is found again by its hash, so it keeps its id across restarts; another BOOTSTRAP_API_KEY replaces it,
// and the replaced key is revoked by an ordinary ApiKeyRevoked event (REPLACED_BY_NEW_BOOTSTRAP_KEY).
import { randomUUID } from 'node:crypto';
import { apiKeyDecider } from '../domain/apiKey/decider.js';
import { apiKeyStream } from '../domain/apiKey/events.js';
import { systemContext } from '../domain/shared/command.js';
import { DEFAULT_PROJECT_ID, DEFAULT_PROJECT_NAME, projectDecider } from '../domain/project/decider.js';
import { projectStream } from '../domain/project/events.js';
import { BOOTSTRAP_KEY_NAME } from '../projections/apiKeys/projector.js';
import { countActiveProjectKeys, findApiKeyByHash, listLiveOperatorKeys } from '../projections/apiKeys/queries.js';
import { generateApiKey, hashApiKey, keyPrefix } from '../domain/apiKey/secret.js';
import { execute, oneAtATime, type Services, settle } from './services.js';

export interface IssuedKey {
  readonly apiKeyId: string;
  readonly key: string;
}

const bootstrapMetadata = (services: Services, projectId: string) => ({
  now: services.clock().toISOString(),
  context: { ...systemContext('bootstrap'), projectId },
});

export const ensureProject = async (services: Services, projectId: string, name: string): Promise<void> => {
  await execute(services, projectStream(projectId), projectDecider, {
    type: 'CreateProject',
    data: { projectId, name, owner: null },
    metadata: { now: services.clock().toISOString(), context: systemContext('bootstrap') },
  });
};

const issue = async (services: Services, projectId: string, key: string, name: string, prefix: string | null): Promise<IssuedKey> => {
  const apiKeyId = randomUUID();
  await execute(services, apiKeyStream(apiKeyId), apiKeyDecider, {
    type: 'IssueApiKey',
    data: {
      apiKeyId,
      projectId,
      accountId: null,
      level: 'PROJECT',
      keyType: 'INTEGRATION',
      name,
      keyHash: hashApiKey(key),
      keyPrefix: prefix,
      expiresAt: null,
    },
    metadata: bootstrapMetadata(services, projectId),
  });
  return { apiKeyId, key };
};

/**
 * Ensures a project-level key with a value the operator chose: the key with that hash when there is
 * one (the same value keeps its id; a revoked one stays revoked), otherwise a new key with a random id
 * and no prefix shown. The caller takes its turn (`oneAtATime`) when another instance may do the same.
 */
const ensureOperatorKey = async (services: Services, projectId: string, key: string, name: string): Promise<IssuedKey & { revoked: boolean }> => {
  // The read models may not yet include what an earlier start (or another instance) wrote.
  await settle(services);
  const existing = await findApiKeyByHash(services.db, hashApiKey(key));
  if (!existing) return { ...(await issue(services, projectId, key, name, null)), revoked: false };
  if (existing.project_id !== projectId || existing.level !== 'PROJECT') {
    throw new Error(`${name}: the value is already that of another key (${existing.id}); choose another value`);
  }
  return { apiKeyId: existing.id, key, revoked: existing.revoked_at !== null };
};

export const issueProjectKey = async (services: Services, projectId: string, key: string, name: string): Promise<IssuedKey> => {
  const { apiKeyId } = await ensureOperatorKey(services, projectId, key, name);
  return { apiKeyId, key };
};

/** Revokes the operator's former keys of the project, now that `current` replaces them. */
const revokeReplaced = async (services: Services, projectId: string, current: IssuedKey): Promise<void> => {
  for (const old of await listLiveOperatorKeys(services.db, projectId)) {
    if (old.id === current.apiKeyId) continue;
    await execute(services, apiKeyStream(old.id), apiKeyDecider, {
      type: 'RevokeApiKey',
      data: { apiKeyId: old.id, projectId, reason: 'REPLACED_BY_NEW_BOOTSTRAP_KEY', replacedBy: current.apiKeyId },
      metadata: bootstrapMetadata(services, projectId),
    });
    services.log.info(`BOOTSTRAP_API_KEY changed: the former bootstrap key ${old.id} was revoked (replaced by ${current.apiKeyId})`);
  }
};

/** Returns the generated key when one had to be made (to be printed once), null otherwise. */
export const bootstrap = async (services: Services): Promise<IssuedKey | null> => {
  await ensureProject(services, DEFAULT_PROJECT_ID, DEFAULT_PROJECT_NAME);
  // Instances starting together take turns, so one value never gets two keys.
  return oneAtATime(services, `bootstrap-key:${DEFAULT_PROJECT_ID}`, async () => {
    const bootstrapKey = services.config.bootstrapApiKey;
    if (bootstrapKey) {
      const current = await ensureOperatorKey(services, DEFAULT_PROJECT_ID, bootstrapKey, BOOTSTRAP_KEY_NAME);
      if (current.revoked) {
        // Revocation is final, and the keys that work now stay as they are.
        services.log.warn(
          `BOOTSTRAP_API_KEY is the value of key ${current.apiKeyId}, which was revoked: it does not authenticate; set another value for a working bootstrap key`,
        );
        return null;
      }
      await revokeReplaced(services, DEFAULT_PROJECT_ID, current);
      return null;
    }
    await settle(services);
    if ((await countActiveProjectKeys(services.db, DEFAULT_PROJECT_ID)) > 0) return null;
    const key = generateApiKey();
    return issue(services, DEFAULT_PROJECT_ID, key, 'first-start key', keyPrefix(key));
  });
};
