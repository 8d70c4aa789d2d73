// Account creation, shared by POST /accounts (synchronous) and the asynchronous queue (callbackUrl):
// the same settings, the same checks, the same events, and the account-level key every account gets
// (spec "Authentication" 2). One creation at a time per project (spec "Limits"), across instances: a
// PostgreSQL advisory lock named by `creationLock` is held around the duplicate check and the write.
import type { Static } from '@sinclair/typebox';
import type { AccountCommand } from '../../domain/account/commands.js';
import { accountDecider } from '../../domain/account/decider.js';
import { accountStream, type AccountSettings } from '../../domain/account/events.js';
import type { RequestContext } from '../../domain/shared/command.js';
import { findSameLogin } from '../../projections/accounts/queries.js';
import { aggregateStream } from '../../store/commandHandler.js';
import { issueAccountKey, type IssuedKey } from '../apiKeys/keys.js';
import { ApiError } from '../errors.js';
import { commandMetadata, execute, oneAtATime, type Services } from '../services.js';
import type { AccountCreateDTO } from './schemas.js';

export type CreateBody = Static<typeof AccountCreateDTO>;

export interface AccountCreation {
  readonly accountId: string;
  readonly projectId: string;
  readonly settings: AccountSettings;
  readonly failIfAccountExistsInProject: boolean;
  readonly context: RequestContext;
}

export const creationLock = (projectId: string): string => `create-account:${projectId}`;

/** The settings of a new account from the request body; the password only as ciphertext from here on. */
export const settingsOf = (services: Services, body: CreateBody): AccountSettings => ({
  loginServer: body.loginServer,
  loginAccountNumber: body.loginAccountNumber,
  passwordCiphertext: services.cipher.encrypt(body.loginAccountPassword),
  alias: body.alias ?? null,
  accountTypeId: body.accountTypeId,
  regionId: body.regionId,
  propFirm: body.propFirm ?? false,
  tradingDisabled: body.tradingDisabled ?? false,
  nativeMode: body.nativeMode ?? false,
  closeUnmanagedPositions: body.closeUnmanagedPositions ?? false,
  dedicatedIp: body.dedicatedIp ?? null,
  myHomeIp: body.myHomeIp ?? null,
  proxy: body.proxy ? { username: null, ...body.proxy } : null,
});

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
 * Creates the account and its account-level key. The caller holds `creationLock(projectId)`. Running it
 * again for the same account id (a resumed async creation) creates nothing twice: an account already
 * in the store is taken as created, and its key gets a fresh value.
 */
export const createAccountLocked = async (services: Services, creation: AccountCreation): Promise<IssuedKey> => {
  const { state } = await aggregateStream(services.store, accountStream(creation.accountId), accountDecider.evolve, accountDecider.initialState);
  if (!state.exists) {
    if (creation.failIfAccountExistsInProject && (await findSameLogin(services.db, creation.projectId, creation.settings))) {
      throw new ApiError(409, '[ACCOUNT_ALREADY_EXISTS]', 'an account with this login, server and type already exists in the project');
    }
    await execute(services, accountStream(creation.accountId), accountDecider, commandOf(services, creation));
  }
  return issueAccountKey(services, creation.projectId, creation.accountId, creation.settings.alias, creation.context);
};

/** Synchronous creation: waits for the project's turn. */
export const createAccountNow = (services: Services, creation: AccountCreation): Promise<IssuedKey> =>
  oneAtATime(services, creationLock(creation.projectId), () => createAccountLocked(services, creation));
