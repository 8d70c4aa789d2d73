// Approvals (spec: POST /accounts/{accountId}/approvals with ApprovalDTO, the reference's accountFromId and ticket, 204;
// AccountInformationDTO.pendingApprovals), and GET /accounts/{accountId}/approvals (ours: the waiting
// approvals, so a decision can name one). A master open that FeatureApprovalDTO holds back waits on
// the slave account; a decision is an ApprovalDecided event, which the copy engine takes up within a
// second (engine/copy/approvals.ts).
import { type Static, Type } from '@sinclair/typebox';
import type { ApprovalCommand } from '../../domain/approval/commands.js';
import { approvalDecider } from '../../domain/approval/decider.js';
import { approvalStream } from '../../domain/approval/events.js';
import { type ApprovalRow, approvalsAskedOn, approvalsFor, masterStillHolds, pendingApprovals } from '../../projections/approvals/queries.js';
import { loadAccount } from '../shared/accounts.js';
import { AccountIdParams } from '../accounts/schemas.js';
import { ApiError } from '../errors.js';
import type { Routes } from '../route.js';
import { commandMetadata, execute, type Services } from '../../app/services.js';
import { errorResponses } from '../shared/schemas.js';
import { toPendingApprovalDTO } from './dto.js';
import { ApprovalDTO, PendingApprovalDTO } from './schemas.js';

type Body = Static<typeof ApprovalDTO>;

const iso = (value: Date | string): string => new Date(value).toISOString();

/** Why an approval no longer waits, as the error of a decision on it. */
const notWaiting = async (services: Services, row: ApprovalRow, now: Date): Promise<ApiError> => {
  if (row.decision !== null) return new ApiError(409, '[APPROVAL_ALREADY_DECIDED]', `approval ${row.id} was ${row.decision} already`);
  if (row.outcome === 'APPROVAL_EXPIRED' || new Date(row.expires_at).getTime() <= now.getTime()) {
    return new ApiError(409, '[APPROVAL_EXPIRED]', `approval ${row.id} expired at ${iso(row.expires_at)}`);
  }
  if (row.outcome === null && !(await masterStillHolds(services.db, row))) {
    return new ApiError(409, '[APPROVAL_NOT_PENDING]', `approval ${row.id} no longer waits: the master closed position #${row.master_position_id}`);
  }
  return new ApiError(409, '[APPROVAL_NOT_PENDING]', `approval ${row.id} no longer waits (${row.outcome ?? 'taken up'})`);
};

export const approvalRoutes = (routes: Routes, services: Services): void => {
  const run = (command: ApprovalCommand) => execute(services, approvalStream(command.data.approvalId), approvalDecider, command);

  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/approvals',
    tag: 'Approvals',
    operationId: 'listPendingApprovals',
    summary: 'The master opens waiting for a decision on this account',
    description:
      'The opens FeatureApprovalDTO holds back and nobody decided yet, oldest first: not expired, and their master position or pending order still open. Their number is AccountInformationDTO.pendingApprovals.',
    params: AccountIdParams,
    responses: { 200: { description: 'the waiting approvals', schema: Type.Array(PendingApprovalDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller }) {
      await loadAccount(services, caller, params.accountId);
      return { body: (await pendingApprovals(services.db, params.accountId, services.clock())).map(toPendingApprovalDTO) };
    },
  });

  routes.add<{ accountId: string }, unknown, Body>({
    method: 'post',
    path: '/accounts/{accountId}/approvals',
    tag: 'Approvals',
    operationId: 'decideApproval',
    summary: 'Approve or reject a master open waiting on this account',
    description:
      "Names the waiting approval as the reference does: accountFromId (the master account) and ticket (its position or pending order, PendingApprovalDTO.masterPositionId); every approval of it still waiting on this account is decided (one per copier). approved (ours) true, the default: the copy engine decides the open again within a second, with the rules, sizing and prices of that moment, and copies it; false: it is skipped with APPROVAL_REJECTED. Answers 204 once the decision is recorded. volume (the reference's override; lots, 0 or absent: the copier's sizing) places the approved copy with that lot instead of the copier's scaling (scaleType, multiplier, fixedLotSize, the balance or equity ratio, contract sizes, martingale, the sizing features): our choice, both documents being silent, is that everything after the scaling still applies to it as to a calculated lot: the copier's maxLotSize caps it, it is rounded down to the slave symbol's lot step and capped at its maximum lot, a lot below the symbol's minimum is raised to it with forceMinTrade (and minVolumeSafetySkipThresholdMultiplier) or skipped with VOLUME_BELOW_MINIMUM, the copier's maximumLot and the features' volume caps and guards apply. A volume with approved false: 400 [VOLUME_WITHOUT_APPROVAL]. No such approval on this account: 404 [APPROVAL_NOT_FOUND]; decided before: 409 [APPROVAL_ALREADY_DECIDED]; past its expiry: 409 [APPROVAL_EXPIRED]; no longer waiting otherwise (the master closed the position, the engine took it up, FeatureApprovalDTO was removed from the account): 409 [APPROVAL_NOT_PENDING].",
    params: AccountIdParams,
    body: ApprovalDTO,
    bodyRequired: true,
    responses: { 204: { description: 'decided' }, ...errorResponses(400, 401, 404, 409) },
    async handler({ params, caller, context, body }) {
      await loadAccount(services, caller, params.accountId);
      // 0 is "not specified", as a generated client sends an unset number.
      const volume = body.volume === undefined || body.volume === 0 ? null : body.volume;
      const masterPositionId = String(body.ticket);
      const rows = (await approvalsFor(services.db, params.accountId, { masterPositionId })).filter((r) => r.master_account_id === body.accountFromId);
      const what = `approval of position #${masterPositionId} of account ${body.accountFromId}`;
      if (rows.length === 0) throw new ApiError(404, '[APPROVAL_NOT_FOUND]', `no ${what} on account ${params.accountId}`);
      if (!(await approvalsAskedOn(services.db, params.accountId))) {
        throw new ApiError(
          409,
          '[APPROVAL_NOT_PENDING]',
          `account ${params.accountId} no longer asks for approvals (FeatureApprovalDTO removed): its waiting opens were released`,
        );
      }
      const now = services.clock();
      const waiting: ApprovalRow[] = [];
      for (const row of rows) {
        if (row.decision === null && row.outcome === null && new Date(row.expires_at).getTime() > now.getTime() && (await masterStillHolds(services.db, row)))
          waiting.push(row);
      }
      if (waiting.length === 0) throw await notWaiting(services, rows[0]!, now);
      for (const row of waiting) {
        await run({
          type: 'DecideApproval',
          data: {
            approvalId: row.id,
            accountId: params.accountId,
            copierId: row.copier_id,
            masterPositionId: row.master_position_id,
            approved: body.approved ?? true,
            volume,
            expiresAt: iso(row.expires_at),
          },
          metadata: commandMetadata(services, context),
        });
      }
      return { status: 204 };
    },
  });
};
