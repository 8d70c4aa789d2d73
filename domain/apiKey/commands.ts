import type { CommandMetadata } from '../shared/command.js';
import type { ApiKeyEvent } from './events.js';

export type ApiKeyCommand = {
  type: 'IssueApiKey';
  data: Omit<ApiKeyEvent['data'], 'at'>;
  metadata: CommandMetadata;
};
