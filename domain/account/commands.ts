import type { CommandMetadata } from '../shared/command.js';
import type { AccountSettings } from './events.js';

export type AccountCommand =
  | { type: 'CreateAccount'; data: { accountId: string; projectId: string; settings: AccountSettings }; metadata: CommandMetadata }
  | { type: 'UpdateAccount'; data: { accountId: string; projectId: string; changes: Partial<AccountSettings> }; metadata: CommandMetadata }
  | { type: 'StartAccount'; data: { accountId: string; projectId: string }; metadata: CommandMetadata }
  | { type: 'StopAccount'; data: { accountId: string; projectId: string }; metadata: CommandMetadata }
  | { type: 'ReconnectAccount'; data: { accountId: string; projectId: string }; metadata: CommandMetadata }
  | { type: 'DeleteAccount'; data: { accountId: string; projectId: string }; metadata: CommandMetadata };
