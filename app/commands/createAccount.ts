// Account creation, shared by POST /accounts (synchronous) and the asynchronous queue (callbackUrl):
// the same settings, the same checks, the same events, and the account-level key every account gets
// (spec "Authentication" 2). One creation at a time per project (spec "Limits"), across instances: a
// PostgreSQL advisory lock named by `creationLock` is held around the duplicate check and the write.
import type { AccountCommand } from '../../domain/account/commands.js';
import { accountDecider } from '../../domain/account/decider.js';
import { accountStream, type AccountSettings } from '../../domain/account/events.js';
import type { RequestContext } from '../../domain/shared/command.js';
import { findSameLogin } from '../../projections/accounts/queries.js';
import { aggregateStream, handleCommand } from '../../store/commandHandler.js';
import { issueAccountKey, type IssuedKey } from './apiKeys.js';
import { illegalState, notFound } from '../../domain/shared/errors.js';
import { deletedAt } from '../../projections/projects/queries.js';
import { commandMetadata, oneAtATime, settle, type Services } from '../services.js';
import { creationLock } from '../accounts/creationLock.js';
import { checkCustomerAccountCreation } from '../customersProjects.js';

export interface AccountCreation {
  readonly accountId: string;
  readonly projectId: string;
  readonly settings: AccountSettings;
  readonly failIfAccountExistsInProject: boolean;
  readonly context: RequestContext;
}

const commandOf = (services: Services, creation: AccountCreation): AccountCommand => ({
  type: 'CreateAccount',
  data: { accountId: creation.accountId, projectId: creation.projectId, settings: creation.settings },
  metadata: commandMetadata(services, creation.context),
});

/** The checks that need no other account (region and type codes): they answer before anything is queued. */
export const precheckCreation = (services: Services, creation: AccountCreation): void => {
  accountDecider.decide(commandOf(services, creation), accountDecider.initialState);
};

/**
 * The duplicate check reads the accounts read model, which must include every creation before this one.
 * The one before waited for it under the same lock, but only READ_MODEL_WAIT_MS: under heavy load the
 * read model can still lag, and the check would let a duplicate through. Then nothing is created: 503
 * [READ_MODELS_BEHIND] (api/errors.ts), or the asynchronous queue tries again.
 */
const accountsIncludeEverything = async (services: Services): Promise<void> => {
  if (await settle(services, ['accounts'])) return;
  throw Object.assign(new Error('the accounts read model lags behind the event store'), {
    temporarilyUnavailable: true,
    code: '[READ_MODELS_BEHIND]',
    message: 'the read models lag behind the latest writes (heavy load), so failIfAccountExistsInProject cannot be judged yet; nothing was created: try again',
    retryAfterSeconds: 5,
  });
};

/**
 * Creates the account and its account-level key. The caller holds `creationLock(projectId)`. Running it
 * again for the same account id (a resumed async creation) creates nothing twice: an account already
 * in the store is taken as created, and its key gets a fresh value.
 */
export const createAccountLocked = async (services: Services, creation: AccountCreation): Promise<IssuedKey> => {
  const stream = accountStream(creation.accountId);
  const known = await aggregateStream(services.store, stream, accountDecider.evolve, accountDecider.initialState);
  if (!known.state.exists) {
    // Deleting a project sweeps its accounts under the same lock (app/commands/projects.ts).
    const deleted = await deletedAt(services.db, creation.projectId);
    if (deleted) throw notFound('[PROJECT_DELETED]', `project ${creation.projectId} was deleted at ${deleted.toISOString()}`);
    // A white-label customer's project: the brand's limits (app/customersProjects.ts).
    await checkCustomerAccountCreation(services, creation.projectId, creation.settings);
    if (creation.failIfAccountExistsInProject) {
      await accountsIncludeEverything(services);
      if (await findSameLogin(services.db, creation.projectId, creation.settings)) {
        throw illegalState('[ACCOUNT_ALREADY_EXISTS]', 'an account with this login, server and type already exists in the project');
      }
    }
    // Decided on the stream as just read (no second read of it); another writer in between makes the
    // append conflict, and the retry reads the stream again. No wait for the read models here: the
    // account key's write comes after this one in `$all`, and its wait covers both.
    await handleCommand(services.store, stream, accountDecider, commandOf(services, creation), { known });
    return issueAccountKey(services, creation.projectId, creation.accountId, creation.settings.alias, creation.context, true);
  }
  return issueAccountKey(services, creation.projectId, creation.accountId, creation.settings.alias, creation.context);
};

/** Synchronous creation: waits for the project's turn. */
export const createAccountNow = (services: Services, creation: AccountCreation): Promise<IssuedKey> =>
  oneAtATime(services, creationLock(creation.projectId), () => createAccountLocked(services, creation));
