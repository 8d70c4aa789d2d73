// The symbol mappings of one project (reference SymbolMappingDTO): create, replace, delete. The
// aggregate numbers its mappings itself (the next id is one more than the last ever given, so an id is
// never reused), checks each rule (rule.ts) and refuses a second mapping with the same symbol and
// broker patterns: it would only shadow or repeat the first.
import type { Decider } from '../shared/command.js';
import { illegalState, invalid, notFound } from '../shared/errors.js';
import { sameJson } from '../shared/json.js';
import type { SymbolMappingCommand } from './commands.js';
import type { SymbolMappingEvent } from './events.js';
import { checkSymbolMappingRule, MAX_SYMBOL_MAPPINGS_PER_PROJECT, type SymbolMappingRule } from './rule.js';

export interface SymbolMappings {
  readonly lastId: number;
  readonly mappings: Readonly<Record<number, SymbolMappingRule>>;
}

export const initialState: SymbolMappings = { lastId: 0, mappings: {} };

const checked = (rule: SymbolMappingRule): SymbolMappingRule => {
  const problem = checkSymbolMappingRule(rule);
  if (problem) throw invalid('[VALIDATION_FAILED]', `${problem.field}: ${problem.message}`, { field: problem.field });
  return rule;
};

const notFoundError = (id: number) => notFound('[SYMBOL_MAPPING_NOT_FOUND]', `symbol mapping ${id} not found`);

/** Same symbol (without case) and the same broker patterns: another mapping for the same trades. */
const sameTarget = (a: SymbolMappingRule, b: SymbolMappingRule): boolean =>
  a.from.toLowerCase() === b.from.toLowerCase() && a.brokerFrom === b.brokerFrom && a.brokerTo === b.brokerTo && a.to.toLowerCase() === b.to.toLowerCase();

const refuseDuplicate = (state: SymbolMappings, rule: SymbolMappingRule, except: number | null): void => {
  const twin = Object.entries(state.mappings).find(([id, m]) => Number(id) !== except && sameTarget(m, rule));
  if (twin) {
    throw illegalState(
      '[SYMBOL_MAPPING_ALREADY_EXISTS]',
      `symbol mapping ${twin[0]} already maps ${rule.from} to ${rule.to} for these brokers; change its priority with PUT instead`,
    );
  }
};

export const decide = (command: SymbolMappingCommand, state: SymbolMappings): SymbolMappingEvent[] => {
  const at = command.metadata.now;
  const { projectId } = command.data;
  switch (command.type) {
    case 'CreateSymbolMapping': {
      const mapping = checked(command.data.mapping);
      if (Object.keys(state.mappings).length >= MAX_SYMBOL_MAPPINGS_PER_PROJECT) {
        throw illegalState('[SYMBOL_MAPPING_LIMIT_REACHED]', `a project holds at most ${MAX_SYMBOL_MAPPINGS_PER_PROJECT} symbol mappings`);
      }
      refuseDuplicate(state, mapping, null);
      return [{ type: 'SymbolMappingCreated', data: { projectId, symbolMappingId: state.lastId + 1, mapping, at } }];
    }
    case 'UpdateSymbolMapping': {
      const { symbolMappingId } = command.data;
      const current = state.mappings[symbolMappingId];
      if (!current) throw notFoundError(symbolMappingId);
      const mapping = checked(command.data.mapping);
      refuseDuplicate(state, mapping, symbolMappingId);
      if (sameJson(current, mapping)) return [];
      return [{ type: 'SymbolMappingUpdated', data: { projectId, symbolMappingId, mapping, at } }];
    }
    case 'DeleteSymbolMapping': {
      const { symbolMappingId } = command.data;
      if (!state.mappings[symbolMappingId]) throw notFoundError(symbolMappingId);
      return [{ type: 'SymbolMappingDeleted', data: { projectId, symbolMappingId, at } }];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const evolve = (state: SymbolMappings, event: SymbolMappingEvent): SymbolMappings => {
  switch (event.type) {
    case 'SymbolMappingCreated':
      return {
        lastId: Math.max(state.lastId, event.data.symbolMappingId),
        mappings: { ...state.mappings, [event.data.symbolMappingId]: event.data.mapping },
      };
    case 'SymbolMappingUpdated':
      return { ...state, mappings: { ...state.mappings, [event.data.symbolMappingId]: event.data.mapping } };
    case 'SymbolMappingDeleted': {
      const { [event.data.symbolMappingId]: _removed, ...rest } = state.mappings;
      return { ...state, mappings: rest };
    }
    default:
      return state;
  }
};

export const symbolMappingDecider: Decider<SymbolMappingCommand, SymbolMappingEvent, SymbolMappings> = { decide, evolve, initialState };
