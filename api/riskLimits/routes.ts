// Risk limits (spec "Account features and risk limits": GET/POST /accounts/{accountId}/riskLimits;
// the spec leaves the rest open): one limit, its replacement, deletion and reset, and the risk types
// (GET /types/riskTypes, RiskTypeDTO). The limits are watched by the protection monitor
// (engine/protection); a hit is in the protections read model.
import { randomUUID } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import { AccountStatus } from '../../domain/account/enums.js';
import { protectionDecider } from '../../domain/protection/decider.js';
import { protectionStream } from '../../domain/protection/events.js';
import type { RiskLimitCommand } from '../../domain/riskLimit/commands.js';
import { riskLimitDecider } from '../../domain/riskLimit/decider.js';
import { riskLimitStream } from '../../domain/riskLimit/events.js';
import { RISK_TYPES, riskTypeById } from '../../domain/riskLimit/riskTypes.js';
import { RISK_LIMIT_DEFAULTS } from '../../domain/riskLimit/settings.js';
import { findCopier } from '../../projections/copiers/queries.js';
import { findRiskLimit, type RiskLimitRow, riskLimitsOf } from '../../projections/riskLimits/queries.js';
import { loadAccount } from '../shared/accounts.js';
import { AccountIdParams } from '../accounts/schemas.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import { commandMetadata, execute, type Services } from '../../app/services.js';
import { ErrorDTO, errorResponses, Uuid } from '../shared/schemas.js';
import { COPIER_SCOPE_WORDS, RiskLimitDTO, RiskLimitWriteDTO, RiskTypeDTO } from './schemas.js';
import { fromRiskLimitWriteDTO, toRiskLimitDTOs, toRiskTypeDTO } from './dto.js';

type WriteBody = Static<typeof RiskLimitWriteDTO>;
type Context = Parameters<typeof commandMetadata>[1];

const RiskLimitParams = Type.Object({ accountId: Uuid, riskLimitId: Uuid }, { additionalProperties: false });

const notFound = (riskLimitId: string) => new ApiError(404, '[RISK_LIMIT_NOT_FOUND]', `risk limit ${riskLimitId} not found`);

export const riskLimitRoutes = (routes: Routes, services: Services): void => {
  const run = (command: RiskLimitCommand) => execute(services, riskLimitStream(command.data.riskLimitId), riskLimitDecider, command);

  /** The account for a change: a deleted one refuses every change. */
  const writableAccount = async (caller: Caller, accountId: string) => {
    const account = await loadAccount(services, caller, accountId);
    if (account.account_status_id === AccountStatus.Deleted) throw new ApiError(409, '[ACCOUNT_DELETED]', `account ${accountId} was deleted`);
    return account;
  };

  const views = (rows: readonly RiskLimitRow[]) => toRiskLimitDTOs(services, rows);

  const viewOf = async (caller: Caller, accountId: string, riskLimitId: string) => {
    const row = await findRiskLimit(services.db, caller.projectId, accountId, riskLimitId);
    if (!row) throw notFound(riskLimitId);
    return (await views([row]))[0]!;
  };

  const target = (caller: Caller, accountId: string, riskLimitId: string) => ({ riskLimitId, projectId: caller.projectId, accountId });
  const existing = async (caller: Caller, accountId: string, riskLimitId: string) => {
    const row = await findRiskLimit(services.db, caller.projectId, accountId, riskLimitId);
    if (!row) throw notFound(riskLimitId);
    return row;
  };
  const write = async (caller: Caller, context: Context, accountId: string, riskLimitId: string | null, body: WriteBody) => {
    await writableAccount(caller, accountId);
    const settings = fromRiskLimitWriteDTO(body, accountId);
    const id = riskLimitId ?? randomUUID();
    const metadata = commandMetadata(services, context);
    if (riskLimitId) {
      await existing(caller, accountId, riskLimitId);
      await run({ type: 'UpdateRiskLimit', data: { ...target(caller, accountId, id), settings, copierId: body.copierId }, metadata });
    } else {
      const copierId = body.copierId ?? null;
      if (copierId !== null && !(await findCopier(services.db, caller.projectId, accountId, copierId)))
        throw new ApiError(404, '[COPIER_NOT_FOUND]', `no copier ${copierId} copies to account ${accountId}`);
      await run({ type: 'CreateRiskLimit', data: { ...target(caller, accountId, id), settings, copierId }, metadata });
    }
    return { body: await viewOf(caller, accountId, id) };
  };

  const one = { 200: { description: 'the risk limit', schema: RiskLimitDTO }, ...errorResponses(400, 401, 404) };
  const changeErrors = {
    ...errorResponses(400, 401, 404),
    404: {
      description: 'no such account ([ACCOUNT_NOT_FOUND]), risk limit of it ([RISK_LIMIT_NOT_FOUND]) or copier copying to it (copierId, [COPIER_NOT_FOUND])',
      schema: ErrorDTO,
    },
    409: { description: 'the account was deleted ([ACCOUNT_DELETED])', schema: ErrorDTO },
  };
  const writeDescription = `The body is RiskLimitDTO as the reference writes it: riskType {"id": n} and riskLimit (a fraction: 0.05 = 5 %) required; members left out take the defaults (every other limit and fallback 0 = off, closeAllOpenPositions true, active true, fulfillSeconds 60, no resetTime). Refused with 400 [VALIDATION_FAILED]: an unknown riskType id, riskLimit, relativeRiskLimit or a fallback fraction above 1, fulfillSeconds outside 0 to 86400, a resetTime that is no date-time, with closeAllOpenPositions false a fallback not above its limit of the same kind (fallbackAbsoluteRiskLimit above absoluteRiskLimit, and so on), an accountId other than the path's. With closeAllOpenPositions true the fallbacks are kept and ignored, as the reference says. ${COPIER_SCOPE_WORDS}`;

  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/riskLimits',
    tag: 'Risk limits',
    operationId: 'listRiskLimits',
    summary: 'The risk limits of an account, with their hits in force',
    params: AccountIdParams,
    responses: { 200: { description: 'the risk limits, oldest first', schema: Type.Array(RiskLimitDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller }) {
      await loadAccount(services, caller, params.accountId);
      return { body: await views(await riskLimitsOf(services.db, caller.projectId, params.accountId)) };
    },
  });

  routes.add<{ accountId: string }, unknown, WriteBody>({
    method: 'post',
    path: '/accounts/{accountId}/riskLimits',
    tag: 'Risk limits',
    operationId: 'createRiskLimit',
    summary: 'Add a risk limit to an account',
    description: `The limit is watched from its first check (within a second): the current period's loss is measured from then if the period has no reference yet. ${writeDescription}`,
    params: AccountIdParams,
    body: RiskLimitWriteDTO,
    bodyRequired: true,
    responses: { 200: { description: 'the new risk limit', schema: RiskLimitDTO }, ...changeErrors },
    async handler({ params, caller, context, body }) {
      return write(caller, context, params.accountId, null, body);
    },
  });

  routes.add<{ accountId: string; riskLimitId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/riskLimits/{riskLimitId}',
    tag: 'Risk limits',
    operationId: 'getRiskLimit',
    summary: 'One risk limit, with its hits in force',
    params: RiskLimitParams,
    responses: { ...one, 404: changeErrors[404] },
    async handler({ params, caller }) {
      await loadAccount(services, caller, params.accountId);
      return { body: await viewOf(caller, params.accountId, params.riskLimitId) };
    },
  });

  routes.add<{ accountId: string; riskLimitId: string }, unknown, WriteBody>({
    method: 'put',
    path: '/accounts/{accountId}/riskLimits/{riskLimitId}',
    tag: 'Risk limits',
    operationId: 'updateRiskLimit',
    summary: 'Replace the settings of a risk limit',
    description: `The whole setting is replaced. A hit in force stays until its period ends or a reset, whatever the new settings; active false lifts it at once. ${writeDescription}`,
    params: RiskLimitParams,
    body: RiskLimitWriteDTO,
    bodyRequired: true,
    responses: { 200: { description: 'the risk limit', schema: RiskLimitDTO }, ...changeErrors },
    async handler({ params, caller, context, body }) {
      return write(caller, context, params.accountId, params.riskLimitId, body);
    },
  });

  routes.add<{ accountId: string; riskLimitId: string }, unknown, unknown>({
    method: 'delete',
    path: '/accounts/{accountId}/riskLimits/{riskLimitId}',
    tag: 'Risk limits',
    operationId: 'deleteRiskLimit',
    summary: 'Remove a risk limit',
    description: 'A hit of it is lifted at once: new copies to the account resume unless another protection holds them. Positions it closed stay closed.',
    params: RiskLimitParams,
    responses: { 200: { description: 'removed' }, ...changeErrors },
    async handler({ params, caller, context }) {
      await writableAccount(caller, params.accountId);
      await existing(caller, params.accountId, params.riskLimitId);
      await run({ type: 'DeleteRiskLimit', data: target(caller, params.accountId, params.riskLimitId), metadata: commandMetadata(services, context) });
      return { status: 200 };
    },
  });

  routes.add<{ accountId: string; riskLimitId: string }, unknown, unknown>({
    method: 'put',
    path: '/accounts/{accountId}/riskLimits/{riskLimitId}/reset',
    tag: 'Risk limits',
    operationId: 'resetRiskLimit',
    summary: "Lift a risk limit's hit and measure again from now",
    description:
      'The answer is 200 without a body, as the reference; GET the limit to see it (status ARMED). The hit and its fallback are lifted at once (new copies resume). Until the period ends, the loss is measured from a new reference: the balance and equity at the first check after the reset (within a second). Positions closed by the hit stay closed. A limit that is not hit is reset the same way (its measuring starts over). The next period measures from its own start as always.',
    params: RiskLimitParams,
    responses: { 200: { description: 'reset' }, ...changeErrors },
    async handler({ params, caller, context }) {
      await writableAccount(caller, params.accountId);
      const row = await existing(caller, params.accountId, params.riskLimitId);
      const riskType = riskTypeById({ ...RISK_LIMIT_DEFAULTS, ...row.settings }.riskTypeId);
      await execute(services, protectionStream(params.accountId), protectionDecider, {
        type: 'ResetProtection',
        data: { accountId: params.accountId, ruleId: row.id, ruleKind: 'RISK_LIMIT', ruleType: riskType?.code ?? 'risk limit' },
        metadata: commandMetadata(services, context),
      });
      return { status: 200 };
    },
  });

  routes.add({
    method: 'get',
    path: '/types/riskTypes',
    tag: 'Types',
    operationId: 'listRiskTypes',
    summary: "Risk types (RiskLimitDTO.riskType): the reference's 1 to 10, and ours 11 to 13",
    description:
      'Each is a period (DAILY, WEEKLY, MONTHLY in the service TIME_ZONE; types 1-3 from their resetTime when set) and a measure: BALANCE_TO_EQUITY (1-3 Daily, Weekly, Monthly), ACTUAL (4 Actual: the balance now is the reference), EQUITY_TO_EQUITY (5-7), SMART_REFERENCE (8-10), and ours BALANCE_TO_BALANCE (11-13). The reference of a period is read at its start (the first check inside it).',
    responses: { 200: { description: 'the risk types', schema: Type.Array(RiskTypeDTO) }, ...errorResponses(401) },
    handler: async () => ({ body: RISK_TYPES.map((t) => toRiskTypeDTO(t.id)) }),
  });
};
