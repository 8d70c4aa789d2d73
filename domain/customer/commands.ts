import type { CommandMetadata } from '../shared/command.js';

export type CustomerCommand =
  | {
      type: 'RegisterCustomer';
      data: { customerId: number; brandFeatureId: string; brandProjectId: string; email: string };
      metadata: CommandMetadata;
    }
  | { type: 'SignInCustomer'; data: { sessionId: string; tokenHash: string; codeId: string; expiresAt: string }; metadata: CommandMetadata }
  | { type: 'SignOutCustomer'; data: { sessionId: string }; metadata: CommandMetadata }
  /** `maxProjects`: the brand's maxProjectsPerUser when the command is decided (0 = the platform's default). */
  | { type: 'OwnProject'; data: { projectId: string; maxProjects: number }; metadata: CommandMetadata }
  | { type: 'BlockCustomer'; data: { jobId: string; reason: string | null }; metadata: CommandMetadata }
  | { type: 'NoteCustomerAccountStopped'; data: { jobId: string; projectId: string; accountId: string }; metadata: CommandMetadata }
  /** `jobId`: the unblock job's id (app/customersBlock.ts restarts what the block stopped). */
  | { type: 'UnblockCustomer'; data: { jobId: string }; metadata: CommandMetadata }
  | { type: 'CompleteCustomerUnblock'; data: { jobId: string; restartedAccounts: string[]; notRestarted: string[] }; metadata: CommandMetadata }
  | {
      type: 'CompleteCustomerBlock';
      data: { jobId: string; projectIds: string[]; suspendedKeys: number; stoppedAccounts: number; stoppedCopiers: number };
      metadata: CommandMetadata;
    };
