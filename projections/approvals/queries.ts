// Queries of the approvals read model.
import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import { APPROVAL } from '../../domain/copy/features/approval.js';
import type { ApprovalDecision } from '../../domain/copy/features/rules.js';
import type { ApprovalsTable, ReadModels } from '../schema.js';

export type ApprovalRow = Selectable<ApprovalsTable>;

/** The approval's slave account, or its copier, still has FeatureApprovalDTO. */
const featureOn = (eb: ExpressionBuilder<ReadModels, 'approvals'>) =>
  eb.exists(
    eb
      .selectFrom('features')
      .select('features.id')
      .where('features.type', '=', APPROVAL)
      .where((f) =>
        f.or([
          f.and([f('features.scope_kind', '=', 'account'), f('features.account_id', '=', f.ref('approvals.slave_account_id'))]),
          f.and([f('features.scope_kind', '=', 'copier'), f('features.copier_id', '=', f.ref('approvals.copier_id'))]),
        ]),
      ),
  );

/**
 * The approvals of the slave accounts still waiting for a decision at `now`: not decided, not yet taken
 * up by the engine, not expired, their master position or pending order still open, and the account
 * still asking for approvals. One query for any number of accounts.
 */
export const pendingApprovalsOf = (db: Kysely<ReadModels>, slaveAccountIds: readonly string[], now: Date): Promise<ApprovalRow[]> =>
  slaveAccountIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('approvals')
        .selectAll('approvals')
        .where('approvals.slave_account_id', 'in', [...slaveAccountIds])
        .where('approvals.decision', 'is', null)
        .where('approvals.outcome', 'is', null)
        .where('approvals.expires_at', '>', now)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('positions')
              .select('positions.id')
              .whereRef('positions.account_id', '=', 'approvals.master_account_id')
              .whereRef('positions.id', '=', 'approvals.master_position_id'),
          ),
        )
        .where(featureOn)
        .orderBy('approvals.requested_at')
        .orderBy('approvals.id')
        .execute();

/** The approvals of one slave account still waiting for a decision at `now` (pendingApprovalsOf). */
export const pendingApprovals = (db: Kysely<ReadModels>, slaveAccountId: string, now: Date): Promise<ApprovalRow[]> =>
  pendingApprovalsOf(db, [slaveAccountId], now);

/** The approvals of a slave account with this id or for this master position, newest first. */
export const approvalsFor = (
  db: Kysely<ReadModels>,
  slaveAccountId: string,
  by: { approvalId: string } | { masterPositionId: string },
): Promise<ApprovalRow[]> => {
  let q = db.selectFrom('approvals').selectAll().where('slave_account_id', '=', slaveAccountId);
  q = 'approvalId' in by ? q.where('id', '=', by.approvalId) : q.where('master_position_id', '=', by.masterPositionId);
  return q.orderBy('requested_at', 'desc').execute();
};

/** Whether the master still holds the position or pending order an approval waits on. */
export const masterStillHolds = async (db: Kysely<ReadModels>, row: ApprovalRow): Promise<boolean> =>
  (await db
    .selectFrom('positions')
    .select('id')
    .where('account_id', '=', row.master_account_id)
    .where('id', '=', row.master_position_id)
    .executeTakeFirst()) !== undefined;

/** Whether the account asks for approvals: FeatureApprovalDTO on it, or on one of its copiers (it is their slave). */
export const approvalsAskedOn = async (db: Kysely<ReadModels>, slaveAccountId: string): Promise<boolean> =>
  (await db
    .selectFrom('features')
    .select('id')
    .where('type', '=', APPROVAL)
    .where('scope_kind', 'in', ['account', 'copier'])
    .where('account_id', '=', slaveAccountId)
    .executeTakeFirst()) !== undefined;

/** The decision on the newest approval of a copier's copy of a master position (for the engine). */
export const approvalDecisionOf = async (db: Kysely<ReadModels>, copierId: string, masterPositionId: string): Promise<ApprovalDecision | null> => {
  const row = await db
    .selectFrom('approvals')
    .select(['decision', 'decided_volume'])
    .where('copier_id', '=', copierId)
    .where('master_position_id', '=', masterPositionId)
    .orderBy('requested_at', 'desc')
    .executeTakeFirst();
  if (row?.decision === 'approved') return { decision: 'approved', volume: row.decided_volume };
  return row?.decision === 'rejected' ? { decision: 'rejected', volume: null } : null;
};

/**
 * Approvals whose deferral still waits and that the engine takes up before their expiry: decided ones,
 * and those of an account that no longer asks for approvals (removing the feature releases them).
 */
export const decidedWaiting = (db: Kysely<ReadModels>): Promise<{ id: string; master_account_id: string }[]> =>
  db
    .selectFrom('approvals')
    .innerJoin('copy_deferrals', 'copy_deferrals.id', 'approvals.id')
    .select(['approvals.id', 'approvals.master_account_id'])
    .where('approvals.outcome', 'is', null)
    .where((eb) => eb.or([eb('approvals.decision', 'is not', null), eb.not(featureOn(eb))]))
    .execute();
