// The project aggregate: the tenant every account and key belongs to. Creating an existing project is a
// no-op, so the default project can be ensured at every start.
import type { Decider } from '../shared/command.js';
import type { ProjectCommand } from './commands.js';
import type { ProjectEvent } from './events.js';

export interface Project {
  readonly exists: boolean;
  readonly name: string;
}

export const initialState: Project = { exists: false, name: '' };

export const decide = (command: ProjectCommand, state: Project): ProjectEvent[] => {
  switch (command.type) {
    case 'CreateProject':
      if (state.exists) return [];
      return [{ type: 'ProjectCreated', data: { ...command.data, at: command.metadata.now } }];
    default: {
      const unhandled: never = command.type;
      throw new Error(`unhandled command ${String(unhandled)}`);
    }
  }
};

export const evolve = (state: Project, event: ProjectEvent): Project => (event.type === 'ProjectCreated' ? { exists: true, name: event.data.name } : state);

export const projectDecider: Decider<ProjectCommand, ProjectEvent, Project> = { decide, evolve, initialState };

/** The project every installation starts with; its id is fixed so every start finds the same one. */
export const DEFAULT_PROJECT_ID = '00000000-0000-4000-8000-000000000001';
export const DEFAULT_PROJECT_NAME = 'Default project';
