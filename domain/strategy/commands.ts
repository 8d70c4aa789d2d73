import type { CommandMetadata } from '../shared/command.js';
import type { StrategySettings } from './settings.js';

interface Target {
  readonly strategyId: string;
  readonly projectId: string;
}

export type StrategyCommand =
  | { type: 'CreateStrategy'; data: Target & { settings: StrategySettings }; metadata: CommandMetadata }
  | { type: 'UpdateStrategy'; data: Target & { settings: StrategySettings }; metadata: CommandMetadata }
  | { type: 'DeleteStrategy'; data: Target; metadata: CommandMetadata };
