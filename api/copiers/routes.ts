// The copier area (spec: "Copiers", "Copier mode", and the copier rows of "Accounts"): copiers under their
// slave account, the six copier-mode operations, slaves of a master, and the masters summary.
import { type Static, Type } from '@sinclair/typebox';
import type { CopierCommand } from '../../domain/copier/commands.js';
import { copierDecider } from '../../domain/copier/decider.js';
import { copierStream } from '../../domain/copier/events.js';
import { defaultCopierSettings, SCALE_TYPES } from '../../domain/copier/settings.js';
import { findAccount, liveAccountsAmong } from '../../projections/accounts/queries.js';
import { activeSlaveAccountIds, findCopier, listCopiers, slaveLinks } from '../../projections/copiers/queries.js';
import { COPIER_READ_MODELS, createCopier } from '../../app/commands/createCopier.js';
import { type CopierMode, setCopierModes } from '../../app/commands/setCopierModes.js';
import { toAccountDTOs } from '../accounts/dto.js';
import { checkAccountScope, loadAccount } from '../shared/accounts.js';
import { AccountDTO, AccountIdParams } from '../accounts/schemas.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import { afterCopyEngine, commandMetadata, execute, type Position, type Services } from '../../app/services.js';
import { errorResponses } from '../shared/schemas.js';
import { CopierCreateDTO, CopierDTO, CopierParams, CopierUpdateDTO, MasterAccountSummaryDTO, ScaleTypeDTO } from './schemas.js';
import { checkStrategiesUnchanged, type CopierRow, fromCopierDTO, strategiesOf, toCopierDTO, toScaleTypeDTO } from './dto.js';
import { createStrategyCopier } from '../../app/strategies.js';

const copierNotFound = (copierId: string) => new ApiError(404, '[COPIER_NOT_FOUND]', `copier ${copierId} not found`);

export const copierRoutes = (routes: Routes, services: Services): void => {
  const loadCopier = async (caller: Caller, accountId: string, copierId: string): Promise<CopierRow> => {
    checkAccountScope(caller, accountId);
    const row = await findCopier(services.db, caller.projectId, accountId, copierId);
    if (!row) throw copierNotFound(copierId);
    return row as CopierRow;
  };
  // A copier write answers once the copiers read model has it (CopierDTO is read from there alone).
  const run = (command: CopierCommand) => execute(services, copierStream(command.data.copierId), copierDecider, command, COPIER_READ_MODELS);
  /** Answers after the copy engine handled the event at `position` and the read models include what it did. */
  const afterEngine = (position: Position | null) => afterCopyEngine(services, position);

  const copierResponses = { 200: { description: 'the copier', schema: CopierDTO }, ...errorResponses(400, 401, 404, 409) };

  /** Applies a mode to the copiers of the project, or of one master's slaves (spec: "Copier mode"). */
  const setMode = async (caller: Caller, context: Parameters<typeof commandMetadata>[1], mode: CopierMode, fromAccountId?: string) => {
    if (caller.level === 'ACCOUNT' && !fromAccountId) {
      throw new ApiError(403, '[PROJECT_LEVEL_API_KEY_REQUIRED]', 'changing every copier of the project needs a project-level API key');
    }
    await setCopierModes(services, { projectId: caller.projectId, mode, ...(fromAccountId ? { fromAccountId } : {}), context });
    return { status: 204 };
  };

  const activeSlaveAccounts = async (projectId: string, masterId: string) => {
    const ids = await activeSlaveAccountIds(services.db, projectId, masterId);
    if (ids.length === 0) return [];
    return toAccountDTOs(services, projectId, await liveAccountsAmong(services.db, projectId, ids));
  };

  routes.add({
    method: 'get',
    path: '/types/scaleTypes',
    tag: 'Types',
    operationId: 'getScaleTypes',
    summary: 'Scale types 1 to 4 (CopierDTO.scaleType)',
    description:
      "1 Balance: master lot x slave balance / master balance x multiplier; 2 Equity: the same with equity; 3 Fixed lot size: fixedLotSize; 4 No scaling: master lot x multiplier (a copier's default).",
    responses: { 200: { description: 'the scale types', schema: Type.Array(ScaleTypeDTO) }, ...errorResponses(401) },
    handler: async () => ({ body: SCALE_TYPES.map((t) => toScaleTypeDTO(t.key)) }),
  });

  // Fixed paths under /accounts come before /accounts/{accountId}.
  routes.add({
    method: 'get',
    path: '/accounts/masters',
    tag: 'Copiers',
    operationId: 'listMasters',
    summary: 'Every account that has at least one slave, with its direct slaves',
    description:
      'Only direct slaves (copiers from this account that are active, monitor-only included); deleted accounts are left out on both sides; an account in the middle of a chain appears as a master and as a slave. Empty array: no master.',
    responses: { 200: { description: 'masters', schema: Type.Array(MasterAccountSummaryDTO) }, ...errorResponses(401, 403) },
    async handler({ caller }) {
      if (caller.level === 'ACCOUNT') throw new ApiError(403, '[PROJECT_LEVEL_API_KEY_REQUIRED]', 'the masters summary needs a project-level API key');
      const links = await slaveLinks(services.db, caller.projectId);
      const masters = [...new Set(links.map((l) => l.from_account_id))];
      const out = [];
      for (const masterId of masters) {
        const slaveAccounts = await activeSlaveAccounts(caller.projectId, masterId);
        if (slaveAccounts.length === 0) continue;
        const master = await findAccount(services.db, caller.projectId, masterId);
        if (!master) continue;
        const [masterAccount] = await toAccountDTOs(services, caller.projectId, [master]);
        out.push({ masterAccount, slaveAccounts, slaveCount: slaveAccounts.length });
      }
      return { body: out };
    },
  });

  for (const [mode, path, summary] of [
    ['activate', 'activateAllCopiers', 'Activate every copier of the project'],
    ['deactivate', 'deactivateAllCopiers', 'Deactivate every copier of the project'],
    ['monitorOnly', 'monitorOnlyAllCopiers', 'Switch every copier of the project to monitor-only'],
  ] as const) {
    routes.add({
      method: 'post',
      path: `/accounts/${path}`,
      tag: 'Copiers',
      operationId: path,
      summary,
      description: 'activate: active and not monitor-only; deactivate: not active; monitor-only: active and monitor-only.',
      responses: { 204: { description: 'done' }, ...errorResponses(401, 403) },
      handler: ({ caller, context }) => setMode(caller, context, mode),
    });
  }

  for (const [mode, path, summary] of [
    ['activate', 'activateSlavesCopier', 'Activate the copiers of every slave of this master'],
    ['deactivate', 'deactivateSlavesCopier', 'Deactivate the copiers of every slave of this master'],
    ['monitorOnly', 'monitorOnlySlavesCopier', 'Switch the copiers of every slave of this master to monitor-only'],
  ] as const) {
    routes.add<{ accountId: string }, unknown, unknown>({
      method: 'post',
      path: `/accounts/{accountId}/${path}`,
      tag: 'Copiers',
      operationId: path,
      summary,
      params: AccountIdParams,
      responses: { 204: { description: 'done' }, ...errorResponses(400, 401, 404) },
      async handler({ params, caller, context }) {
        await loadAccount(services, caller, params.accountId);
        return setMode(caller, context, mode, params.accountId);
      },
    });
  }

  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/slaves',
    tag: 'Copiers',
    operationId: 'listSlaves',
    summary: 'Slave accounts currently copying from this master',
    description: 'Accounts (not deleted) with an active copier (monitor-only included) from this account.',
    params: AccountIdParams,
    responses: { 200: { description: 'slave accounts', schema: Type.Array(AccountDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller }) {
      await loadAccount(services, caller, params.accountId);
      return { body: await activeSlaveAccounts(caller.projectId, params.accountId) };
    },
  });

  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/copiers',
    tag: 'Copiers',
    operationId: 'listCopiers',
    summary: 'The copiers of this (slave) account',
    params: AccountIdParams,
    responses: { 200: { description: 'copiers', schema: Type.Array(CopierDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller }) {
      await loadAccount(services, caller, params.accountId);
      const rows = await listCopiers(services.db, caller.projectId, params.accountId);
      return { body: rows.map((r) => toCopierDTO(r as CopierRow)) };
    },
  });

  routes.add<{ accountId: string }, unknown, Static<typeof CopierCreateDTO>>({
    method: 'post',
    path: '/accounts/{accountId}/copiers',
    tag: 'Copiers',
    operationId: 'createCopier',
    summary: 'Copy the trades of fromAccountId to this account',
    description:
      'The path account is the slave; members left out take their defaults. Refused: a master of another project or unknown (404 [ACCOUNT_NOT_FOUND]), a deleted account on either side (409 [ACCOUNT_DELETED]), the account itself (400 [COPIER_SELF_REFERENCE]), a second copier between the same two accounts (409 [COPIER_ALREADY_EXISTS]), a copier that closes a cycle (409 [COPIER_CYCLE]; the walk follows signal followers’ copiers into other projects, and writes that add copiers in any project are checked one at a time, so two sent together that would close a cycle between them get one 409), an unknown scaleType id (400 [VALIDATION_FAILED]). With fromStrategyId or toStrategyId (one at most, a strategy of the project, else 404 [STRATEGY_NOT_FOUND]) it is a strategy copier, as POST /projects/{projectId}/strategies/{strategyId}/copiers creates: a second copier between the same two accounts is allowed then for another strategy.',
    params: AccountIdParams,
    body: CopierCreateDTO,
    bodyRequired: true,
    responses: copierResponses,
    async handler({ params, body, caller, context }) {
      const slave = await loadAccount(services, caller, params.accountId);
      const settings = { ...defaultCopierSettings, ...fromCopierDTO(body) };
      const strategies = strategiesOf(body);
      const creation = { projectId: caller.projectId, slave, fromAccountId: body.fromAccountId, settings, context };
      const copierId =
        Object.keys(strategies).length > 0 ? await createStrategyCopier(services, { ...creation, strategies }) : await createCopier(services, creation);
      return { body: toCopierDTO(await loadCopier(caller, params.accountId, copierId)) };
    },
  });

  routes.add<{ accountId: string; copierId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/copiers/{copierId}',
    tag: 'Copiers',
    operationId: 'getCopier',
    summary: 'One copier',
    params: CopierParams,
    responses: copierResponses,
    handler: async ({ params, caller }) => ({ body: toCopierDTO(await loadCopier(caller, params.accountId, params.copierId)) }),
  });

  routes.add<{ accountId: string; copierId: string }, unknown, Static<typeof CopierUpdateDTO>>({
    method: 'put',
    path: '/accounts/{accountId}/copiers/{copierId}',
    tag: 'Copiers',
    operationId: 'updateCopier',
    summary: 'Change a copier',
    description:
      'Members present are changed, members left out keep their value. The master cannot change (400 [COPIER_MASTER_IMMUTABLE]), nor the strategy (400 [COPIER_STRATEGY_IMMUTABLE]): delete the copier and create another.',
    params: CopierParams,
    body: CopierUpdateDTO,
    bodyRequired: true,
    responses: copierResponses,
    async handler({ params, body, caller, context }) {
      const current = await loadCopier(caller, params.accountId, params.copierId);
      if (body.fromAccountId !== undefined && body.fromAccountId !== current.from_account_id) {
        throw new ApiError(400, '[COPIER_MASTER_IMMUTABLE]', 'the master of a copier cannot change');
      }
      checkStrategiesUnchanged(body, current);
      const result = await run({
        type: 'UpdateCopier',
        data: { copierId: params.copierId, projectId: caller.projectId, toAccountId: params.accountId, changes: fromCopierDTO(body) },
        metadata: commandMetadata(services, context),
      });
      // An activation with copyOpenPositions copies the master's open positions before the answer.
      if (result.events.some((e) => e.type === 'CopierUpdated' && e.data.changes.active === true) && result.state.settings?.copyOpenPositions) {
        await afterEngine(result.position);
      }
      return { body: toCopierDTO(await loadCopier(caller, params.accountId, params.copierId)) };
    },
  });

  routes.add<{ accountId: string; copierId: string }, unknown, unknown>({
    method: 'delete',
    path: '/accounts/{accountId}/copiers/{copierId}',
    tag: 'Copiers',
    operationId: 'deleteCopier',
    summary: 'Delete a copier',
    description: 'Copying stops; positions already copied stay open on the slave.',
    params: CopierParams,
    responses: { 200: { description: 'deleted' }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller, context }) {
      await loadCopier(caller, params.accountId, params.copierId);
      await run({
        type: 'DeleteCopier',
        data: { copierId: params.copierId, projectId: caller.projectId, toAccountId: params.accountId },
        metadata: commandMetadata(services, context),
      });
      return { status: 200 };
    },
  });

  routes.add<{ accountId: string; copierId: string }, unknown, unknown>({
    method: 'post',
    path: '/accounts/{accountId}/copiers/{copierId}/resync',
    tag: 'Copiers',
    operationId: 'resyncCopier',
    summary: 'Copy again what the slave is missing',
    description:
      'Every position and pending order open on the master that this copier holds no live copy of (never copied, or closed on the slave by hand or by its own stop) is copied now, sized and filtered like a new trade; what cannot be copied is logged with the reason. Answers once the engine has handled it.',
    params: CopierParams,
    responses: { 204: { description: 'resynced' }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller, context }) {
      await loadCopier(caller, params.accountId, params.copierId);
      const result = await run({
        type: 'ResyncCopier',
        data: { copierId: params.copierId, projectId: caller.projectId, toAccountId: params.accountId },
        metadata: commandMetadata(services, context),
      });
      await afterEngine(result.position);
      return { status: 204 };
    },
  });
};
