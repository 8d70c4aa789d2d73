// Events of the account aggregate (stream `account-<id>`). Data holds what happened, never derived state.
import type { AccountStatusId } from './enums.js';

export interface Proxy {
  readonly host: string;
  readonly port: number;
  readonly username: string | null;
}

/** The members of an account a client can write (the password is kept only as ciphertext). */
export interface AccountSettings {
  readonly loginServer: string;
  readonly loginAccountNumber: string;
  readonly passwordCiphertext: string;
  readonly alias: string | null;
  readonly accountTypeId: number;
  readonly regionId: number;
  readonly propFirm: boolean;
  readonly tradingDisabled: boolean;
  readonly nativeMode: boolean;
  readonly closeUnmanagedPositions: boolean;
  readonly dedicatedIp: string | null;
  readonly myHomeIp: string | null;
  readonly proxy: Proxy | null;
}

export type AccountEvent =
  | { type: 'AccountCreated'; data: { accountId: string; projectId: string; settings: AccountSettings; at: string } }
  | { type: 'AccountUpdated'; data: { accountId: string; changes: Partial<AccountSettings>; at: string } }
  | { type: 'AccountStarted'; data: { accountId: string; from: AccountStatusId; at: string } }
  | { type: 'AccountStopped'; data: { accountId: string; from: AccountStatusId; at: string } }
  | { type: 'AccountReconnectRequested'; data: { accountId: string; at: string } }
  | { type: 'AccountDeleted'; data: { accountId: string; from: AccountStatusId; at: string } };

export type AccountEventType = AccountEvent['type'];

export const accountEventTypes: readonly AccountEventType[] = [
  'AccountCreated',
  'AccountUpdated',
  'AccountStarted',
  'AccountStopped',
  'AccountReconnectRequested',
  'AccountDeleted',
];

export const accountStream = (accountId: string): string => `account-${accountId}`;
