// Events of the API key aggregate (stream `apiKey-<id>`). The key value itself is never stored: only
// its SHA-256 hash and, for a value the service generated, a short prefix that helps a person recognise
// it (a value the operator chose, BOOTSTRAP_API_KEY, may be a guessable word: none of it is kept). Every change to a key is one of
// these events; only lastUsedAt, usage telemetry rather than a change, lives outside the stream.
import type { AccessPolicy } from './accessPolicy.js';
import type { ApiKeyLevel, ApiKeyType } from './kinds.js';

export type { ApiKeyLevel, ApiKeyType } from './kinds.js';
/**
 * Why a key was revoked: by a request, because another key of the project became the AI key, because
 * the service started with another BOOTSTRAP_API_KEY, because its project was deleted, or because the
 * white-label customer owning its project was blocked.
 */
export type RevocationReason = 'REVOKED' | 'REPLACED_BY_NEW_AI_KEY' | 'REPLACED_BY_NEW_BOOTSTRAP_KEY' | 'PROJECT_DELETED' | 'CUSTOMER_BLOCKED';

export type ApiKeyEvent =
  | {
      type: 'ApiKeyIssued';
      data: {
        apiKeyId: string;
        projectId: string;
        accountId: string | null;
        level: ApiKeyLevel;
        keyType: ApiKeyType;
        name: string;
        keyHash: string;
        /** null: the operator chose the value (BOOTSTRAP_API_KEY). */
        keyPrefix: string | null;
        expiresAt: string | null;
        at: string;
      };
    }
  | { type: 'ApiKeyRenamed'; data: { apiKeyId: string; name: string; at: string } }
  | { type: 'ApiKeyExpiryChanged'; data: { apiKeyId: string; expiresAt: string | null; at: string } }
  | { type: 'ApiKeyTypeChanged'; data: { apiKeyId: string; from: ApiKeyType; to: ApiKeyType; at: string } }
  | { type: 'ApiKeyRotated'; data: { apiKeyId: string; keyHash: string; keyPrefix: string; at: string } }
  | { type: 'ApiKeyRevoked'; data: { apiKeyId: string; reason: RevocationReason; replacedBy: string | null; at: string } }
  | { type: 'ApiKeyAccessPolicySet'; data: { apiKeyId: string; accessPolicy: AccessPolicy; at: string } }
  | { type: 'ApiKeyAccessPolicyRemoved'; data: { apiKeyId: string; at: string } };

export type ApiKeyEventType = ApiKeyEvent['type'];

export const apiKeyEventTypes: readonly ApiKeyEventType[] = [
  'ApiKeyIssued',
  'ApiKeyRenamed',
  'ApiKeyExpiryChanged',
  'ApiKeyTypeChanged',
  'ApiKeyRotated',
  'ApiKeyRevoked',
  'ApiKeyAccessPolicySet',
  'ApiKeyAccessPolicyRemoved',
];
export const apiKeyStream = (apiKeyId: string): string => `apiKey-${apiKeyId}`;
