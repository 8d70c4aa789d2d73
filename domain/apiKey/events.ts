// Events of the API key aggregate (stream `apiKey-<id>`). The key value itself is never stored: only
// its SHA-256 hash and a short prefix that helps a person recognise it.
export type ApiKeyLevel = 'PROJECT' | 'ACCOUNT';
export type ApiKeyType = 'INTEGRATION' | 'AI';

export type ApiKeyEvent = {
  type: 'ApiKeyIssued';
  data: {
    apiKeyId: string;
    projectId: string;
    accountId: string | null;
    level: ApiKeyLevel;
    keyType: ApiKeyType;
    name: string;
    keyHash: string;
    keyPrefix: string;
    expiresAt: string | null;
    at: string;
  };
};

export const apiKeyEventTypes: readonly ApiKeyEvent['type'][] = ['ApiKeyIssued'];
export const apiKeyStream = (apiKeyId: string): string => `apiKey-${apiKeyId}`;
