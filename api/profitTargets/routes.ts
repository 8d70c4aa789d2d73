// PUT /accounts/{accountId}/profitTargets/{profitTargetFeatureId}/reset (spec "Accounts", "Profit target
// lock": locked -> open, same-day copying resumes). The targets themselves are account features
// (domain/profitTarget/features.ts); their lock is the account's protection state (domain/protection).
import { Type } from '@sinclair/typebox';
import { AccountStatus } from '../../domain/account/enums.js';
import { protectionDecider } from '../../domain/protection/decider.js';
import { protectionStream } from '../../domain/protection/events.js';
import { isPeriodTargetType, isProfitTargetType } from '../../domain/profitTarget/features.js';
import { findAccountFeature } from '../../projections/features/queries.js';
import { loadAccount } from '../shared/accounts.js';
import { ApiError } from '../errors.js';
import type { Routes } from '../route.js';
import { commandMetadata, execute, type Services } from '../../app/services.js';
import { ErrorDTO, errorResponses, Uuid } from '../shared/schemas.js';

export const profitTargetRoutes = (routes: Routes, services: Services): void => {
  routes.add<{ accountId: string; profitTargetFeatureId: string }, unknown, unknown>({
    method: 'put',
    path: '/accounts/{accountId}/profitTargets/{profitTargetFeatureId}/reset',
    tag: 'Features',
    operationId: 'resetProfitTarget',
    summary: 'Unlock a profit target: copying resumes at once',
    description:
      'profitTargetFeatureId is a FeatureDailyProfitTargetDTO, FeatureWeeklyProfitTargetDTO, FeatureMonthlyProfitTargetDTO or FeatureOverallTargetDTO of this account. Locked -> open: the lock is lifted at once and new copies resume the same period (positions closed by the lock stay closed). ' +
      'A period target then measures from a new reference until its period ends: the balance at the first check after the reset (within a second) is the one its percent target (dailyProfitTarget, weeklyProfitTarget, monthlyProfitTarget) and its relative target (dailyRelativeProfitTarget, ...) are of; its absolute target (dailyAbsoluteProfitTarget, ...) is an equity level and stays, so an account still at or above it locks again at the next check. The overall target keeps its referenceBalance: if the account is still beyond its target or loss limit, it locks again at the next check; its per-symbol results count from the reset. ' +
      'An open target is reset the same way. 404 [FEATURE_NOT_FOUND] for anything else.',
    params: Type.Object({ accountId: Uuid, profitTargetFeatureId: Uuid }, { additionalProperties: false }),
    responses: {
      200: { description: 'reset' },
      ...errorResponses(400, 401, 404),
      409: { description: 'the account was deleted ([ACCOUNT_DELETED])', schema: ErrorDTO },
    },
    async handler({ params, caller, context }) {
      const account = await loadAccount(services, caller, params.accountId);
      const row = await findAccountFeature(services.db, caller.projectId, params.accountId, params.profitTargetFeatureId);
      if (!row || !isProfitTargetType(row.type))
        throw new ApiError(404, '[FEATURE_NOT_FOUND]', `no profit target feature ${params.profitTargetFeatureId} on this account`);
      if (account.account_status_id === AccountStatus.Deleted) throw new ApiError(409, '[ACCOUNT_DELETED]', `account ${params.accountId} was deleted`);
      await execute(services, protectionStream(params.accountId), protectionDecider, {
        type: 'ResetProtection',
        data: { accountId: params.accountId, ruleId: row.id, ruleKind: isPeriodTargetType(row.type) ? 'PROFIT_TARGET' : 'OVERALL_TARGET', ruleType: row.type },
        metadata: commandMetadata(services, context),
      });
      return { status: 200 };
    },
  });
};
