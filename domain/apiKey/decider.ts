// The API key aggregate. Issuing is idempotent for the same hash (the bootstrap key is ensured at every
// start); issuing a different key under an existing id is a conflict.
import type { Decider } from '../shared/command.js';
import { illegalState } from '../shared/errors.js';
import type { ApiKeyCommand } from './commands.js';
import type { ApiKeyEvent } from './events.js';

export interface ApiKey {
  readonly exists: boolean;
  readonly keyHash: string;
}

export const initialState: ApiKey = { exists: false, keyHash: '' };

export const decide = (command: ApiKeyCommand, state: ApiKey): ApiKeyEvent[] => {
  switch (command.type) {
    case 'IssueApiKey':
      if (state.exists) {
        if (state.keyHash === command.data.keyHash) return [];
        throw illegalState('[API_KEY_ALREADY_EXISTS]', `api key ${command.data.apiKeyId} already exists`);
      }
      return [{ type: 'ApiKeyIssued', data: { ...command.data, at: command.metadata.now } }];
    default: {
      const unhandled: never = command.type;
      throw new Error(`unhandled command ${String(unhandled)}`);
    }
  }
};

export const evolve = (state: ApiKey, event: ApiKeyEvent): ApiKey =>
  event.type === 'ApiKeyIssued' ? { exists: true, keyHash: event.data.keyHash } : state;

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyEvent, ApiKey> = { decide, evolve, initialState };
