import type { CommandMetadata } from '../shared/command.js';

export type ProjectCommand = {
  type: 'CreateProject';
  data: { projectId: string; name: string; owner: string | null };
  metadata: CommandMetadata;
};
