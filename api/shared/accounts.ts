// The account in a request's path, as the caller may reach it: every area under /accounts/{accountId}
// starts here.
import { findAccount } from '../../projections/accounts/queries.js';
import type { Services } from '../../app/services.js';
import { ApiError } from '../errors.js';
import type { Caller } from '../route.js';

export const accountNotFound = (accountId: string) => new ApiError(404, '[ACCOUNT_NOT_FOUND]', `account ${accountId} not found`);

/** An account-level key sees only its own account; anything else looks like a missing account. */
export const checkAccountScope = (caller: Caller, accountId: string): void => {
  if (caller.accountId && caller.accountId !== accountId) throw accountNotFound(accountId);
};

export const loadAccount = async (services: Services, caller: Caller, accountId: string) => {
  checkAccountScope(caller, accountId);
  const row = await findAccount(services.db, caller.projectId, accountId);
  if (!row) throw accountNotFound(accountId);
  return row;
};
