// Events of the customer aggregate (stream `customer-<brandFeatureId>-<emailKey>`, one per e-mail address
// and brand): a person who registered by e-mail under a white-label brand (the operator's project with a
// FeatureWhiteLabelDTO), signs in with a one-time code and owns projects (reference CustomerDTO, ProjectDTO
// owner). The same address under two brands is two customers: a brand sees only its own.
//
// `customerId` is the reference's int32 CustomerDTO.id, unique across the service (drawn from the
// PostgreSQL sequence `customer_ids` at registration, kept in the event, so a rebuild reproduces it).
import { createHash } from 'node:crypto';

export type CustomerEvent =
  | {
      type: 'CustomerRegistered';
      data: { customerId: number; brandFeatureId: string; brandProjectId: string; email: string; at: string };
    }
  | {
      /** A session: only the SHA-256 of its bearer token is kept; `codeId` is the code it was signed in with. */
      type: 'CustomerSignedIn';
      data: { customerId: number; sessionId: string; tokenHash: string; codeId: string; expiresAt: string; at: string };
    }
  | { type: 'CustomerSignedOut'; data: { customerId: number; sessionId: string; at: string } }
  /** The customer created a project, which it owns from now on (ProjectCreated with this e-mail as owner comes first). */
  | { type: 'CustomerProjectOwned'; data: { customerId: number; projectId: string; at: string } }
  /**
   * The brand's operator blocked the customer: from this event on its sessions and its projects' keys are
   * refused (the read model's status, checked at every request); the block job (app/customersBlock.ts)
   * then revokes the keys and stops the accounts, and records CustomerBlockCompleted.
   */
  | { type: 'CustomerBlocked'; data: { customerId: number; jobId: string; reason: string | null; at: string } }
  /** The block job stopped one of the customer's accounts: the account's log says why (projections/accountLogs). */
  | { type: 'CustomerAccountStopped'; data: { customerId: number; jobId: string; projectId: string; accountId: string; reason: string | null; at: string } }
  | {
      type: 'CustomerBlockCompleted';
      data: {
        customerId: number;
        jobId: string;
        projectIds: string[];
        /** Live keys of its projects, refused while the block lasts (suspended, not revoked). */
        suspendedKeys: number;
        stoppedAccounts: number;
        stoppedCopiers: number;
        at: string;
      };
    }
  /**
   * The brand's operator lifted the block: from this event on the customer's sessions (new ones: blocking
   * ended the old), keys and code requests work again; `accountIds` are the accounts the block job stopped,
   * which the unblock job starts again (CustomerUnblockCompleted says which it could).
   */
  | { type: 'CustomerUnblocked'; data: { customerId: number; jobId: string; accountIds: string[]; at: string } }
  | { type: 'CustomerUnblockCompleted'; data: { customerId: number; jobId: string; restartedAccounts: string[]; notRestarted: string[]; at: string } };

export type CustomerEventType = CustomerEvent['type'];

export const customerEventTypes: readonly CustomerEventType[] = [
  'CustomerRegistered',
  'CustomerSignedIn',
  'CustomerSignedOut',
  'CustomerProjectOwned',
  'CustomerBlocked',
  'CustomerAccountStopped',
  'CustomerBlockCompleted',
  'CustomerUnblocked',
  'CustomerUnblockCompleted',
];

export const CUSTOMER_STREAM_PREFIX = 'customer-';

/** E-mail addresses compare in lower case, without surrounding blanks. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/** The stream of the customer with this address under this brand (the address hashed: stream names show in logs). */
export const customerStream = (brandFeatureId: string, email: string): string =>
  `${CUSTOMER_STREAM_PREFIX}${brandFeatureId}-${createHash('sha256').update(normaliseEmail(email)).digest('hex').slice(0, 40)}`;
