// The key operations behind the routes: issue, change, rotate, revoke, set or remove the access policy.
// Each is a command on the key's stream; a write answers after the read models include it, so the very
// next request is authenticated against the new state (revocation and rotation take effect at once).
import { v5 as uuidv5 } from 'uuid';
import type { AccessPolicy } from '../../domain/apiKey/accessPolicy.js';
import type { ApiKeyCommand } from '../../domain/apiKey/commands.js';
import { apiKeyDecider } from '../../domain/apiKey/decider.js';
import { apiKeyStream, type ApiKeyLevel, type ApiKeyType } from '../../domain/apiKey/events.js';
import type { RequestContext } from '../../domain/shared/command.js';
import { DomainError } from '../../domain/shared/errors.js';
import { listLiveAiKeys } from '../../projections/apiKeys/queries.js';
import { aggregateStream, EVENT_ID_NAMESPACE } from '../../store/commandHandler.js';
import { generateApiKey, hashApiKey, keyPrefix } from '../../domain/apiKey/secret.js';
import { type CommandServices, commandMetadata, execute, oneAtATime, settle } from '../services.js';

export interface IssuedKey {
  readonly apiKeyId: string;
  readonly key: string;
}

export interface NewKey {
  readonly projectId: string;
  readonly accountId: string | null;
  readonly level: ApiKeyLevel;
  readonly keyType: ApiKeyType;
  readonly name: string;
  readonly expiresAt: string | null;
  readonly accessPolicy: AccessPolicy | null;
}

/** `unread`: the key's stream is taken as empty without reading it (a conflict reads it and decides again). */
const run = (services: CommandServices, apiKeyId: string, command: ApiKeyCommand, unread = false) =>
  execute(
    services,
    apiKeyStream(apiKeyId),
    apiKeyDecider,
    command,
    undefined,
    unread ? { known: { state: apiKeyDecider.initialState, revision: null } } : undefined,
  );

/**
 * One AI key per project (spec ApiKeyDTO): `work` makes `apiKeyId` the AI key; first every other live AI
 * key of the project is revoked (REPLACED_BY_NEW_AI_KEY). Revoking first means a crash in between
 * leaves no AI key rather than two. One at a time per project, so two concurrent requests cannot both
 * keep theirs.
 */
const asTheAiKey = <T>(services: CommandServices, projectId: string, apiKeyId: string, context: RequestContext, work: () => Promise<T>): Promise<T> =>
  oneAtATime(services, `ai-key:${projectId}`, async () => {
    // Another instance may have held the lock last: see its writes before looking.
    await settle(services);
    for (const other of await listLiveAiKeys(services.db, projectId)) {
      if (other.id === apiKeyId) continue;
      await run(services, other.id, {
        type: 'RevokeApiKey',
        data: { apiKeyId: other.id, projectId, reason: 'REPLACED_BY_NEW_AI_KEY', replacedBy: apiKeyId },
        metadata: commandMetadata(services, context),
      });
    }
    return work();
  });

/** Decides a command without storing it: its refusal (404, 409, 400) comes before any other key changes. */
const dryRun = async (services: CommandServices, apiKeyId: string, command: ApiKeyCommand): Promise<void> => {
  const { state } = await aggregateStream(services.store, apiKeyStream(apiKeyId), apiKeyDecider.evolve, apiKeyDecider.initialState);
  apiKeyDecider.decide(command, state);
};

/**
 * `expectNew`: the key's id was never issued as far as the caller knows (a new account's key), so its
 * stream is not read first: the append expects no stream, and one that exists makes it conflict, read the
 * stream and decide again (then [API_KEY_ALREADY_EXISTS]), as a read would have.
 */
export const issueKey = async (
  services: CommandServices,
  input: NewKey,
  context: RequestContext,
  apiKeyId: string = crypto.randomUUID(),
  expectNew = false,
): Promise<IssuedKey> => {
  const key = generateApiKey();
  const command: ApiKeyCommand = {
    type: 'IssueApiKey',
    data: { apiKeyId, ...input, keyHash: hashApiKey(key), keyPrefix: keyPrefix(key) },
    metadata: commandMetadata(services, context),
  };
  if (input.keyType === 'AI') {
    await dryRun(services, apiKeyId, command);
    await asTheAiKey(services, input.projectId, apiKeyId, context, () => run(services, apiKeyId, command));
  } else {
    await run(services, apiKeyId, command, expectNew);
  }
  return { apiKeyId, key };
};

export const rotateKey = async (services: CommandServices, projectId: string, apiKeyId: string, context: RequestContext): Promise<IssuedKey> => {
  const key = generateApiKey();
  await run(services, apiKeyId, {
    type: 'RotateApiKey',
    data: { apiKeyId, projectId, keyHash: hashApiKey(key), keyPrefix: keyPrefix(key) },
    metadata: commandMetadata(services, context),
  });
  return { apiKeyId, key };
};

/**
 * The account-level key every account gets at its creation (spec "Authentication" 2). Its id derives
 * from the account, so creating the same account again (an async creation resumed after a crash)
 * finds it: the key is then rotated, because its first value was never delivered. `newAccount`: the
 * account was created just now, so its key's stream is expected not to exist and is not read first.
 */
export const issueAccountKey = async (
  services: CommandServices,
  projectId: string,
  accountId: string,
  alias: string | null,
  context: RequestContext,
  newAccount = false,
): Promise<IssuedKey> => {
  const apiKeyId = uuidv5(`accountKey:${accountId}`, EVENT_ID_NAMESPACE);
  try {
    return await issueKey(
      services,
      {
        projectId,
        accountId,
        level: 'ACCOUNT',
        keyType: 'INTEGRATION',
        name: `account key of ${alias ?? accountId}`,
        expiresAt: null,
        accessPolicy: null,
      },
      context,
      apiKeyId,
      newAccount,
    );
  } catch (error) {
    if (error instanceof DomainError && error.code === '[API_KEY_ALREADY_EXISTS]') return rotateKey(services, projectId, apiKeyId, context);
    throw error;
  }
};

export const changeKey = async (
  services: CommandServices,
  projectId: string,
  apiKeyId: string,
  changes: { name?: string; expiresAt?: string | null; keyType?: ApiKeyType },
  context: RequestContext,
): Promise<void> => {
  const command: ApiKeyCommand = { type: 'ChangeApiKey', data: { apiKeyId, projectId, ...changes }, metadata: commandMetadata(services, context) };
  if (changes.keyType === 'AI') {
    await dryRun(services, apiKeyId, command);
    await asTheAiKey(services, projectId, apiKeyId, context, () => run(services, apiKeyId, command));
  } else {
    await run(services, apiKeyId, command);
  }
};

export const revokeKey = (services: CommandServices, projectId: string, apiKeyId: string, context: RequestContext) =>
  run(services, apiKeyId, { type: 'RevokeApiKey', data: { apiKeyId, projectId, reason: 'REVOKED' }, metadata: commandMetadata(services, context) });

export const setAccessPolicy = (services: CommandServices, projectId: string, apiKeyId: string, accessPolicy: AccessPolicy, context: RequestContext) =>
  run(services, apiKeyId, { type: 'SetApiKeyAccessPolicy', data: { apiKeyId, projectId, accessPolicy }, metadata: commandMetadata(services, context) });

export const removeAccessPolicy = (services: CommandServices, projectId: string, apiKeyId: string, context: RequestContext) =>
  run(services, apiKeyId, { type: 'RemoveApiKeyAccessPolicy', data: { apiKeyId, projectId }, metadata: commandMetadata(services, context) });
