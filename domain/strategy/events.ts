// Events of the strategy aggregate (stream `strategy-<id>`, reference StrategyDTO under
// /projects/{projectId}/strategies). A strategy groups trades by a key: the key is written into the
// magic number of the trades copied into it, and copiers from it copy only the trades carrying it.
import type { StrategySettings } from './settings.js';

export type StrategyEvent =
  | { type: 'StrategyCreated'; data: { strategyId: string; projectId: string; settings: StrategySettings; at: string } }
  | { type: 'StrategyUpdated'; data: { strategyId: string; projectId: string; changes: Partial<StrategySettings>; at: string } }
  | { type: 'StrategyDeleted'; data: { strategyId: string; projectId: string; at: string } };

export type StrategyEventType = StrategyEvent['type'];

export const strategyEventTypes: readonly StrategyEventType[] = ['StrategyCreated', 'StrategyUpdated', 'StrategyDeleted'];

export const STRATEGY_STREAM_PREFIX = 'strategy-';
export const strategyStream = (strategyId: string): string => `${STRATEGY_STREAM_PREFIX}${strategyId}`;
