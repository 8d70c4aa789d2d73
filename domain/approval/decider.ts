// An approval: decided once, and only before it expires; a volume override (lots above 0) only with an
// approval. Whether the open is still waiting (not yet copied or skipped, its master position still
// open) is checked against the read model before the command; the decider keeps what only its own
// stream knows.
import type { Decider } from '../shared/command.js';
import { illegalState, invalid } from '../shared/errors.js';
import type { ApprovalCommand } from './commands.js';
import type { ApprovalEvent } from './events.js';

export interface Approval {
  readonly decided: boolean;
  readonly approved: boolean | null;
}

export const initialState: Approval = { decided: false, approved: null };

export const decide = (command: ApprovalCommand, state: Approval): ApprovalEvent[] => {
  const { approvalId, accountId, copierId, masterPositionId, approved, volume, expiresAt } = command.data;
  if (state.decided) {
    throw illegalState('[APPROVAL_ALREADY_DECIDED]', `approval ${approvalId} was ${state.approved ? 'approved' : 'rejected'} already`);
  }
  if (Date.parse(command.metadata.now) >= Date.parse(expiresAt)) {
    throw illegalState('[APPROVAL_EXPIRED]', `approval ${approvalId} expired at ${expiresAt}`);
  }
  if (volume !== null && !(Number.isFinite(volume) && volume > 0))
    throw invalid('[VALIDATION_FAILED]', `approval ${approvalId}: volume ${volume} is not a lot above 0`);
  if (!approved && volume !== null)
    throw invalid('[VOLUME_WITHOUT_APPROVAL]', `approval ${approvalId}: a volume only applies to an approved copy (approved false skips it)`);
  return [{ type: 'ApprovalDecided', data: { approvalId, accountId, copierId, masterPositionId, approved, volume, at: command.metadata.now } }];
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
