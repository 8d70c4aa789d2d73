import type { CommandMetadata } from '../shared/command.js';
import type { ProjectSettings } from './settings.js';

export type ProjectCommand =
  | { type: 'CreateProject'; data: { projectId: string; name: string; owner: string | null }; metadata: CommandMetadata }
  | { type: 'DeleteProject'; data: { projectId: string }; metadata: CommandMetadata }
  | {
      type: 'UpdateProject';
      /** `dedicated`: what the client sent; set at creation only, so a different value is refused. */
      data: { projectId: string; settings: ProjectSettings; dedicated: boolean };
      metadata: CommandMetadata;
    };
