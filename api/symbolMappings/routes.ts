// Symbol mappings (reference SymbolMappingDTO, spec "Copiers"):
//   GET, POST          /projects/{projectId}/symbolMappings                     the project's mappings
//   GET, PUT, DELETE   /projects/{projectId}/symbolMappings/{symbolMappingId}
//   POST               /accounts/{accountId}/symbolMappings                     where given symbols go at the account
//   GET                /accounts/{accountId}/copiers/{copierId}/symbolMappings/current   where the master's symbols go
// and our own view of a copier's explicit mappings (GET, PUT .../copiers/{copierId}/symbolMappings).
// A project mapping is a command on the project's mappings (domain/symbolMapping), read back from the
// symbol_mappings read model; the copy engine resolves symbols through the same rules.
import { type Static, Type } from '@sinclair/typebox';
import type { CopierCommand } from '../../domain/copier/commands.js';
import { copierDecider } from '../../domain/copier/decider.js';
import { copierStream } from '../../domain/copier/events.js';
import type { SymbolMappingCommand } from '../../domain/symbolMapping/commands.js';
import { symbolMappingDecider } from '../../domain/symbolMapping/decider.js';
import { symbolMappingStream } from '../../domain/symbolMapping/events.js';
import { findAccount } from '../../projections/accounts/queries.js';
import { findCopier } from '../../projections/copiers/queries.js';
import { findSymbolMapping, projectSymbolMappings } from '../../projections/symbolMappings/queries.js';
import { COPIER_READ_MODELS } from '../../app/commands/createCopier.js';
import { commandMetadata, execute, type Services } from '../../app/services.js';
import { mappingsInEffect, symbolsOfAccount } from '../../app/symbolMappings.js';
import { CopierParams } from '../copiers/schemas.js';
import { AccountIdParams } from '../accounts/schemas.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import { checkAccountScope, loadAccount } from '../shared/accounts.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses } from '../shared/schemas.js';
import { explicitMappingsOf, fromSymbolMappingDTO, toCopierSymbolMappingDTOs, toMappingInEffectDTO, toSymbolMappingDTO } from './dto.js';
import {
  CopierSymbolMappingDTO,
  CopierSymbolMappingWriteDTO,
  ProjectParams,
  RequestSymbolMappingsDTO,
  SymbolMappingDTO,
  SymbolMappingParams,
  SymbolMappingWriteDTO,
} from './schemas.js';

type WriteBody = Static<typeof SymbolMappingWriteDTO>;

const TAG = 'Symbol mappings';
const READ_MODELS = ['symbol_mappings'];

const rulesDescription =
  "A project mapping sends the master symbol `from` to the slave symbol `to` for every copier of the project whose master account's loginServer matches `brokerFrom` and whose slave account's loginServer matches `brokerTo`. When a copier copies a symbol, its own mappings (PUT .../copiers/{copierId}/symbolMappings) come first, then the project mappings of the symbol in priority order (the first whose `to` the slave offers wins; when none is offered the trade is not copied, SYMBOL_NOT_MAPPED), then the name (case, separators, broker affixes). A change applies to the next trade copied.";

export const symbolMappingRoutes = (routes: Routes, services: Services): void => {
  const run = (command: SymbolMappingCommand) => execute(services, symbolMappingStream(command.data.projectId), symbolMappingDecider, command, READ_MODELS);
  const runCopier = (command: CopierCommand) => execute(services, copierStream(command.data.copierId), copierDecider, command, COPIER_READ_MODELS);

  const loadMapping = async (projectId: string, symbolMappingId: number) => {
    const row = await findSymbolMapping(services.db, projectId, symbolMappingId);
    if (!row) throw new ApiError(404, '[SYMBOL_MAPPING_NOT_FOUND]', `symbol mapping ${symbolMappingId} not found`);
    return row;
  };
  const loadCopier = async (caller: Caller, accountId: string, copierId: string) => {
    checkAccountScope(caller, accountId);
    const row = await findCopier(services.db, caller.projectId, accountId, copierId);
    if (!row) throw new ApiError(404, '[COPIER_NOT_FOUND]', `copier ${copierId} not found`);
    return row;
  };
  const scope = (caller: Caller, projectId: string) => checkProjectScope(caller, projectId, 'project symbol mappings');

  const one = { 200: { description: 'the symbol mapping', schema: SymbolMappingDTO }, ...errorResponses(400, 401, 403, 404, 409) };
  const writeDescription = `${rulesDescription} from and to are required (1 to 255 characters), brokerFrom and brokerTo too (regular expressions; '.*' or '' for every broker), priority an integer of 0 or more; id, projectId and brokerToSuggestion are read-only and ignored when sent. Invalid members give 400 [VALIDATION_FAILED]; a second mapping of the same from, to, brokerFrom and brokerTo 409 [SYMBOL_MAPPING_ALREADY_EXISTS]; a project holds at most 1000 (409 [SYMBOL_MAPPING_LIMIT_REACHED]). Needs a project-level key of this project.`;

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/symbolMappings',
    tag: TAG,
    operationId: 'getProjectSymbolMappings',
    summary: "The project's symbol mappings",
    description: `Oldest first. ${rulesDescription} Needs a project-level key of this project.`,
    params: ProjectParams,
    responses: { 200: { description: 'the mappings', schema: Type.Array(SymbolMappingDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      return { body: (await projectSymbolMappings(services.db, scope(caller, params.projectId))).map(toSymbolMappingDTO) };
    },
  });
  routes.add<{ projectId: string }, unknown, WriteBody>({
    method: 'post',
    path: '/projects/{projectId}/symbolMappings',
    tag: TAG,
    operationId: 'createProjectSymbolMapping',
    summary: 'Create a symbol mapping',
    description: `${writeDescription} Ids are numbered per project (1, 2, 3 ...) and never reused.`,
    params: ProjectParams,
    body: SymbolMappingWriteDTO,
    bodyRequired: true,
    responses: one,
    async handler({ params, caller, context, body }) {
      const projectId = scope(caller, params.projectId);
      const result = await run({
        type: 'CreateSymbolMapping',
        data: { projectId, mapping: fromSymbolMappingDTO(body) },
        metadata: commandMetadata(services, context),
      });
      const created = result.events.find((e) => e.type === 'SymbolMappingCreated');
      if (!created) throw new Error('a created symbol mapping without its event');
      return { body: toSymbolMappingDTO(await loadMapping(projectId, created.data.symbolMappingId)) };
    },
  });
  routes.add<{ projectId: string; symbolMappingId: number }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/symbolMappings/{symbolMappingId}',
    tag: TAG,
    operationId: 'getProjectSymbolMapping',
    summary: 'One symbol mapping',
    params: SymbolMappingParams,
    responses: one,
    async handler({ params, caller }) {
      return { body: toSymbolMappingDTO(await loadMapping(scope(caller, params.projectId), params.symbolMappingId)) };
    },
  });
  routes.add<{ projectId: string; symbolMappingId: number }, unknown, WriteBody>({
    method: 'put',
    path: '/projects/{projectId}/symbolMappings/{symbolMappingId}',
    tag: TAG,
    operationId: 'updateProjectSymbolMapping',
    summary: 'Replace a symbol mapping',
    description: `Every member is replaced. ${writeDescription}`,
    params: SymbolMappingParams,
    body: SymbolMappingWriteDTO,
    bodyRequired: true,
    responses: one,
    async handler({ params, caller, context, body }) {
      const projectId = scope(caller, params.projectId);
      await loadMapping(projectId, params.symbolMappingId);
      await run({
        type: 'UpdateSymbolMapping',
        data: { projectId, symbolMappingId: params.symbolMappingId, mapping: fromSymbolMappingDTO(body) },
        metadata: commandMetadata(services, context),
      });
      return { body: toSymbolMappingDTO(await loadMapping(projectId, params.symbolMappingId)) };
    },
  });
  routes.add<{ projectId: string; symbolMappingId: number }, unknown, unknown>({
    method: 'delete',
    path: '/projects/{projectId}/symbolMappings/{symbolMappingId}',
    tag: TAG,
    operationId: 'deleteProjectSymbolMapping',
    summary: 'Delete a symbol mapping',
    description: 'The next trade copied no longer uses it. Its id is not given again. Needs a project-level key of this project.',
    params: SymbolMappingParams,
    responses: { 200: { description: 'deleted' }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, context }) {
      const projectId = scope(caller, params.projectId);
      await loadMapping(projectId, params.symbolMappingId);
      await run({ type: 'DeleteSymbolMapping', data: { projectId, symbolMappingId: params.symbolMappingId }, metadata: commandMetadata(services, context) });
      return { status: 200 };
    },
  });

  routes.add<{ accountId: string }, unknown, Static<typeof RequestSymbolMappingsDTO>>({
    method: 'post',
    path: '/accounts/{accountId}/symbolMappings',
    tag: TAG,
    operationId: 'getAccountSymbolMappings',
    summary: 'Where the given symbols would go at this account',
    description: `For each symbol sent (a master's symbols, from the broker named by loginServer), in the order sent: the slave symbol of this account it would be copied to (\`to\`, empty when none), by the project's mappings that apply from loginServer to this account's loginServer (\`id\`, \`priority\`), else by name, with brokerToSuggestion listing the candidates when the name alone finds several. A copier's own mappings are not involved (see .../copiers/{copierId}/symbolMappings/current). Uses the account's broker symbol list when it is connected, else the built-in venue's catalogue. Changes nothing (a POST because the reference declares one).`,
    params: AccountIdParams,
    body: RequestSymbolMappingsDTO,
    bodyRequired: true,
    responses: { 200: { description: 'one mapping per symbol sent', schema: Type.Array(SymbolMappingDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller, body }) {
      const account = await loadAccount(services, caller, params.accountId);
      const effect = await mappingsInEffect(services, {
        projectId: caller.projectId,
        masterSymbols: body.symbols,
        brokerFrom: body.loginServer ?? '',
        slave: account,
      });
      return { body: effect.map((e) => toMappingInEffectDTO(caller.projectId, e)) };
    },
  });

  routes.add<{ accountId: string; copierId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/copiers/{copierId}/symbolMappings/current',
    tag: TAG,
    operationId: 'getAccountCopierCurrentSymbolMappings',
    summary: 'Where each master symbol goes on the slave, now',
    description:
      "For every symbol of the master's broker: `from` the master symbol, `to` the slave symbol its trades are copied to (empty: not copied), brokerFrom and brokerTo the master's and the slave's loginServer, `id` and `priority` of the project mapping used if one was, brokerToSuggestion the candidates when the name alone finds several; and ours: masterSymbol, slaveSymbol (null: not copied) and source (EXPLICIT, PROJECT, AUTOMATIC, UNMAPPED). Uses the brokers' symbol lists of the connected accounts, or the built-in venue's catalogue.",
    params: CopierParams,
    responses: { 200: { description: 'mappings in effect', schema: Type.Array(SymbolMappingDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller }) {
      const copier = await loadCopier(caller, params.accountId, params.copierId);
      const [master, slave] = await Promise.all([
        findAccount(services.db, caller.projectId, copier.from_account_id),
        findAccount(services.db, caller.projectId, copier.to_account_id),
      ]);
      const effect = await mappingsInEffect(services, {
        projectId: caller.projectId,
        masterSymbols: await symbolsOfAccount(services, copier.from_account_id),
        brokerFrom: master?.login_server ?? '',
        slave: { id: copier.to_account_id, login_server: slave?.login_server ?? '' },
        overrides: explicitMappingsOf(copier),
      });
      return { body: effect.map((e) => toMappingInEffectDTO(caller.projectId, e)) };
    },
  });

  routes.add<{ accountId: string; copierId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/copiers/{copierId}/symbolMappings',
    tag: TAG,
    operationId: 'listSymbolMappings',
    summary: 'The explicit symbol mappings of the copier',
    description: 'Ours: the mappings of this copier alone, master symbol to slave symbol; they come before the project mappings.',
    params: CopierParams,
    responses: { 200: { description: 'explicit mappings', schema: Type.Array(CopierSymbolMappingDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller }) {
      return { body: toCopierSymbolMappingDTOs(await loadCopier(caller, params.accountId, params.copierId)) };
    },
  });
  routes.add<{ accountId: string; copierId: string }, unknown, Static<typeof CopierSymbolMappingWriteDTO>[]>({
    method: 'put',
    path: '/accounts/{accountId}/copiers/{copierId}/symbolMappings',
    tag: TAG,
    operationId: 'setSymbolMappings',
    summary: 'Replace the explicit symbol mappings of the copier',
    description:
      'Ours. Brokers name the same instrument differently (EURUSD, EURUSD.m, EURUSDpro, GOLD for XAUUSD). Without a mapping the copier uses the project mappings (/projects/{projectId}/symbolMappings), then finds the slave symbol by name; an explicit mapping of the copier wins over both, and a mapping to a symbol the slave does not offer means the symbol is not copied (SYMBOL_NOT_MAPPED). An empty array removes them all. One mapping per master symbol (case-insensitive), or 400.',
    params: CopierParams,
    body: Type.Array(CopierSymbolMappingWriteDTO, { maxItems: 500 }),
    bodyRequired: true,
    responses: { 200: { description: 'the explicit mappings now', schema: Type.Array(CopierSymbolMappingDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller, body, context }) {
      await loadCopier(caller, params.accountId, params.copierId);
      await runCopier({
        type: 'SetSymbolMappings',
        data: {
          copierId: params.copierId,
          projectId: caller.projectId,
          toAccountId: params.accountId,
          mappings: Object.fromEntries(body.map((m) => [m.masterSymbol, m.slaveSymbol])),
        },
        metadata: commandMetadata(services, context),
      });
      return { body: toCopierSymbolMappingDTOs(await loadCopier(caller, params.accountId, params.copierId)) };
    },
  });
};
