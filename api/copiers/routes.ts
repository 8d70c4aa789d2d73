// The copier area (spec: "Copiers", "Copier mode", and the copier rows of "Accounts"): copiers under their
// slave account, the six copier-mode operations, slaves of a master, and the masters summary.
import { randomUUID } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import { AccountStatus } from '../../domain/account/enums.js';
import type { CopierCommand } from '../../domain/copier/commands.js';
import { copierDecider } from '../../domain/copier/decider.js';
import { copierStream } from '../../domain/copier/events.js';
import { type CopierSettings, defaultCopierSettings } from '../../domain/copier/settings.js';
import { findAccount } from '../../projections/accounts/queries.js';
import { copierEdges, copierIdsFor, findCopier, listCopiers, slaveLinks, wouldCloseCycle } from '../../projections/copiers/queries.js';
import type { CopiersTable } from '../../projections/schema.js';
import { handleCommand } from '../../store/commandHandler.js';
import { comparePositions, type Position } from '../../store/port.js';
import { toAccountDTOs } from '../accounts/dto.js';
import { checkAccountScope, loadAccount } from '../accounts/routes.js';
import { AccountDTO, AccountIdParams } from '../accounts/schemas.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import { commandMetadata, execute, oneAtATime, type Services } from '../services.js';
import { errorResponses } from '../shared/schemas.js';
import { CopierCreateDTO, CopierDTO, CopierParams, CopierUpdateDTO, MasterAccountSummaryDTO } from './schemas.js';

type CopierRow = Selectable<CopiersTable> & { from_account_alias: string | null };

const settingKeys = Object.keys(defaultCopierSettings) as (keyof CopierSettings)[];

const toCopierDTO = (row: CopierRow) => ({
  id: row.id,
  fromAccountId: row.from_account_id,
  fromAccountAlias: row.from_account_alias,
  toAccountId: row.to_account_id,
  created: new Date(row.created).toISOString(),
  ...defaultCopierSettings,
  ...(row.settings as CopierSettings),
});

const pickSettings = (body: Record<string, unknown>): Partial<CopierSettings> =>
  Object.fromEntries(settingKeys.filter((k) => body[k] !== undefined).map((k) => [k, body[k]])) as Partial<CopierSettings>;

const copierNotFound = (copierId: string) => new ApiError(404, '[COPIER_NOT_FOUND]', `copier ${copierId} not found`);

/** The effect of each copier-mode operation on a copier (spec: "Copier mode"). */
const modes = {
  activate: { active: true, monitorOnly: false },
  deactivate: { active: false },
  monitorOnly: { active: true, monitorOnly: true },
} as const satisfies Record<string, Partial<CopierSettings>>;

export const copierRoutes = (routes: Routes, services: Services): void => {
  const loadCopier = async (caller: Caller, accountId: string, copierId: string): Promise<CopierRow> => {
    checkAccountScope(caller, accountId);
    const row = await findCopier(services.db, caller.projectId, accountId, copierId);
    if (!row) throw copierNotFound(copierId);
    return row as CopierRow;
  };
  const run = (command: CopierCommand) => execute(services, copierStream(command.data.copierId), copierDecider, command);
  const copierResponses = { 200: { description: 'the copier', schema: CopierDTO }, ...errorResponses(400, 401, 404, 409) };

  /** Applies a mode to many copiers, then waits once for the read models. */
  const setMode = async (caller: Caller, context: Parameters<typeof commandMetadata>[1], mode: keyof typeof modes, fromAccountId?: string) => {
    if (caller.level === 'ACCOUNT' && !fromAccountId) {
      throw new ApiError(403, '[PROJECT_LEVEL_API_KEY_REQUIRED]', 'changing every copier of the project needs a project-level API key');
    }
    const copiers = await copierIdsFor(services.db, caller.projectId, fromAccountId);
    let last: Position | null = null;
    for (const c of copiers) {
      const result = await handleCommand(services.store, copierStream(c.id), copierDecider, {
        type: 'UpdateCopier',
        data: { copierId: c.id, projectId: caller.projectId, toAccountId: c.to_account_id, changes: modes[mode] },
        metadata: commandMetadata(services, context),
      });
      if (result.position && (!last || comparePositions(result.position, last) > 0)) last = result.position;
    }
    if (last) await services.runner.waitFor(last, services.config.readModelWaitMs);
    return { status: 204 };
  };

  const activeSlaveAccounts = async (projectId: string, masterId: string) => {
    const copiers = await services.db.selectFrom('copiers').select('to_account_id').where('project_id', '=', projectId)
      .where('from_account_id', '=', masterId).where('active', '=', true).execute();
    const ids = [...new Set(copiers.map((c) => c.to_account_id))];
    if (ids.length === 0) return [];
    const rows = await services.db.selectFrom('accounts').selectAll().where('project_id', '=', projectId).where('id', 'in', ids)
      .where('account_status_id', '<>', AccountStatus.Deleted).orderBy('created').orderBy('id').execute();
    return toAccountDTOs(services.db, projectId, rows);
  };

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
        const [masterAccount] = await toAccountDTOs(services.db, caller.projectId, [master]);
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
      'The path account is the slave. Refused: a master of another project or unknown (404 [ACCOUNT_NOT_FOUND]), a deleted account on either side (409 [ACCOUNT_DELETED]), the account itself (400 [COPIER_SELF_REFERENCE]), a second copier between the same two accounts (409 [COPIER_ALREADY_EXISTS]), a copier that closes a cycle (409 [COPIER_CYCLE]).',
    params: AccountIdParams,
    body: CopierCreateDTO,
    bodyRequired: true,
    responses: copierResponses,
    async handler({ params, body, caller, context }) {
      const slave = await loadAccount(services, caller, params.accountId);
      const copierId = randomUUID();
      const settings: CopierSettings = { ...defaultCopierSettings, ...pickSettings(body) };
      const command: CopierCommand = {
        type: 'CreateCopier',
        data: { copierId, projectId: caller.projectId, toAccountId: params.accountId, fromAccountId: body.fromAccountId, settings },
        metadata: commandMetadata(services, context),
      };
      copierDecider.decide(command, copierDecider.initialState);
      // The graph checks and the write are one step per project.
      await oneAtATime(services, `copier-graph:${caller.projectId}`, async () => {
        const master = await findAccount(services.db, caller.projectId, body.fromAccountId);
        if (!master) throw new ApiError(404, '[ACCOUNT_NOT_FOUND]', `master account ${body.fromAccountId} not found`);
        for (const account of [master, slave]) {
          if (account.account_status_id === AccountStatus.Deleted) {
            throw new ApiError(409, '[ACCOUNT_DELETED]', `account ${account.id} was deleted`);
          }
        }
        const edges = await copierEdges(services.db, caller.projectId);
        if (edges.some((e) => e.from_account_id === body.fromAccountId && e.to_account_id === params.accountId)) {
          throw new ApiError(409, '[COPIER_ALREADY_EXISTS]', 'this account already copies from that master');
        }
        if (wouldCloseCycle(edges, body.fromAccountId, params.accountId)) {
          throw new ApiError(409, '[COPIER_CYCLE]', 'this copier would close a cycle: the master already copies from this account, directly or through others');
        }
        await run(command);
      });
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
    description: 'Members present are changed, members left out keep their value. The master cannot change (400 [COPIER_MASTER_IMMUTABLE]): delete the copier and create another.',
    params: CopierParams,
    body: CopierUpdateDTO,
    bodyRequired: true,
    responses: copierResponses,
    async handler({ params, body, caller, context }) {
      const current = await loadCopier(caller, params.accountId, params.copierId);
      if (body.fromAccountId !== undefined && body.fromAccountId !== current.from_account_id) {
        throw new ApiError(400, '[COPIER_MASTER_IMMUTABLE]', 'the master of a copier cannot change');
      }
      await run({
        type: 'UpdateCopier',
        data: { copierId: params.copierId, projectId: caller.projectId, toAccountId: params.accountId, changes: pickSettings(body) },
        metadata: commandMetadata(services, context),
      });
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
};
