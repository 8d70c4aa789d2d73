// Events of the copier aggregate (stream `copier-<id>`).
import type { CopierSettings } from './settings.js';

/**
 * A strategy copier (reference CopierDTO fromStrategyId / toStrategyId, set at creation only): it copies
 * only the master trades carrying the key of `fromStrategyId`, or writes the key of `toStrategyId` into
 * its slave trades. Absent (events before strategies): neither. Never both.
 */
export interface CopierStrategies {
  readonly fromStrategyId?: string | null;
  readonly toStrategyId?: string | null;
}

/**
 * A signal follower's copier (app/signals.ts): its id is the FeatureSignalFollowerDTO's, its master the
 * provider's account, of another project maybe (the deliberate exception to copying within a project);
 * it is changed and removed only through the follower feature and the provider's /signals operations.
 */
export interface CopierSignal {
  readonly signalProviderId?: string | null;
}

export type CopierEvent =
  | {
      type: 'CopierCreated';
      data: { copierId: string; projectId: string; fromAccountId: string; toAccountId: string; settings: CopierSettings; at: string } & CopierStrategies &
        CopierSignal;
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
