// The project aggregate: the tenant every account and key belongs to, with its name, billing address and
// currency (reference ProjectDTO). Creating an existing project is a no-op, so the default project can
// be ensured at every start (the operator's CLI creates others: scripts/project.ts). Deleting is final:
// a deleted project refuses every change with 404 [PROJECT_DELETED], and deleting it again is a no-op,
// so a deletion interrupted half-way can be run again to finish (app/commands/projects.ts).
import { currencyTypes } from '../account/enums.js';
import type { Decider } from '../shared/command.js';
import { invalid, notFound } from '../shared/errors.js';
import { sameJson } from '../shared/json.js';
import type { ProjectCommand } from './commands.js';
import type { ProjectEvent } from './events.js';
import { checkProjectSettings, defaultProjectSettings, MAX_TEXT_LENGTH, type ProjectSettings } from './settings.js';

export interface Project {
  readonly exists: boolean;
  readonly name: string;
  readonly owner: string | null;
  readonly dedicated: boolean;
  readonly settings: ProjectSettings;
  /** When it was deleted; null while it is not. */
  readonly deletedAt: string | null;
}

export const initialState: Project = { exists: false, name: '', owner: null, dedicated: false, settings: defaultProjectSettings(''), deletedAt: null };

/** The error every change of a deleted project gets. */
export const projectDeleted = (projectId: string, at: string) => notFound('[PROJECT_DELETED]', `project ${projectId} was deleted at ${at}`);

export const decide = (command: ProjectCommand, state: Project): ProjectEvent[] => {
  switch (command.type) {
    case 'CreateProject': {
      if (state.exists) return [];
      const name = command.data.name.trim();
      if (name === '' || name.length > MAX_TEXT_LENGTH) {
        throw invalid('[VALIDATION_FAILED]', `name: 1 to ${MAX_TEXT_LENGTH} characters, not blank`, { field: 'name' });
      }
      return [{ type: 'ProjectCreated', data: { ...command.data, name, at: command.metadata.now } }];
    }
    case 'DeleteProject': {
      const { projectId } = command.data;
      if (!state.exists) throw notFound('[PROJECT_NOT_FOUND]', `project ${projectId} not found`);
      if (state.deletedAt) return [];
      return [{ type: 'ProjectDeleted', data: { projectId, at: command.metadata.now } }];
    }
    case 'UpdateProject': {
      const { projectId, settings, dedicated } = command.data;
      if (!state.exists) throw notFound('[PROJECT_NOT_FOUND]', `project ${projectId} not found`);
      if (state.deletedAt) throw projectDeleted(projectId, state.deletedAt);
      if (dedicated !== state.dedicated) {
        throw invalid('[VALIDATION_FAILED]', `dedicated: set when a project is created, read-only after that (this project: ${state.dedicated})`, {
          field: 'dedicated',
        });
      }
      const problem = checkProjectSettings(settings, (id) => currencyTypes.some((c) => c.id === id));
      if (problem) throw invalid('[VALIDATION_FAILED]', `${problem.field}: ${problem.message}`, { field: problem.field });
      if (sameJson(settings, state.settings)) return [];
      return [{ type: 'ProjectUpdated', data: { projectId, settings, at: command.metadata.now } }];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const evolve = (state: Project, event: ProjectEvent): Project => {
  switch (event.type) {
    case 'ProjectCreated':
      return {
        exists: true,
        name: event.data.name,
        owner: event.data.owner,
        dedicated: event.data.dedicated ?? false,
        settings: defaultProjectSettings(event.data.name),
        deletedAt: null,
      };
    case 'ProjectUpdated':
      return { ...state, name: event.data.settings.name, settings: event.data.settings };
    case 'ProjectDeleted':
      return { ...state, deletedAt: event.data.at };
    default:
      return state;
  }
};

export const projectDecider: Decider<ProjectCommand, ProjectEvent, Project> = { decide, evolve, initialState };

/** The project every installation starts with; its id is fixed so every start finds the same one. */
export const DEFAULT_PROJECT_ID = '00000000-0000-4000-8000-000000000001';
export const DEFAULT_PROJECT_NAME = 'Default project';
