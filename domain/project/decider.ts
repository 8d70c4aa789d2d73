// The project aggregate: the tenant every account and key belongs to, with its name, billing address and
// currency (reference ProjectDTO). Creating an existing project is a no-op, so the default project can
// be ensured at every start; issue 17 adds creation and deletion through the API.
import { currencyTypes } from '../account/enums.js';
import type { Decider } from '../shared/command.js';
import { invalid, notFound } from '../shared/errors.js';
import { sameJson } from '../shared/json.js';
import type { ProjectCommand } from './commands.js';
import type { ProjectEvent } from './events.js';
import { checkProjectSettings, defaultProjectSettings, type ProjectSettings } from './settings.js';

export interface Project {
  readonly exists: boolean;
  readonly name: string;
  readonly owner: string | null;
  readonly dedicated: boolean;
  readonly settings: ProjectSettings;
}

export const initialState: Project = { exists: false, name: '', owner: null, dedicated: false, settings: defaultProjectSettings('') };

export const decide = (command: ProjectCommand, state: Project): ProjectEvent[] => {
  switch (command.type) {
    case 'CreateProject':
      if (state.exists) return [];
      return [{ type: 'ProjectCreated', data: { ...command.data, at: command.metadata.now } }];
    case 'UpdateProject': {
      const { projectId, settings, dedicated } = command.data;
      if (!state.exists) throw notFound('[PROJECT_NOT_FOUND]', `project ${projectId} not found`);
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
      };
    case 'ProjectUpdated':
      return { ...state, name: event.data.settings.name, settings: event.data.settings };
    default:
      return state;
  }
};

export const projectDecider: Decider<ProjectCommand, ProjectEvent, Project> = { decide, evolve, initialState };

/** The project every installation starts with; its id is fixed so every start finds the same one. */
export const DEFAULT_PROJECT_ID = '00000000-0000-4000-8000-000000000001';
export const DEFAULT_PROJECT_NAME = 'Default project';
