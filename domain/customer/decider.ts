// The customer aggregate (events.ts): registration under a brand, sessions, the projects it owns, and
// blocking by the brand's operator (spec "Operations known by path and purpose": PUT .../whitelabel/
// customers/block). Registering again is a no-op (the first registration keeps its id); a blocked
// customer cannot sign in nor own another project; blocking again while a block job has not finished is
// a no-op, after it finished it starts a new job (the operator may sweep again). Unblocking a blocked
// customer lifts the block at once (a block job still running stops noting what it does) and hands the
// accounts the block stopped to an unblock job, which starts them again; unblocking a customer who is not
// blocked is refused (409 [CUSTOMER_NOT_BLOCKED]).
import type { Decider } from '../shared/command.js';
import { DomainError, illegalState, notFound } from '../shared/errors.js';
import type { CustomerCommand } from './commands.js';
import type { CustomerEvent } from './events.js';

/** The projects a customer may own when the brand's maxProjectsPerUser is 0 (spec: "0 = platform default"). */
export const DEFAULT_MAX_PROJECTS_PER_CUSTOMER = 10;

export interface Customer {
  readonly exists: boolean;
  readonly customerId: number;
  readonly brandFeatureId: string;
  readonly email: string;
  readonly projectIds: readonly string[];
  readonly sessions: readonly string[];
  readonly blocked: boolean;
  /** The block job not finished yet; null when none runs. */
  readonly pendingBlockJob: string | null;
  readonly blockReason: string | null;
  /** The accounts the block jobs of the current block stopped: what unblocking starts again. */
  readonly stoppedAccounts: readonly string[];
  /** The unblock job not finished yet; null when none runs. */
  readonly pendingUnblockJob: string | null;
}

export const initialState: Customer = {
  exists: false,
  customerId: 0,
  brandFeatureId: '',
  email: '',
  projectIds: [],
  sessions: [],
  blocked: false,
  pendingBlockJob: null,
  blockReason: null,
  stoppedAccounts: [],
  pendingUnblockJob: null,
};

export const customerBlocked = (): DomainError => new DomainError('forbidden', '[CUSTOMER_BLOCKED]', "the brand's operator blocked this customer");

export const projectLimit = (maxProjects: number): number => (maxProjects > 0 ? maxProjects : DEFAULT_MAX_PROJECTS_PER_CUSTOMER);

export const decide = (command: CustomerCommand, state: Customer): CustomerEvent[] => {
  const at = command.metadata.now;
  if (command.type === 'RegisterCustomer') {
    if (state.exists) return [];
    return [{ type: 'CustomerRegistered', data: { ...command.data, at } }];
  }
  if (!state.exists) throw notFound('[CUSTOMER_NOT_FOUND]', 'no such customer under this brand');
  const { customerId } = state;
  switch (command.type) {
    case 'SignInCustomer':
      if (state.blocked) throw customerBlocked();
      return [{ type: 'CustomerSignedIn', data: { customerId, ...command.data, at } }];
    case 'SignOutCustomer':
      return state.sessions.includes(command.data.sessionId)
        ? [{ type: 'CustomerSignedOut', data: { customerId, sessionId: command.data.sessionId, at } }]
        : [];
    case 'OwnProject': {
      const { projectId, maxProjects } = command.data;
      if (state.projectIds.includes(projectId)) return [];
      if (state.blocked) throw customerBlocked();
      const limit = projectLimit(maxProjects);
      if (state.projectIds.length >= limit) {
        throw illegalState('[CUSTOMER_PROJECT_LIMIT_REACHED]', `a customer of this brand owns at most ${limit} projects (maxProjectsPerUser)`);
      }
      return [{ type: 'CustomerProjectOwned', data: { customerId, projectId, at } }];
    }
    case 'BlockCustomer':
      if (state.pendingBlockJob) return [];
      return [{ type: 'CustomerBlocked', data: { customerId, jobId: command.data.jobId, reason: command.data.reason, at } }];
    case 'NoteCustomerAccountStopped':
      // Noted once: a job round finishing an interrupted one notes again what it noted before.
      if (state.pendingBlockJob !== command.data.jobId || state.stoppedAccounts.includes(command.data.accountId)) return [];
      return [{ type: 'CustomerAccountStopped', data: { customerId, ...command.data, reason: state.blockReason, at } }];
    case 'CompleteCustomerBlock':
      if (state.pendingBlockJob !== command.data.jobId) return [];
      return [{ type: 'CustomerBlockCompleted', data: { customerId, ...command.data, at } }];
    case 'UnblockCustomer':
      if (!state.blocked) throw illegalState('[CUSTOMER_NOT_BLOCKED]', 'this customer is not blocked');
      return [{ type: 'CustomerUnblocked', data: { customerId, jobId: command.data.jobId, accountIds: [...state.stoppedAccounts], at } }];
    case 'CompleteCustomerUnblock':
      if (state.pendingUnblockJob !== command.data.jobId) return [];
      return [{ type: 'CustomerUnblockCompleted', data: { customerId, ...command.data, at } }];
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const evolve = (state: Customer, event: CustomerEvent): Customer => {
  switch (event.type) {
    case 'CustomerRegistered':
      return { ...initialState, exists: true, customerId: event.data.customerId, brandFeatureId: event.data.brandFeatureId, email: event.data.email };
    case 'CustomerSignedIn':
      return { ...state, sessions: [...state.sessions, event.data.sessionId] };
    case 'CustomerSignedOut':
      return { ...state, sessions: state.sessions.filter((s) => s !== event.data.sessionId) };
    case 'CustomerProjectOwned':
      return { ...state, projectIds: [...state.projectIds, event.data.projectId] };
    case 'CustomerBlocked':
      return { ...state, blocked: true, sessions: [], pendingBlockJob: event.data.jobId, blockReason: event.data.reason, pendingUnblockJob: null };
    case 'CustomerAccountStopped':
      return state.stoppedAccounts.includes(event.data.accountId) ? state : { ...state, stoppedAccounts: [...state.stoppedAccounts, event.data.accountId] };
    case 'CustomerBlockCompleted':
      return { ...state, pendingBlockJob: null };
    case 'CustomerUnblocked':
      return { ...state, blocked: false, pendingBlockJob: null, blockReason: null, stoppedAccounts: [], pendingUnblockJob: event.data.jobId };
    case 'CustomerUnblockCompleted':
      return { ...state, pendingUnblockJob: null };
    default:
      return state;
  }
};

export const customerDecider: Decider<CustomerCommand, CustomerEvent, Customer> = { decide, evolve, initialState };
