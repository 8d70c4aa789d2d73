import type { CommandMetadata } from '../shared/command.js';
import type { UnlinkReason } from './events.js';
import type { TemplatePayload } from './payload.js';

interface Target {
  readonly templateId: string;
  readonly projectId: string;
}

export type TemplateCommand =
  | {
      type: 'CreateTemplate';
      data: Target & { name: string; description: string | null; sourceAccountId: string | null; payload: TemplatePayload };
      metadata: CommandMetadata;
    }
  | {
      type: 'UpdateTemplate';
      /** Members left undefined keep the current revision's. */
      data: Target & {
        expectedRevision: number;
        name?: string;
        description?: string | null;
        sourceAccountId?: string | null;
        payload?: TemplatePayload;
      };
      metadata: CommandMetadata;
    }
  /** `revision`: the revision the account was made to match (it must still be the current one). */
  | { type: 'LinkAccount'; data: Target & { accountId: string; revision: number }; metadata: CommandMetadata }
  | { type: 'UnlinkAccount'; data: Target & { accountId: string; reason: UnlinkReason }; metadata: CommandMetadata }
  /** `force`: unlink the linked accounts too. `goneAccountIds`: linked accounts deleted since, which do not hold the template back. */
  | { type: 'DeleteTemplate'; data: Target & { force: boolean; goneAccountIds: readonly string[] }; metadata: CommandMetadata };
