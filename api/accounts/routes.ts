// The account area (spec: "Accounts"): list, create (synchronous, or asynchronous with callbackUrl),
// read, update, delete, start, stop, reconnect.
import { randomUUID } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import type { AccountCommand } from '../../domain/account/commands.js';
import { type Account, accountDecider } from '../../domain/account/decider.js';
import { AccountStatus } from '../../domain/account/enums.js';
import { accountStream } from '../../domain/account/events.js';
import { checkOutboundUrl, OutboundUrlError, type OutboundRefusal, parseOutboundUrl } from '../../app/outbound.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import { commandMetadata, execute, type Services, settle } from '../../app/services.js';
import { type AggregateState, aggregateStream } from '../../store/commandHandler.js';
import { accountNotFound, checkAccountScope, loadAccount } from '../shared/accounts.js';
import { ErrorDTO, errorResponses } from '../shared/schemas.js';
import { AsyncAccountCreationResponseDTO, asyncCreationRoutes } from './asyncRoutes.js';
import { type AccountCreation, createAccountNow, precheckCreation } from '../../app/commands/createAccount.js';
import {
  accountAnswer,
  accountDTOsAmong,
  accountListAnswer,
  createdAccountDTO,
  type CreateBody,
  fromAccountCreateDTO,
  fromAccountUpdateDTO,
  toAsyncCreationDTO,
  type UpdateBody,
} from './dto.js';
import { informationRoutes } from './information.js';
import { labelRoutes } from './labels.js';
import { AccountCreateDTO, AccountDTO, AccountIdParams, AccountQuery, AccountUpdateDTO } from './schemas.js';

const callbackCodes: Record<OutboundRefusal, string> = {
  EMPTY: '[CALLBACK_URL_REQUIRED]',
  INVALID: '[CALLBACK_URL_INVALID]',
  PROTOCOL: '[CALLBACK_URL_INVALID_PROTOCOL]',
  NOT_ALLOWED: '[CALLBACK_URL_NOT_ALLOWED]',
};

const callbackError = (error: unknown): unknown =>
  error instanceof OutboundUrlError ? new ApiError(400, callbackCodes[error.reason], `callbackUrl: ${error.message}`) : error;

/**
 * Spec "Errors" 1: callback URL checks run before anything else, the address check (engine/delivery/
 * outboundUrl.ts: no loopback, private, link-local... host, also after DNS resolution) after the region
 * and type codes, all before the 202.
 */
const checkCallbackSyntax = (url: string, allowPrivate: boolean): void => {
  try {
    parseOutboundUrl(url, allowPrivate);
  } catch (error) {
    // The address of an IP literal is judged with the DNS check, after the region and type codes.
    if (error instanceof OutboundUrlError && error.reason === 'NOT_ALLOWED') return;
    throw callbackError(error);
  }
};

const accountResponses = { 200: { description: 'the account', schema: AccountDTO }, ...errorResponses(400, 401, 404, 409) };

export const accountRoutes = (routes: Routes, services: Services): void => {
  const run = (accountId: string, command: AccountCommand) => execute(services, accountStream(accountId), accountDecider, command);

  /** The account as the caller may see it, with its state, after a change: one query. */
  const respondWithAccount = async (caller: Caller, accountId: string) => {
    checkAccountScope(caller, accountId);
    const [account] = await accountDTOsAmong(services, caller.projectId, [accountId]);
    if (!account) throw accountNotFound(accountId);
    return { body: account };
  };

  /** The account just created: as its events make it while the read models lag behind (never 404 for it). */
  const respondWithCreated = async (caller: Caller, accountId: string) => {
    const account = await createdAccountDTO(services, caller.projectId, accountId);
    if (!account) throw accountNotFound(accountId);
    return { body: account };
  };

  // Before /accounts/{accountId}: the router tries routes in order.
  asyncCreationRoutes(routes, services);

  routes.add<unknown, Static<typeof AccountQuery>, unknown>({
    method: 'get',
    path: '/accounts',
    tag: 'Accounts',
    operationId: 'listAccounts',
    summary: 'List the accounts of the project',
    description:
      'Filters combine with AND. Text filters are case-insensitive partial matches (% and _ match themselves; an empty filter matches everything). Ordered by creation time. An account-level key sees only its own account.',
    query: AccountQuery,
    responses: { 200: { description: 'accounts', schema: Type.Array(AccountDTO) }, ...errorResponses(400, 401) },
    checksKey: true,
    async handler({ query, caller, keyCheck, lane }) {
      return accountListAnswer(services, caller.projectId, { limit: 1000, ...query, onlyAccountId: caller.accountId }, keyCheck, lane);
    },
  });

  routes.add<unknown, unknown, CreateBody>({
    method: 'post',
    path: '/accounts',
    tag: 'Accounts',
    operationId: 'createAccount',
    summary: 'Create an account',
    description: `Synchronous (no callbackUrl): answers 200 once the account exists and every read model includes it; when they lag behind it longer than READ_MODEL_WAIT_MS (heavy load), the 200 carries the account as created, and reads show it once they catch up. The account starts in status New (status {id: 1}); POST .../actions/start connects it. type {id} and region {id} are required; an unknown id gives 404 [ACCOUNT_TYPE_NOT_FOUND] / [REGION_NOT_FOUND]. Secrets (loginAccountPassword, ctraderClientSecret, myHomeIp.password) are stored encrypted and answered as "********".

Every account gets an account-level API key (it sees only this account and cannot create accounts; GET /accounts/{accountId}/apiKeys lists it). Its value is shown once: in the X-Account-Api-Key header of the 200 answer (its id in X-Account-Api-Key-Id), or in the callback body of an asynchronous creation (member accountApiKey). Lost values are replaced with POST /projects/{projectId}/apiKeys/{apiKeyId}/rotate.

Asynchronous (callbackUrl): the URL is checked first ([CALLBACK_URL_REQUIRED], [CALLBACK_URL_INVALID], [CALLBACK_URL_INVALID_PROTOCOL]), then the region and account type (404), then its address: a host that is or resolves to a loopback, private, link-local, unique-local, CGNAT or metadata address gives 400 [CALLBACK_URL_NOT_ALLOWED]. Then 202 with the requestId; creations of a project run one at a time, in the order accepted (failIfAccountExistsInProject is judged when the turn comes: a duplicate ends FAILED with [ACCOUNT_ALREADY_EXISTS]). The outcome is POSTed to callbackUrl once (Content-Type: application/json, X-Request-Id: the requestId; body: requestId, status, and account with accountApiKey, or error); any 2xx acknowledges; 3 attempts, 2 s after the first and 4 s after the second; redirects are not followed. Delivery is at least once: a receiver should deduplicate by X-Request-Id. GET /accounts/async/{requestId} tells the same for 1 hour after completion.`,
    body: AccountCreateDTO,
    bodyRequired: true,
    responses: {
      200: {
        description: 'the created account',
        schema: AccountDTO,
        headers: {
          'X-Account-Api-Key': { description: "the value of the account's account-level API key; shown only here", schema: Type.String() },
          'X-Account-Api-Key-Id': { description: 'its id', schema: Type.String({ format: 'uuid' }) },
        },
      },
      202: { description: 'queued (callbackUrl given)', schema: AsyncAccountCreationResponseDTO },
      ...errorResponses(400, 401, 403, 404, 409),
      503: {
        description: `${errorResponses(503)[503]!.description}; [READ_MODELS_BEHIND]: with failIfAccountExistsInProject, the read models lag behind the latest writes (heavy load) so the duplicate check cannot be made yet; nothing was created; Retry-After says when to try again`,
        schema: ErrorDTO,
      },
    },
    async handler({ body, caller, context }) {
      if (caller.level === 'ACCOUNT') {
        throw new ApiError(403, '[ACCOUNT_LEVEL_API_KEY_CANNOT_CREATE_ACCOUNTS]', 'creating accounts needs a project-level API key');
      }
      const allowPrivate = services.config.allowPrivateOutbound;
      if (body.callbackUrl !== undefined) checkCallbackSyntax(body.callbackUrl, allowPrivate);
      const creation: AccountCreation = {
        accountId: randomUUID(),
        projectId: caller.projectId,
        settings: fromAccountCreateDTO(services, body),
        failIfAccountExistsInProject: body.failIfAccountExistsInProject ?? false,
        context,
      };
      // Codes first (spec: region and type errors come before anything else), then duplicates.
      precheckCreation(services, creation);
      if (body.callbackUrl !== undefined) {
        const url = await checkOutboundUrl(body.callbackUrl, { allowPrivate }).catch((error: unknown) => {
          throw callbackError(error);
        });
        const row = await services.accountCreations.enqueue({
          requestId: randomUUID(),
          projectId: creation.projectId,
          accountId: creation.accountId,
          settings: creation.settings,
          failIfExists: creation.failIfAccountExistsInProject,
          callbackUrl: url.toString(),
          context,
        });
        return { status: 202, body: await toAsyncCreationDTO(services, row) };
      }
      const key = await createAccountNow(services, creation);
      return { ...(await respondWithCreated(caller, creation.accountId)), headers: { 'X-Account-Api-Key': key.key, 'X-Account-Api-Key-Id': key.apiKeyId } };
    },
  });

  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}',
    tag: 'Accounts',
    operationId: 'getAccount',
    summary: 'One account',
    params: AccountIdParams,
    responses: accountResponses,
    checksKey: true,
    async handler({ params, caller, keyCheck, lane }) {
      checkAccountScope(caller, params.accountId);
      const answer = await accountAnswer(services, caller.projectId, params.accountId, keyCheck, lane);
      if (!answer) throw accountNotFound(params.accountId);
      return answer;
    },
  });

  routes.add<{ accountId: string }, unknown, UpdateBody>({
    method: 'put',
    path: '/accounts/{accountId}',
    tag: 'Accounts',
    operationId: 'updateAccount',
    summary: 'Change an account',
    description:
      'Members present are changed, members left out keep their value (labels: null keeps them, [] removes them). loginAccountPassword "" (as the reference\'s clients send) or "********" keeps the stored password; so does the masked secret of ctraderClientSecret and myHomeIp.password. The AccountDTO of a GET may be sent back as it is: read-only members are ignored. A deleted account gives 409 [ACCOUNT_DELETED].',
    params: AccountIdParams,
    body: AccountUpdateDTO,
    bodyRequired: true,
    responses: accountResponses,
    async handler({ params, body, caller, context }) {
      checkAccountScope(caller, params.accountId);
      await run(params.accountId, {
        type: 'UpdateAccount',
        data: { accountId: params.accountId, projectId: caller.projectId, changes: fromAccountUpdateDTO(services, body) },
        metadata: commandMetadata(services, context),
      });
      return respondWithAccount(caller, params.accountId);
    },
  });

  /**
   * delete, start, stop: a command on one account that answers with the account as it is afterwards.
   * Start opens the venue session first, so a refused login changes nothing; stop and delete end it.
   */
  const lifecycle = (
    method: 'post' | 'delete',
    path: string,
    type: 'DeleteAccount' | 'StartAccount' | 'StopAccount',
    operationId: string,
    summary: string,
    description: string,
  ) =>
    routes.add<{ accountId: string }, unknown, unknown>({
      method,
      path,
      tag: 'Accounts',
      operationId,
      summary,
      description,
      params: AccountIdParams,
      responses:
        type === 'DeleteAccount'
          ? { 200: { description: 'deleted (no body, as the reference answers)' }, ...errorResponses(400, 401, 404, 409) }
          : accountResponses,
      async handler({ params, caller, context }) {
        const account = await loadAccount(services, caller, params.accountId);
        let known: AggregateState<Account> | undefined;
        if (type === 'StartAccount' && account.account_status_id !== AccountStatus.Deleted) {
          // An account without a session: its stream read once, for the venue login and the start's
          // decision (a decision of nothing reads on from it: the stream may have moved during the login).
          if (!services.connections.isConnected(params.accountId))
            known = await aggregateStream(services.store, accountStream(params.accountId), accountDecider.evolve, accountDecider.initialState);
          // A refused login is in the account logs by the time the 400 answers.
          await services.connections.connect(params.accountId, known).catch(async (error: unknown) => {
            await settle(services);
            throw error;
          });
        }
        await execute(
          services,
          accountStream(params.accountId),
          accountDecider,
          { type, data: { accountId: params.accountId, projectId: caller.projectId }, metadata: commandMetadata(services, context) },
          undefined,
          known ? { known, knownMayBeBehind: true } : {},
        );
        if (type !== 'StartAccount') {
          await services.connections.disconnect(params.accountId, type === 'StopAccount' ? 'stopped' : 'deleted');
          await settle(services);
        }
        if (type === 'DeleteAccount') return { status: 200 };
        return respondWithAccount(caller, params.accountId);
      },
    });
  lifecycle(
    'delete',
    '/accounts/{accountId}',
    'DeleteAccount',
    'deleteAccount',
    'Delete an account (final)',
    'The account moves to status Deleted (4) and refuses every later change; its broker session ends and copying from and to it stops. Deleting it again changes nothing. Answers 200 without a body (as the reference does); GET /accounts/{accountId} still shows the deleted account, with `deleted` set.',
  );
  lifecycle(
    'post',
    '/accounts/{accountId}/actions/start',
    'StartAccount',
    'startAccount',
    'Start (connect) an account',
    `New or Stopped becomes Active; Active stays Active. A deleted account gives 409 [ACCOUNT_DELETED].

Start connects to the account's venue first; when the broker refuses the login the status does not change and the answer is 400 [INVALID_CREDENTIALS] (the account's logs keep the refusal). Every account type trades at the built-in simulated venue, whose rule is: the venue login is \`<loginServer>/<loginAccountNumber>\`; the first connection to a login it does not know opens a demo account there with that password (10,000 in the account currency, which is the first three-letter word of loginServer that is a currency the venue keeps: USD, EUR, GBP or JPY, e.g. Simulated-EUR-Demo; USD when none; leverage 1:100, netting when loginServer contains "netting", hedging otherwise); every later connection must present the same password.`,
  );
  lifecycle(
    'post',
    '/accounts/{accountId}/actions/stop',
    'StopAccount',
    'stopAccount',
    'Stop (disconnect) an account',
    'New or Active becomes Stopped; Stopped stays Stopped. The broker session ends: nothing is copied from or to the account until it starts again; positions stay open at the broker. A deleted account gives 409 [ACCOUNT_DELETED].',
  );

  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'post',
    path: '/accounts/{accountId}/actions/reconnect',
    tag: 'Accounts',
    operationId: 'reconnectAccount',
    summary: 'Reconnect to the broker without a restart',
    description:
      'Only an Active account (409 [ACCOUNT_NOT_ACTIVE] otherwise). At most once every 30 minutes per account: earlier gives 429 [RECONNECT_TOO_FREQUENT] with a Retry-After header and details.nextAllowedAt.',
    params: AccountIdParams,
    responses: {
      204: { description: 'reconnect requested' },
      ...errorResponses(400, 401, 404, 409),
      429: {
        description: 'reconnected less than 30 minutes ago ([RECONNECT_TOO_FREQUENT]); details.nextAllowedAt says when',
        schema: ErrorDTO,
        headers: { 'Retry-After': { description: 'seconds until a reconnect is allowed', schema: Type.Integer({ minimum: 1 }) } },
      },
    },
    async handler({ params, caller, context }) {
      checkAccountScope(caller, params.accountId);
      await run(params.accountId, {
        type: 'ReconnectAccount',
        data: { accountId: params.accountId, projectId: caller.projectId },
        metadata: commandMetadata(services, context),
      });
      await services.connections.disconnect(params.accountId, 'reconnect');
      await services.connections.connect(params.accountId);
      await settle(services);
      return { status: 204 };
    },
  });

  labelRoutes(routes, services);
  informationRoutes(routes, services);
};
