// The strategy aggregate: its own rules (a name, a positive key). Whether the key is free in the
// project and whether copiers still use the strategy is checked against the read models before the
// command (app/strategies.ts), one step per project.
import type { Decider } from '../shared/command.js';
import { illegalState, invalid, notFound } from '../shared/errors.js';
import type { StrategyCommand } from './commands.js';
import type { StrategyEvent } from './events.js';
import { MAX_STRATEGY_KEY, MAX_STRATEGY_NAME_LENGTH, type StrategySettings } from './settings.js';

export interface Strategy {
  readonly exists: boolean;
  readonly deleted: boolean;
  readonly projectId: string;
  readonly settings: StrategySettings | null;
}

export const initialState: Strategy = { exists: false, deleted: false, projectId: '', settings: null };

/** The rules of a strategy's members, beyond what the request schema checks. */
export const checkStrategySettings = (s: StrategySettings): void => {
  if (s.name.length > MAX_STRATEGY_NAME_LENGTH) {
    throw invalid('[VALIDATION_FAILED]', `name: at most ${MAX_STRATEGY_NAME_LENGTH} characters`, { field: 'body.name' });
  }
  if (!Number.isInteger(s.key) || s.key < 1 || s.key > MAX_STRATEGY_KEY) {
    throw invalid('[VALIDATION_FAILED]', `key: a positive whole number up to ${MAX_STRATEGY_KEY} (it becomes the trades' magic number)`, { field: 'body.key' });
  }
};

const existing = (state: Strategy, data: { strategyId: string; projectId: string }): Strategy & { settings: StrategySettings } => {
  if (!state.exists || state.deleted || state.projectId !== data.projectId || !state.settings) {
    throw notFound('[STRATEGY_NOT_FOUND]', `strategy ${data.strategyId} not found`);
  }
  return state as Strategy & { settings: StrategySettings };
};

export const decide = (command: StrategyCommand, state: Strategy): StrategyEvent[] => {
  const at = command.metadata.now;
  const { strategyId, projectId } = command.data;
  switch (command.type) {
    case 'CreateStrategy': {
      if (state.exists) throw illegalState('[STRATEGY_ALREADY_EXISTS]', `strategy ${strategyId} already exists`);
      checkStrategySettings(command.data.settings);
      return [{ type: 'StrategyCreated', data: { strategyId, projectId, settings: command.data.settings, at } }];
    }
    case 'UpdateStrategy': {
      const current = existing(state, command.data);
      checkStrategySettings(command.data.settings);
      const changes: Partial<Record<keyof StrategySettings, unknown>> = {};
      for (const key of Object.keys(command.data.settings) as (keyof StrategySettings)[]) {
        if (command.data.settings[key] !== current.settings[key]) changes[key] = command.data.settings[key];
      }
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'StrategyUpdated', data: { strategyId, projectId, changes: changes as Partial<StrategySettings>, at } }];
    }
    case 'DeleteStrategy':
      existing(state, command.data);
      return [{ type: 'StrategyDeleted', data: { strategyId, projectId, at } }];
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const evolve = (state: Strategy, event: StrategyEvent): Strategy => {
  switch (event.type) {
    case 'StrategyCreated':
      return { exists: true, deleted: false, projectId: event.data.projectId, settings: event.data.settings };
    case 'StrategyUpdated':
      return { ...state, settings: state.settings && { ...state.settings, ...event.data.changes } };
    case 'StrategyDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
};

export const strategyDecider: Decider<StrategyCommand, StrategyEvent, Strategy> = { decide, evolve, initialState };
