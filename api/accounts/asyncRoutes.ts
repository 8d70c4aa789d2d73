// GET /accounts/async and GET /accounts/async/{requestId} (spec "Accounts"), and what a queued creation
// does when its turn comes (asyncCreation.ts runs it).
import { Type } from '@sinclair/typebox';
import { DomainError } from '../../domain/shared/errors.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import type { Services } from '../../app/services.js';
import { errorResponses, IsoDateTime, Nullable } from '../shared/schemas.js';
import type { AsyncRequestRow, Outcome } from '../../app/accounts/asyncCreation.js';
import { createAccountLocked } from '../../app/commands/createAccount.js';
import { createdAccountDTO, toAsyncCreationDTO } from './dto.js';
import { AccountDTO } from './schemas.js';

export const AsyncAccountCreationResponseDTO = Type.Object(
  {
    requestId: Type.String({ description: 'also the X-Request-Id header of the callback' }),
    status: Type.Union([Type.Literal('QUEUED'), Type.Literal('PROCESSING'), Type.Literal('COMPLETED'), Type.Literal('FAILED')], {
      description: 'QUEUED -> PROCESSING (one creation at a time per project, in the order accepted) -> COMPLETED or FAILED; removed 1 hour after completion',
    }),
    account: Type.Optional(AccountDTO),
    error: Type.Optional(
      Type.Object({ error: Type.String({ description: 'a code such as [ACCOUNT_ALREADY_EXISTS]' }), message: Type.String() }, { additionalProperties: false }),
    ),
    created: IsoDateTime,
    startedAt: Nullable(IsoDateTime),
    completedAt: Nullable(IsoDateTime),
  },
  {
    $id: 'AsyncAccountCreationResponseDTO',
    additionalProperties: false,
    description: 'account only when COMPLETED (as it is now), error only when FAILED.',
  },
);

/**
 * Creates the account of a queued request. A refusal (a duplicate login with failIfAccountExistsInProject,
 * ...) is a FAILED outcome; anything else is thrown, and the queue retries.
 * The callback of a success carries the account and, sealed in the outbox (encrypted at rest, wiped once
 * the callback is done), the value of the account-level key: its only delivery.
 */
export const processAsyncCreation =
  (services: Services) =>
  async (row: AsyncRequestRow): Promise<Outcome> => {
    try {
      const key = await createAccountLocked(services, {
        accountId: row.account_id,
        projectId: row.project_id,
        settings: row.settings,
        failIfAccountExistsInProject: row.fail_if_exists,
        context: row.context,
      });
      // The account as created even while the read models lag behind the write (api/accounts/dto.ts).
      const dto = await createdAccountDTO(services, row.project_id, row.account_id);
      return {
        status: 'COMPLETED',
        callbackBody: { account: dto ?? null },
        sealed: services.cipher.encrypt(JSON.stringify({ accountApiKey: { id: key.apiKeyId, key: key.key } })),
      };
    } catch (error) {
      if (error instanceof ApiError || error instanceof DomainError) {
        return { status: 'FAILED', error: { error: error.code, message: error.message } };
      }
      throw error;
    }
  };

const projectLevel = (caller: Caller): void => {
  if (caller.level === 'ACCOUNT') {
    throw new ApiError(403, '[PROJECT_LEVEL_API_KEY_REQUIRED]', 'asynchronous creations belong to the project: use a project-level API key');
  }
};

export const asyncCreationRoutes = (routes: Routes, services: Services): void => {
  routes.add({
    method: 'get',
    path: '/accounts/async',
    tag: 'Accounts',
    operationId: 'listAsyncAccountCreations',
    summary: 'Asynchronous account creations of the project',
    description: 'In the order they were accepted; a request is removed 1 hour after it completed. Needs a project-level key.',
    responses: { 200: { description: 'requests', schema: Type.Array(AsyncAccountCreationResponseDTO) }, ...errorResponses(401, 403) },
    async handler({ caller }) {
      projectLevel(caller);
      const rows = await services.accountCreations.list(caller.projectId);
      return { body: await Promise.all(rows.map((r) => toAsyncCreationDTO(services, r))) };
    },
  });

  routes.add<{ requestId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/async/{requestId}',
    tag: 'Accounts',
    operationId: 'getAsyncAccountCreation',
    summary: 'One asynchronous account creation',
    description: "Another project's request, or one removed 1 hour after completion, gives 404 [ASYNC_REQUEST_NOT_FOUND].",
    params: Type.Object({ requestId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the request', schema: AsyncAccountCreationResponseDTO }, ...errorResponses(401, 403, 404) },
    async handler({ params, caller }) {
      projectLevel(caller);
      const row = await services.accountCreations.find(caller.projectId, params.requestId);
      if (!row) throw new ApiError(404, '[ASYNC_REQUEST_NOT_FOUND]', `no asynchronous creation ${params.requestId}`);
      return { body: await toAsyncCreationDTO(services, row) };
    },
  });
};
