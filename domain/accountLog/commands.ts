import type { CommandMetadata } from '../shared/command.js';

export type AccountLogCommand =
  /** `logIds`: entries the application layer found in the project's logs (an unknown id never gets here). */
  | { type: 'AcknowledgeLogs'; data: { projectId: string; logIds: readonly number[] }; metadata: CommandMetadata }
  | { type: 'AcknowledgeAllLogs'; data: { projectId: string }; metadata: CommandMetadata };
