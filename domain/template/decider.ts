// An account template (spec "Account templates", "Templates"): named revisions of a configuration
// payload and the accounts that follow it. Rules:
// - an update names the revision it was based on (`expectedRevision`); another current revision is a
//   409 [TEMPLATE_REVISION_MISMATCH] and nothing is stored (the spec gives the status, not the code);
// - every update that changes anything is a new revision, one more than the last; one that changes
//   nothing stores nothing and keeps the revision;
// - a template with linked accounts is deleted only with force (409 [TEMPLATE_HAS_LINKED_ACCOUNTS]
//   otherwise); force unlinks them first, each unlink an event of its own;
// - an account is linked at the revision it was made to match, which must be the current one.
import type { Decider } from '../shared/command.js';
import { illegalState, invalid, notFound } from '../shared/errors.js';
import { sameJson } from '../shared/json.js';
import type { TemplateCommand } from './commands.js';
import type { TemplateEvent } from './events.js';
import type { TemplatePayload } from './payload.js';

export const MAX_TEMPLATE_NAME_LENGTH = 100;
export const MAX_TEMPLATE_DESCRIPTION_LENGTH = 2000;

export interface Template {
  readonly exists: boolean;
  readonly deleted: boolean;
  readonly projectId: string;
  readonly revision: number;
  readonly name: string;
  readonly description: string | null;
  readonly sourceAccountId: string | null;
  readonly payload: TemplatePayload | null;
  /** Linked account id -> the revision it was made to match. */
  readonly linked: Readonly<Record<string, number>>;
}

export const initialState: Template = {
  exists: false,
  deleted: false,
  projectId: '',
  revision: 0,
  name: '',
  description: null,
  sourceAccountId: null,
  payload: null,
  linked: {},
};

const checkName = (name: string): string => {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_TEMPLATE_NAME_LENGTH) {
    throw invalid('[VALIDATION_FAILED]', `name: 1 to ${MAX_TEMPLATE_NAME_LENGTH} characters`, { field: 'body.name' });
  }
  return trimmed;
};

const checkDescription = (description: string | null): string | null => {
  if (description !== null && description.length > MAX_TEMPLATE_DESCRIPTION_LENGTH) {
    throw invalid('[VALIDATION_FAILED]', `description: at most ${MAX_TEMPLATE_DESCRIPTION_LENGTH} characters`, { field: 'body.description' });
  }
  return description;
};

const existing = (state: Template, data: { templateId: string; projectId: string }): Template & { payload: TemplatePayload } => {
  if (!state.exists || state.deleted || state.projectId !== data.projectId || !state.payload) {
    throw notFound('[TEMPLATE_NOT_FOUND]', `template ${data.templateId} not found`);
  }
  return state as Template & { payload: TemplatePayload };
};

export const decide = (command: TemplateCommand, state: Template): TemplateEvent[] => {
  const at = command.metadata.now;
  const { templateId, projectId } = command.data;
  switch (command.type) {
    case 'CreateTemplate': {
      if (state.exists) throw illegalState('[TEMPLATE_ALREADY_EXISTS]', `template ${templateId} exists already`);
      const { sourceAccountId, payload } = command.data;
      const name = checkName(command.data.name);
      const description = checkDescription(command.data.description);
      return [{ type: 'TemplateCreated', data: { templateId, projectId, revision: 1, name, description, sourceAccountId, payload, at } }];
    }
    case 'UpdateTemplate': {
      const template = existing(state, command.data);
      const { expectedRevision } = command.data;
      if (expectedRevision !== template.revision) {
        throw illegalState(
          '[TEMPLATE_REVISION_MISMATCH]',
          `expectedRevision ${expectedRevision} is not the template's current revision ${template.revision}: read it again and send your change based on it`,
        );
      }
      const next = {
        name: command.data.name === undefined ? template.name : checkName(command.data.name),
        description: command.data.description === undefined ? template.description : checkDescription(command.data.description),
        sourceAccountId: command.data.sourceAccountId === undefined ? template.sourceAccountId : command.data.sourceAccountId,
        payload: command.data.payload ?? template.payload,
      };
      const current = { name: template.name, description: template.description, sourceAccountId: template.sourceAccountId, payload: template.payload };
      if (sameJson(next, current)) return [];
      return [{ type: 'TemplateUpdated', data: { templateId, projectId, revision: template.revision + 1, ...next, at } }];
    }
    case 'LinkAccount': {
      const template = existing(state, command.data);
      const { accountId, revision } = command.data;
      if (revision !== template.revision) {
        throw illegalState('[TEMPLATE_REVISION_MISMATCH]', `the template changed to revision ${template.revision} while revision ${revision} was applied`);
      }
      return [{ type: 'TemplateApplied', data: { templateId, projectId, accountId, revision, at } }];
    }
    case 'UnlinkAccount': {
      const template = existing(state, command.data);
      const { accountId, reason } = command.data;
      if (template.linked[accountId] === undefined) return [];
      return [{ type: 'TemplateUnlinked', data: { templateId, projectId, accountId, reason, at } }];
    }
    case 'DeleteTemplate': {
      const template = existing(state, command.data);
      const linked = Object.keys(template.linked);
      const gone = new Set(command.data.goneAccountIds);
      const holding = linked.filter((id) => !gone.has(id));
      if (holding.length > 0 && !command.data.force) {
        throw illegalState(
          '[TEMPLATE_HAS_LINKED_ACCOUNTS]',
          `${holding.length} account(s) follow this template; delete with force=true to unlink them too, or clear their applied template first`,
        );
      }
      return [
        ...linked.map((accountId): TemplateEvent => ({ type: 'TemplateUnlinked', data: { templateId, projectId, accountId, reason: 'TEMPLATE_DELETED', at } })),
        { type: 'TemplateDeleted', data: { templateId, projectId, at } },
      ];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const evolve = (state: Template, event: TemplateEvent): Template => {
  switch (event.type) {
    case 'TemplateCreated':
    case 'TemplateUpdated': {
      const { projectId, revision, name, description, sourceAccountId, payload } = event.data;
      return { ...state, exists: true, projectId, revision, name, description, sourceAccountId, payload };
    }
    case 'TemplateApplied':
      return { ...state, linked: { ...state.linked, [event.data.accountId]: event.data.revision } };
    case 'TemplateUnlinked': {
      const { [event.data.accountId]: _gone, ...linked } = state.linked;
      return { ...state, linked };
    }
    case 'TemplateDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
};

export const templateDecider: Decider<TemplateCommand, TemplateEvent, Template> = { decide, evolve, initialState };
