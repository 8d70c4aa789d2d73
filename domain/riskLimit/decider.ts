// The risk limit aggregate: one limit of one account, maybe scoped to one of its copiers (copierId, set
// at creation, read-only after). Its settings are checked here (checkRiskLimit); the account's and the
// copier's existence are checked against the read models before the command.
import type { Decider } from '../shared/command.js';
import { illegalState, invalid, notFound } from '../shared/errors.js';
import { sameJson } from '../shared/json.js';
import type { RiskLimitCommand } from './commands.js';
import type { RiskLimitEvent } from './events.js';
import { checkRiskLimit, type RiskLimitSettings } from './settings.js';

export interface RiskLimit {
  readonly exists: boolean;
  readonly deleted: boolean;
  readonly projectId: string;
  readonly accountId: string;
  /** The copier the limit is scoped to; null: the whole account. Set at creation, read-only after. */
  readonly copierId: string | null;
  readonly settings: RiskLimitSettings | null;
}

export const initialState: RiskLimit = { exists: false, deleted: false, projectId: '', accountId: '', copierId: null, settings: null };

const existing = (state: RiskLimit, data: { riskLimitId: string; projectId: string; accountId: string }): RiskLimit & { settings: RiskLimitSettings } => {
  if (!state.exists || state.deleted || state.projectId !== data.projectId || state.accountId !== data.accountId || !state.settings) {
    throw notFound('[RISK_LIMIT_NOT_FOUND]', `risk limit ${data.riskLimitId} not found`);
  }
  return state as RiskLimit & { settings: RiskLimitSettings };
};

const checked = (settings: RiskLimitSettings): RiskLimitSettings => {
  const problem = checkRiskLimit(settings);
  if (problem) throw invalid('[VALIDATION_FAILED]', `${problem.field}: ${problem.message}`, { field: problem.field });
  return settings;
};

export const decide = (command: RiskLimitCommand, state: RiskLimit): RiskLimitEvent[] => {
  const at = command.metadata.now;
  const { riskLimitId, accountId } = command.data;
  switch (command.type) {
    case 'CreateRiskLimit':
      if (state.exists) throw illegalState('[RISK_LIMIT_ALREADY_EXISTS]', `risk limit ${riskLimitId} already exists`);
      return [
        {
          type: 'RiskLimitCreated',
          data: { riskLimitId, projectId: command.data.projectId, accountId, copierId: command.data.copierId, settings: checked(command.data.settings), at },
        },
      ];
    case 'UpdateRiskLimit': {
      const limit = existing(state, command.data);
      const { copierId } = command.data;
      if (copierId !== undefined && copierId !== limit.copierId)
        throw invalid('[VALIDATION_FAILED]', `body.copierId: read-only after creation; this limit's is ${limit.copierId ?? 'null (the whole account)'}`, {
          field: 'body.copierId',
        });
      const settings = checked(command.data.settings);
      if (sameJson(limit.settings, settings)) return [];
      return [{ type: 'RiskLimitUpdated', data: { riskLimitId, accountId, settings, at } }];
    }
    case 'DeleteRiskLimit':
      existing(state, command.data);
      return [{ type: 'RiskLimitDeleted', data: { riskLimitId, accountId, at } }];
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const evolve = (state: RiskLimit, event: RiskLimitEvent): RiskLimit => {
  switch (event.type) {
    case 'RiskLimitCreated':
      return {
        exists: true,
        deleted: false,
        projectId: event.data.projectId,
        accountId: event.data.accountId,
        copierId: event.data.copierId ?? null,
        settings: event.data.settings,
      };
    case 'RiskLimitUpdated':
      return { ...state, settings: event.data.settings };
    case 'RiskLimitDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
};

export const riskLimitDecider: Decider<RiskLimitCommand, RiskLimitEvent, RiskLimit> = { decide, evolve, initialState };
