// Events of a project's log acknowledgements (stream `logAcknowledgements-<projectId>`): which
// entries of the account logs (LogDTO, by their integer id) a customer marked as seen. The account
// logs read model folds them into `acknowledged`, so a rebuild gives the same answer.
export type AccountLogEvent =
  | { type: 'LogsAcknowledged'; data: { projectId: string; logIds: number[]; at: string } }
  /** Every entry of the project's logs that precedes this event in `$all`; entries written later are not. */
  | { type: 'AllLogsAcknowledged'; data: { projectId: string; at: string } };

export const accountLogEventTypes: readonly AccountLogEvent['type'][] = ['LogsAcknowledged', 'AllLogsAcknowledged'];
export const logAcknowledgementsStream = (projectId: string): string => `logAcknowledgements-${projectId}`;
