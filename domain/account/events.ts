// Events of the account aggregate (stream `account-<id>`). Data holds what happened, never derived state.
import type { AccountStatusId } from './enums.js';

export interface Proxy {
  readonly host: string;
  readonly port: number;
  readonly username: string | null;
}

export interface DedicatedIp {
  readonly dedicatedProxyServerId: number;
}

export interface MyHomeIp {
  readonly host: string;
  readonly httpPort: number | null;
  readonly socksPort: number | null;
  readonly username: string;
  readonly passwordCiphertext: string;
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
  /** Wire: FeatureDedicatedIpDTO; the id of a dedicated proxy server. */
  readonly dedicatedIp: DedicatedIp | null;
  /** Wire: FeatureMyHomeIpDTO; the password only as ciphertext. */
  readonly myHomeIp: MyHomeIp | null;
  readonly proxy: Proxy | null;
  /** Free labels, in the order given, without duplicates. */
  readonly labels: readonly string[];
  readonly skipCredentialCheck: boolean;
  readonly ctraderClientId: string | null;
  readonly ctraderClientSecretCiphertext: string | null;
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
