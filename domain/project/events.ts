// Events of the project aggregate (stream `project-<id>`).
import type { ProjectSettings } from './settings.js';

export type ProjectEvent =
  | {
      type: 'ProjectCreated';
      /** `dedicated` is set at creation only (reference ProjectDTO); absent: false. */
      data: { projectId: string; name: string; owner: string | null; dedicated?: boolean; at: string };
    }
  | { type: 'ProjectUpdated'; data: { projectId: string; settings: ProjectSettings; at: string } };

export const projectEventTypes: readonly ProjectEvent['type'][] = ['ProjectCreated', 'ProjectUpdated'];
export const projectStream = (projectId: string): string => `project-${projectId}`;
