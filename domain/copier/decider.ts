// The copier aggregate: a link from a master account to the slave account it belongs to. Whether the
// two accounts exist, and whether the link would close a cycle, is checked against the read models
// before the command (they span several aggregates); the decider keeps the copier's own rules.
import type { Decider } from '../shared/command.js';
import { illegalState, invalid, notFound } from '../shared/errors.js';
import { sameJson } from '../shared/json.js';
import type { CopierCommand } from './commands.js';
import type { CopierEvent } from './events.js';
import type { CopierSettings } from './settings.js';

export interface Copier {
  readonly exists: boolean;
  readonly deleted: boolean;
  readonly projectId: string;
  readonly fromAccountId: string;
  readonly toAccountId: string;
  readonly settings: CopierSettings | null;
  readonly symbolMappings: Readonly<Record<string, string>>;
  readonly fromStrategyId: string | null;
  readonly toStrategyId: string | null;
}

export const initialState: Copier = {
  exists: false,
  deleted: false,
  projectId: '',
  fromAccountId: '',
  toAccountId: '',
  settings: null,
  symbolMappings: {},
  fromStrategyId: null,
  toStrategyId: null,
};

/** Symbol names are what brokers call them: non-blank, at most 64 characters, one mapping per master symbol. */
const checkMappings = (mappings: Readonly<Record<string, string>>): void => {
  const seen = new Set<string>();
  for (const [master, slave] of Object.entries(mappings)) {
    for (const name of [master, slave]) {
      if (name.trim() === '' || name.length > 64) {
        throw invalid('[VALIDATION_FAILED]', `symbol names must be 1 to 64 characters, got "${name}"`, { field: 'body' });
      }
    }
    const key = master.toLowerCase();
    if (seen.has(key)) throw invalid('[VALIDATION_FAILED]', `master symbol ${master} is mapped twice`, { field: 'body' });
    seen.add(key);
  }
};

/** Rules between members, beyond what the request schema checks. */
export const checkSettings = (s: CopierSettings): void => {
  if (s.scaleType === 'FIXED_LOT' && !(s.fixedLotSize > 0)) {
    throw invalid('[VALIDATION_FAILED]', 'scaleType 3 (Fixed lot size) needs fixedLotSize above 0', { field: 'body.fixedLotSize' });
  }
};

const existing = (state: Copier, data: { copierId: string; projectId: string; toAccountId: string }): Copier & { settings: CopierSettings } => {
  if (!state.exists || state.deleted || state.projectId !== data.projectId || state.toAccountId !== data.toAccountId || !state.settings) {
    throw notFound('[COPIER_NOT_FOUND]', `copier ${data.copierId} not found`);
  }
  return state as Copier & { settings: CopierSettings };
};

const changed = (current: CopierSettings, changes: Partial<CopierSettings>): Partial<CopierSettings> => {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes)) {
    if (value !== undefined && !sameJson(current[key as keyof CopierSettings], value)) out[key] = value;
  }
  return out as Partial<CopierSettings>;
};

export const decide = (command: CopierCommand, state: Copier): CopierEvent[] => {
  const at = command.metadata.now;
  const { copierId, toAccountId } = command.data;
  switch (command.type) {
    case 'CreateCopier': {
      if (state.exists) throw illegalState('[COPIER_ALREADY_EXISTS]', `copier ${copierId} already exists`);
      const { projectId, fromAccountId, settings } = command.data;
      if (fromAccountId === toAccountId) {
        throw invalid('[COPIER_SELF_REFERENCE]', 'a copier cannot copy an account to itself');
      }
      const fromStrategyId = command.data.fromStrategyId ?? null;
      const toStrategyId = command.data.toStrategyId ?? null;
      if (fromStrategyId !== null && toStrategyId !== null) {
        throw invalid('[VALIDATION_FAILED]', 'a copier copies from a strategy or into one, not both: copying from one strategy to another is not allowed', {
          field: 'body.toStrategyId',
        });
      }
      checkSettings(settings);
      const strategies = { ...(fromStrategyId === null ? {} : { fromStrategyId }), ...(toStrategyId === null ? {} : { toStrategyId }) };
      const signal = command.data.signalProviderId ? { signalProviderId: command.data.signalProviderId } : {};
      return [{ type: 'CopierCreated', data: { copierId, projectId, fromAccountId, toAccountId, settings, at, ...strategies, ...signal } }];
    }
    case 'UpdateCopier': {
      const copier = existing(state, command.data);
      checkSettings({ ...copier.settings, ...command.data.changes });
      const changes = changed(copier.settings, command.data.changes);
      return Object.keys(changes).length ? [{ type: 'CopierUpdated', data: { copierId, toAccountId, changes, at } }] : [];
    }
    case 'ResyncCopier':
      existing(state, command.data);
      return [{ type: 'CopierResyncRequested', data: { copierId, toAccountId, at } }];
    case 'SetSymbolMappings': {
      const copier = existing(state, command.data);
      checkMappings(command.data.mappings);
      if (sameJson(copier.symbolMappings, command.data.mappings)) return [];
      return [{ type: 'CopierSymbolMappingsSet', data: { copierId, toAccountId, mappings: command.data.mappings, at } }];
    }
    case 'DeleteCopier':
      existing(state, command.data);
      return [{ type: 'CopierDeleted', data: { copierId, toAccountId, at } }];
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const evolve = (state: Copier, event: CopierEvent): Copier => {
  switch (event.type) {
    case 'CopierCreated':
      return {
        exists: true,
        deleted: false,
        projectId: event.data.projectId,
        fromAccountId: event.data.fromAccountId,
        toAccountId: event.data.toAccountId,
        settings: event.data.settings,
        symbolMappings: {},
        fromStrategyId: event.data.fromStrategyId ?? null,
        toStrategyId: event.data.toStrategyId ?? null,
      };
    case 'CopierSymbolMappingsSet':
      return { ...state, symbolMappings: event.data.mappings };
    case 'CopierUpdated':
      return { ...state, settings: state.settings && { ...state.settings, ...event.data.changes } };
    case 'CopierDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
};

export const copierDecider: Decider<CopierCommand, CopierEvent, Copier> = { decide, evolve, initialState };
