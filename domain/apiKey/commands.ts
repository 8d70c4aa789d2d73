import type { CommandMetadata } from '../shared/command.js';
import type { AccessPolicy } from './accessPolicy.js';
import type { ApiKeyEvent, ApiKeyType, RevocationReason } from './events.js';

export type ApiKeyCommand =
  | {
      type: 'IssueApiKey';
      data: Omit<Extract<ApiKeyEvent, { type: 'ApiKeyIssued' }>['data'], 'at'> & { accessPolicy?: AccessPolicy | null };
      metadata: CommandMetadata;
    }
  | {
      /** Members present change; `expiresAt: null` removes the expiry. */
      type: 'ChangeApiKey';
      data: { apiKeyId: string; projectId: string; name?: string; expiresAt?: string | null; keyType?: ApiKeyType };
      metadata: CommandMetadata;
    }
  | { type: 'RotateApiKey'; data: { apiKeyId: string; projectId: string; keyHash: string; keyPrefix: string }; metadata: CommandMetadata }
  | {
      type: 'RevokeApiKey';
      data: { apiKeyId: string; projectId: string; reason: RevocationReason; replacedBy?: string | null };
      metadata: CommandMetadata;
    }
  | { type: 'SetApiKeyAccessPolicy'; data: { apiKeyId: string; projectId: string; accessPolicy: AccessPolicy }; metadata: CommandMetadata }
  | { type: 'RemoveApiKeyAccessPolicy'; data: { apiKeyId: string; projectId: string }; metadata: CommandMetadata };
