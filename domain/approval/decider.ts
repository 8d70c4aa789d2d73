// An approval: decided once, and only before it expires. Whether the open is still waiting (not yet
// copied or skipped, its master position still open) is checked against the read model before the
// command; the decider keeps what only its own stream knows.
import type { Decider } from '../shared/command.js';
import { illegalState } from '../shared/errors.js';
import type { ApprovalCommand } from './commands.js';
import type { ApprovalEvent } from './events.js';

export interface Approval {
  readonly decided: boolean;
  readonly approved: boolean | null;
}

export const initialState: Approval = { decided: false, approved: null };

export const decide = (command: ApprovalCommand, state: Approval): ApprovalEvent[] => {
  const { approvalId, accountId, copierId, masterPositionId, approved, expiresAt } = command.data;
  if (state.decided) {
    throw illegalState('[APPROVAL_ALREADY_DECIDED]', `approval ${approvalId} was ${state.approved ? 'approved' : 'rejected'} already`);
  }
  if (Date.parse(command.metadata.now) >= Date.parse(expiresAt)) {
    throw illegalState('[APPROVAL_EXPIRED]', `approval ${approvalId} expired at ${expiresAt}`);
  }
  return [{ type: 'ApprovalDecided', data: { approvalId, accountId, copierId, masterPositionId, approved, at: command.metadata.now } }];
};

export const evolve = (state: Approval, event: ApprovalEvent): Approval => {
  switch (event.type) {
    case 'ApprovalDecided':
      return { decided: true, approved: event.data.approved };
    default:
      return state;
  }
};

export const approvalDecider: Decider<ApprovalCommand, ApprovalEvent, Approval> = { decide, evolve, initialState };
