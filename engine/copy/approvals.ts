// What the engine needs of approvals (FeatureApprovalDTO): the decided ones whose open still waits,
// to decide them again before their expiry, and the decision on a deferred open it decides again.
import type { Kysely } from 'kysely';
import { APPROVAL } from '../../domain/copy/features/approval.js';
import type { ApprovalDecision } from '../../domain/copy/features/rules.js';
import type { MasterEvent } from '../../domain/copy/types.js';
import { approvalDecisionOf, decidedWaiting } from '../../projections/approvals/queries.js';
import type { ReadModels } from '../../projections/schema.js';

export const decidedApprovals = (db: Kysely<ReadModels>): Promise<{ id: string; master_account_id: string }[]> => decidedWaiting(db);

/** The decision on a deferred master event that the approval held back; null when it was not, or nobody decided. */
export const approvalOfDeferral = async (
  db: Kysely<ReadModels>,
  copierId: string,
  event: MasterEvent,
  deferredBy: readonly string[],
): Promise<ApprovalDecision | null> => (deferredBy.includes(APPROVAL) ? approvalDecisionOf(db, copierId, event.data.masterPositionId) : null);
