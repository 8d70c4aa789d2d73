// The API key aggregate (spec "Authentication", ApiKeyDTO). Rules:
// - issuing is idempotent for the same hash (the bootstrap key is ensured at every start); issuing a
//   different key under an existing id is a conflict;
// - an expiry must lie in the future when it is set; a key is rejected from its expiresAt on (the
//   service checks that at every request, with `now >= expiresAt`);
// - revocation is final: revoking again changes nothing, every other change is refused;
// - an AI key never becomes an INTEGRATION key (one AI key per project is kept by the API, which
//   revokes the former AI key when another key becomes it: a cross-key rule no single stream can hold);
// - a key of another project is reported exactly like a missing one.
import type { Decider } from '../shared/command.js';
import { illegalState, invalid, notFound } from '../shared/errors.js';
import { type AccessPolicy, samePolicy } from './accessPolicy.js';
import type { ApiKeyCommand } from './commands.js';
import type { ApiKeyEvent, ApiKeyLevel, ApiKeyType } from './events.js';

export interface ApiKey {
  readonly exists: boolean;
  readonly projectId: string;
  readonly accountId: string | null;
  readonly level: ApiKeyLevel;
  readonly keyType: ApiKeyType;
  readonly name: string;
  readonly keyHash: string;
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  readonly accessPolicy: AccessPolicy | null;
}

export const initialState: ApiKey = {
  exists: false,
  projectId: '',
  accountId: null,
  level: 'PROJECT',
  keyType: 'INTEGRATION',
  name: '',
  keyHash: '',
  expiresAt: null,
  revokedAt: null,
  accessPolicy: null,
};

const checkExpiry = (expiresAt: string | null | undefined, now: string): void => {
  if (expiresAt === null || expiresAt === undefined) return;
  if (Date.parse(expiresAt) <= Date.parse(now)) {
    throw invalid('[API_KEY_EXPIRY_NOT_IN_FUTURE]', `expiresAt ${expiresAt} is not after now (${now})`);
  }
};

const existing = (state: ApiKey, projectId: string, apiKeyId: string): ApiKey => {
  if (!state.exists || state.projectId !== projectId) throw notFound('[API_KEY_NOT_FOUND]', `api key ${apiKeyId} not found`);
  return state;
};

const notRevoked = (state: ApiKey, apiKeyId: string): void => {
  if (state.revokedAt) throw illegalState('[API_KEY_REVOKED]', `api key ${apiKeyId} was revoked; a revoked key cannot change`);
};

const sameInstant = (a: string | null, b: string | null): boolean => (a === null || b === null ? a === b : Date.parse(a) === Date.parse(b));

export const decide = (command: ApiKeyCommand, state: ApiKey): ApiKeyEvent[] => {
  const at = command.metadata.now;
  const { apiKeyId } = command.data;
  switch (command.type) {
    case 'IssueApiKey': {
      if (state.exists) {
        if (state.keyHash === command.data.keyHash) return [];
        throw illegalState('[API_KEY_ALREADY_EXISTS]', `api key ${apiKeyId} already exists`);
      }
      checkExpiry(command.data.expiresAt, at);
      const { accessPolicy, ...data } = command.data;
      const issued: ApiKeyEvent = { type: 'ApiKeyIssued', data: { ...data, at } };
      return accessPolicy ? [issued, { type: 'ApiKeyAccessPolicySet', data: { apiKeyId, accessPolicy, at } }] : [issued];
    }
    case 'ChangeApiKey': {
      const key = existing(state, command.data.projectId, apiKeyId);
      notRevoked(key, apiKeyId);
      const { name, expiresAt, keyType } = command.data;
      if (keyType === 'INTEGRATION' && key.keyType === 'AI') {
        throw illegalState('[AI_KEY_CANNOT_BECOME_INTEGRATION]', 'an AI key cannot become an INTEGRATION key; issue a new key instead');
      }
      if (expiresAt !== undefined && !sameInstant(expiresAt, key.expiresAt)) checkExpiry(expiresAt, at);
      const events: ApiKeyEvent[] = [];
      if (name !== undefined && name !== key.name) events.push({ type: 'ApiKeyRenamed', data: { apiKeyId, name, at } });
      if (expiresAt !== undefined && !sameInstant(expiresAt, key.expiresAt)) {
        events.push({ type: 'ApiKeyExpiryChanged', data: { apiKeyId, expiresAt, at } });
      }
      if (keyType !== undefined && keyType !== key.keyType) {
        events.push({ type: 'ApiKeyTypeChanged', data: { apiKeyId, from: key.keyType, to: keyType, at } });
      }
      return events;
    }
    case 'RotateApiKey': {
      const key = existing(state, command.data.projectId, apiKeyId);
      notRevoked(key, apiKeyId);
      if (key.keyHash === command.data.keyHash) return [];
      return [{ type: 'ApiKeyRotated', data: { apiKeyId, keyHash: command.data.keyHash, keyPrefix: command.data.keyPrefix, at } }];
    }
    case 'RevokeApiKey': {
      const key = existing(state, command.data.projectId, apiKeyId);
      if (key.revokedAt) return [];
      return [{ type: 'ApiKeyRevoked', data: { apiKeyId, reason: command.data.reason, replacedBy: command.data.replacedBy ?? null, at } }];
    }
    case 'SetApiKeyAccessPolicy': {
      const key = existing(state, command.data.projectId, apiKeyId);
      notRevoked(key, apiKeyId);
      if (key.accessPolicy && samePolicy(key.accessPolicy, command.data.accessPolicy)) return [];
      return [{ type: 'ApiKeyAccessPolicySet', data: { apiKeyId, accessPolicy: command.data.accessPolicy, at } }];
    }
    case 'RemoveApiKeyAccessPolicy': {
      const key = existing(state, command.data.projectId, apiKeyId);
      notRevoked(key, apiKeyId);
      return key.accessPolicy ? [{ type: 'ApiKeyAccessPolicyRemoved', data: { apiKeyId, at } }] : [];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const evolve = (state: ApiKey, event: ApiKeyEvent): ApiKey => {
  switch (event.type) {
    case 'ApiKeyIssued': {
      const d = event.data;
      return {
        ...initialState,
        exists: true,
        projectId: d.projectId,
        accountId: d.accountId,
        level: d.level,
        keyType: d.keyType,
        name: d.name,
        keyHash: d.keyHash,
        expiresAt: d.expiresAt,
      };
    }
    case 'ApiKeyRenamed':
      return { ...state, name: event.data.name };
    case 'ApiKeyExpiryChanged':
      return { ...state, expiresAt: event.data.expiresAt };
    case 'ApiKeyTypeChanged':
      return { ...state, keyType: event.data.to };
    case 'ApiKeyRotated':
      return { ...state, keyHash: event.data.keyHash };
    case 'ApiKeyRevoked':
      return { ...state, revokedAt: event.data.at };
    case 'ApiKeyAccessPolicySet':
      return { ...state, accessPolicy: event.data.accessPolicy };
    case 'ApiKeyAccessPolicyRemoved':
      return { ...state, accessPolicy: null };
    default:
      return state;
  }
};

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyEvent, ApiKey> = { decide, evolve, initialState };
