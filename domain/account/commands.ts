import type { CommandMetadata } from '../shared/command.js';
import type { AccountSettings, MyHomeIp } from './events.js';

/**
 * The changes an UpdateAccount asks for. A home proxy whose passwordCiphertext is null keeps the
 * stored password (a client sends it back masked or empty).
 */
export type AccountChanges = Omit<Partial<AccountSettings>, 'myHomeIp'> & {
  readonly myHomeIp?: (Omit<MyHomeIp, 'passwordCiphertext'> & { readonly passwordCiphertext: string | null }) | null;
};

export type AccountCommand =
  | { type: 'CreateAccount'; data: { accountId: string; projectId: string; settings: AccountSettings }; metadata: CommandMetadata }
  | { type: 'UpdateAccount'; data: { accountId: string; projectId: string; changes: AccountChanges }; metadata: CommandMetadata }
  | { type: 'StartAccount'; data: { accountId: string; projectId: string }; metadata: CommandMetadata }
  | { type: 'StopAccount'; data: { accountId: string; projectId: string }; metadata: CommandMetadata }
  | { type: 'ReconnectAccount'; data: { accountId: string; projectId: string }; metadata: CommandMetadata }
  | { type: 'DeleteAccount'; data: { accountId: string; projectId: string }; metadata: CommandMetadata };
