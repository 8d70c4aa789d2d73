// Events of the copier aggregate (stream `copier-<id>`).
import type { CopierSettings } from './settings.js';

export type CopierEvent =
  | {
      type: 'CopierCreated';
      data: { copierId: string; projectId: string; fromAccountId: string; toAccountId: string; settings: CopierSettings; at: string };
    }
  | { type: 'CopierUpdated'; data: { copierId: string; toAccountId: string; changes: Partial<CopierSettings>; at: string } }
  | { type: 'CopierResyncRequested'; data: { copierId: string; toAccountId: string; at: string } }
  | { type: 'CopierSymbolMappingsSet'; data: { copierId: string; toAccountId: string; mappings: Readonly<Record<string, string>>; at: string } }
  | { type: 'CopierDeleted'; data: { copierId: string; toAccountId: string; at: string } };

export type CopierEventType = CopierEvent['type'];

export const copierEventTypes: readonly CopierEventType[] = [
  'CopierCreated',
  'CopierUpdated',
  'CopierResyncRequested',
  'CopierSymbolMappingsSet',
  'CopierDeleted',
];

export const COPIER_STREAM_PREFIX = 'copier-';

export const copierStream = (copierId: string): string => `${COPIER_STREAM_PREFIX}${copierId}`;
