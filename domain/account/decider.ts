// The account aggregate. Status transitions (spec leaves them open; documented in the OpenAPI text):
//   New -start-> Active, Stopped -start-> Active      (start connects)
//   New -stop-> Stopped, Active -stop-> Stopped       (stop disconnects; a stopped account stays stopped)
//   any but Deleted -delete-> Deleted                 (final: no command changes a deleted account)
// Start on Active, stop on Stopped and delete on Deleted are no-ops. Reconnect needs Active and is
// allowed once every 30 minutes (spec "Limits").
import { DateTime } from 'luxon';
import type { Decider } from '../shared/command.js';
import { DomainError, illegalState, invalid, notFound } from '../shared/errors.js';
import { sameJson } from '../shared/json.js';
import type { AccountChanges, AccountCommand } from './commands.js';
import { AccountStatus, type AccountStatusId, isAccountType, isRegion } from './enums.js';
import type { AccountEvent, AccountSettings } from './events.js';

export const RECONNECT_INTERVAL_MINUTES = 30;

export interface Account {
  readonly exists: boolean;
  readonly id: string;
  readonly projectId: string;
  readonly status: AccountStatusId;
  readonly settings: AccountSettings | null;
  readonly created: string | null;
  readonly lastReconnectAt: string | null;
}

export const initialState: Account = {
  exists: false,
  id: '',
  projectId: '',
  status: AccountStatus.New,
  settings: null,
  created: null,
  lastReconnectAt: null,
};

const checkCodes = (settings: { readonly regionId?: number; readonly accountTypeId?: number }): void => {
  if (settings.regionId !== undefined && !isRegion(settings.regionId)) {
    throw notFound('[REGION_NOT_FOUND]', `region ${settings.regionId} does not exist (1 to 4)`);
  }
  if (settings.accountTypeId !== undefined && !isAccountType(settings.accountTypeId)) {
    throw notFound('[ACCOUNT_TYPE_NOT_FOUND]', `account type ${settings.accountTypeId} does not exist (1 to 17)`);
  }
};

/**
 * An account's own cTrader application is a pair: one of ctraderClientId / ctraderClientSecret without
 * the other would be ignored when the account connects (engine/venues/applications.ts), so it is refused.
 */
const checkCtraderPair = (settings: Pick<AccountSettings, 'ctraderClientId' | 'ctraderClientSecretCiphertext'>): void => {
  const hasId = (settings.ctraderClientId ?? '') !== '';
  const hasSecret = (settings.ctraderClientSecretCiphertext ?? null) !== null;
  if (hasId === hasSecret) return;
  const [missing, given] = hasId ? ['ctraderClientSecret', 'ctraderClientId'] : ['ctraderClientId', 'ctraderClientSecret'];
  throw invalid('[VALIDATION_FAILED]', `${missing}: the account's cTrader application needs it with ${given} (set both, or neither)`, {
    field: `body.${missing}`,
  });
};

/** Labels keep their order; a repeated one is kept once. */
export const uniqueLabels = (labels: readonly string[]): string[] => [...new Set(labels)];

/** The changes as settings: labels without repeats, and a home proxy's kept password filled in. */
const resolveChanges = (current: AccountSettings, changes: AccountChanges): Partial<AccountSettings> => {
  const { myHomeIp, labels, ...rest } = changes;
  const out: Record<string, unknown> = { ...rest };
  if (labels !== undefined) out.labels = uniqueLabels(labels);
  if (myHomeIp !== undefined) {
    if (myHomeIp === null || myHomeIp.passwordCiphertext !== null) out.myHomeIp = myHomeIp;
    else if (current.myHomeIp) out.myHomeIp = { ...myHomeIp, passwordCiphertext: current.myHomeIp.passwordCiphertext };
    else throw invalid('[VALIDATION_FAILED]', 'myHomeIp.password: a new home proxy needs its password', { field: 'body.myHomeIp.password' });
  }
  return out as Partial<AccountSettings>;
};

const existing = (state: Account, projectId: string, accountId: string): Account & { settings: AccountSettings } => {
  // Another project's account is reported exactly like a missing one.
  if (!state.exists || state.projectId !== projectId || !state.settings) {
    throw notFound('[ACCOUNT_NOT_FOUND]', `account ${accountId} not found`);
  }
  return state as Account & { settings: AccountSettings };
};

const notDeleted = (state: Account): void => {
  if (state.status === AccountStatus.Deleted) throw illegalState('[ACCOUNT_DELETED]', `account ${state.id} was deleted`);
};

const changedMembers = (current: AccountSettings, changes: Partial<AccountSettings>): Partial<AccountSettings> => {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    const before = current[key as keyof AccountSettings];
    if (!sameJson(before, value)) out[key] = value;
  }
  return out as Partial<AccountSettings>;
};

export const decide = (command: AccountCommand, state: Account): AccountEvent[] => {
  const at = command.metadata.now;
  const { accountId, projectId } = command.data;
  switch (command.type) {
    case 'CreateAccount': {
      if (state.exists) throw illegalState('[ACCOUNT_ALREADY_EXISTS]', `account ${accountId} already exists`);
      checkCodes(command.data.settings);
      checkCtraderPair(command.data.settings);
      const settings = { ...command.data.settings, labels: uniqueLabels(command.data.settings.labels) };
      return [{ type: 'AccountCreated', data: { accountId, projectId, settings, at } }];
    }
    case 'UpdateAccount': {
      const account = existing(state, projectId, accountId);
      notDeleted(account);
      checkCodes(command.data.changes);
      const changes = changedMembers(account.settings, resolveChanges(account.settings, command.data.changes));
      if ('ctraderClientId' in changes || 'ctraderClientSecretCiphertext' in changes) checkCtraderPair({ ...account.settings, ...changes });
      return Object.keys(changes).length === 0 ? [] : [{ type: 'AccountUpdated', data: { accountId, changes, at } }];
    }
    case 'StartAccount': {
      const account = existing(state, projectId, accountId);
      notDeleted(account);
      if (account.status === AccountStatus.Active) return [];
      return [{ type: 'AccountStarted', data: { accountId, from: account.status, at } }];
    }
    case 'StopAccount': {
      const account = existing(state, projectId, accountId);
      notDeleted(account);
      if (account.status === AccountStatus.Stopped) return [];
      return [{ type: 'AccountStopped', data: { accountId, from: account.status, at } }];
    }
    case 'ReconnectAccount': {
      const account = existing(state, projectId, accountId);
      notDeleted(account);
      if (account.status !== AccountStatus.Active) {
        throw illegalState('[ACCOUNT_NOT_ACTIVE]', 'only an active (started) account can reconnect');
      }
      if (account.lastReconnectAt) {
        const allowedAt = DateTime.fromISO(account.lastReconnectAt).plus({ minutes: RECONNECT_INTERVAL_MINUTES });
        const now = DateTime.fromISO(at);
        if (now < allowedAt) {
          const retryAfterSeconds = Math.ceil(allowedAt.diff(now, 'seconds').seconds);
          throw new DomainError(
            'tooManyRequests',
            '[RECONNECT_TOO_FREQUENT]',
            `an account can reconnect once every ${RECONNECT_INTERVAL_MINUTES} minutes; next at ${allowedAt.toUTC().toISO()}`,
            { retryAfterSeconds, nextAllowedAt: allowedAt.toUTC().toISO() },
          );
        }
      }
      return [{ type: 'AccountReconnectRequested', data: { accountId, at } }];
    }
    case 'DeleteAccount': {
      const account = existing(state, projectId, accountId);
      if (account.status === AccountStatus.Deleted) return [];
      return [{ type: 'AccountDeleted', data: { accountId, from: account.status, at } }];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const evolve = (state: Account, event: AccountEvent): Account => {
  switch (event.type) {
    case 'AccountCreated':
      return {
        exists: true,
        id: event.data.accountId,
        projectId: event.data.projectId,
        status: AccountStatus.New,
        settings: event.data.settings,
        created: event.data.at,
        lastReconnectAt: null,
      };
    case 'AccountUpdated':
      return { ...state, settings: state.settings && { ...state.settings, ...event.data.changes } };
    case 'AccountStarted':
      return { ...state, status: AccountStatus.Active };
    case 'AccountStopped':
      return { ...state, status: AccountStatus.Stopped };
    case 'AccountReconnectRequested':
      return { ...state, lastReconnectAt: event.data.at };
    case 'AccountDeleted':
      return { ...state, status: AccountStatus.Deleted };
    default:
      return state;
  }
};

export const accountDecider: Decider<AccountCommand, AccountEvent, Account> = { decide, evolve, initialState };
