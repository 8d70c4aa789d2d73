// Events of the project aggregate (stream `project-<id>`).
export type ProjectEvent = {
  type: 'ProjectCreated';
  data: { projectId: string; name: string; owner: string | null; at: string };
};

export const projectEventTypes: readonly ProjectEvent['type'][] = ['ProjectCreated'];
export const projectStream = (projectId: string): string => `project-${projectId}`;
