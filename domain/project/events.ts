// Events of the project aggregate (stream `project-<id>`).
import type { ProjectSettings } from './settings.js';

export type ProjectEvent =
  | {
      type: 'ProjectCreated';
      /** `dedicated` is set at creation only (reference ProjectDTO); absent: false. */
      data: { projectId: string; name: string; owner: string | null; dedicated?: boolean; at: string };
    }
  | { type: 'ProjectUpdated'; data: { projectId: string; settings: ProjectSettings; at: string } }
  /**
   * Final: the project refuses every later change. Its accounts are stopped and deleted and its keys
   * revoked by their own events after this one (app/commands/projects.ts); its events stay for audit.
   */
  | { type: 'ProjectDeleted'; data: { projectId: string; at: string } };

export const projectEventTypes: readonly ProjectEvent['type'][] = ['ProjectCreated', 'ProjectUpdated', 'ProjectDeleted'];
export const projectStream = (projectId: string): string => `project-${projectId}`;
