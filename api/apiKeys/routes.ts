// API keys and their access policies (spec "Authentication", "Access policy of an API key", and
// GET /apiKeys/current, GET /accounts/{accountId}/apiKeys, /projects/{projectId}/apiKeys/available*).
// The spec leaves the managing operations open; they are:
//   POST   /projects/{projectId}/apiKeys                          issue (the value is in this answer only)
//   GET    /projects/{projectId}/apiKeys[/{apiKeyId}]             list / one
//   PUT    /projects/{projectId}/apiKeys/{apiKeyId}               name, keyType, expiresAt
//   POST   /projects/{projectId}/apiKeys/{apiKeyId}/rotate        a new value, the old one stops at once
//   POST   /projects/{projectId}/apiKeys/{apiKeyId}/revoke        final
//   PUT    /projects/{projectId}/apiKeys/{apiKeyId}/accessPolicy  set (replace) / DELETE: remove
// Who may: reading keys needs a project-level key; changing them an unrestricted project-level key (no
// enabled access policy), so a restricted key can never lift its own restrictions. Account-level keys
// read only GET /apiKeys/current and their own account's keys.
import { type Static, Type } from '@sinclair/typebox';
import { findApiKey, listApiKeys } from '../../projections/apiKeys/queries.js';
import { findAccount } from '../../projections/accounts/queries.js';
import { loadAccount } from '../shared/accounts.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import type { Services } from '../../app/services.js';
import { AccountIdParams } from '../accounts/schemas.js';
import { errorResponses } from '../shared/schemas.js';
import { FRONTEND_FEATURES, restrictableFields } from './catalog.js';
import { fromAccessPolicyWriteDTO, toApiKeyDTO, toFieldMetadataDTO, toRestEndpointMetadataDTO } from './dto.js';
import { changeKey, issueKey, removeAccessPolicy, revokeKey, rotateKey, setAccessPolicy } from '../../app/commands/apiKeys.js';
import {
  AccessPolicyWriteDTO,
  ApiKeyCreateDTO,
  ApiKeyDTO,
  ApiKeyUpdateDTO,
  FieldMetadataDTO,
  FrontendFeatureDTO,
  IssuedApiKeyDTO,
  ProjectKeyParams,
  ProjectParams,
  RestEndpointMetadataDTO,
} from './schemas.js';
import { lastUsedOf } from '../../app/apiKeyUsage.js';

type KeyParams = Static<typeof ProjectKeyParams>;
type PolicyBody = Static<typeof AccessPolicyWriteDTO>;

const TAG = 'API keys';

/** Another project's id looks exactly like a missing project; account-level keys manage nothing. */
const projectScope = (caller: Caller, projectId: string): void => {
  if (projectId !== caller.projectId) throw new ApiError(404, '[PROJECT_NOT_FOUND]', `project ${projectId} not found`);
  if (caller.level === 'ACCOUNT') throw new ApiError(403, '[PROJECT_LEVEL_API_KEY_REQUIRED]', 'managing API keys needs a project-level API key');
};

const managerScope = (caller: Caller, projectId: string): void => {
  projectScope(caller, projectId);
  if (caller.accessPolicy) {
    throw new ApiError(403, '[UNRESTRICTED_API_KEY_REQUIRED]', 'changing API keys needs a project-level key without an enabled access policy');
  }
};

export const apiKeyRoutes = (routes: Routes, services: Services): void => {
  const dtoOf = async (projectId: string, apiKeyId: string) => {
    const row = await findApiKey(services.db, projectId, apiKeyId);
    if (!row) throw new ApiError(404, '[API_KEY_NOT_FOUND]', `api key ${apiKeyId} not found`);
    return toApiKeyDTO(row, (await lastUsedOf(services.db, [row.id])).get(row.id), services.clock());
  };
  const dtosOf = async (rows: Awaited<ReturnType<typeof listApiKeys>>) => {
    const used = await lastUsedOf(
      services.db,
      rows.map((r) => r.id),
    );
    const now = services.clock();
    return rows.map((r) => toApiKeyDTO(r, used.get(r.id), now));
  };
  const one = { 200: { description: 'the key (never its value)', schema: ApiKeyDTO }, ...errorResponses(400, 401, 403, 404, 409) };

  routes.add({
    method: 'get',
    path: '/apiKeys/current',
    tag: TAG,
    operationId: 'getCurrentApiKey',
    summary: 'The key that authenticated this request',
    description: 'Its level (permission type), type, expiry and access policy; never its value. Any key may ask.',
    responses: { 200: { description: 'the calling key', schema: ApiKeyDTO }, ...errorResponses(401) },
    handler: async ({ caller }) => ({ body: await dtoOf(caller.projectId, caller.apiKeyId) }),
  });

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/apiKeys/availableEndpoints',
    tag: TAG,
    operationId: 'listAvailableEndpoints',
    summary: 'REST endpoints an endpoint rule can name',
    description: 'Every operation of the OpenAPI document: method, path (as a pathPattern names it) and summary. Needs a project-level key.',
    params: ProjectParams,
    responses: { 200: { description: 'endpoints', schema: Type.Array(RestEndpointMetadataDTO) }, ...errorResponses(401, 403, 404) },
    async handler({ params, caller }) {
      projectScope(caller, params.projectId);
      return { body: routes.specs.map(toRestEndpointMetadataDTO) };
    },
  });

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/apiKeys/availableFields',
    tag: TAG,
    operationId: 'listAvailableFields',
    summary: 'Fields a field-access rule can hide',
    description: 'Every member but id of AccountDTO, AccountInformationDTO and CopierDTO. Needs a project-level key.',
    params: ProjectParams,
    responses: { 200: { description: 'fields', schema: Type.Array(FieldMetadataDTO) }, ...errorResponses(401, 403, 404) },
    async handler({ params, caller }) {
      projectScope(caller, params.projectId);
      return { body: restrictableFields().map(toFieldMetadataDTO) };
    },
  });

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/apiKeys/availableFrontendFeatures',
    tag: TAG,
    operationId: 'listAvailableFrontendFeatures',
    summary: 'Frontend features a key can hide',
    params: ProjectParams,
    responses: { 200: { description: 'features', schema: Type.Array(FrontendFeatureDTO) }, ...errorResponses(401, 403, 404) },
    async handler({ params, caller }) {
      projectScope(caller, params.projectId);
      return { body: FRONTEND_FEATURES };
    },
  });

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/apiKeys',
    tag: TAG,
    operationId: 'listApiKeys',
    summary: 'Every key of the project, project- and account-level, oldest first',
    description: 'Revoked and expired keys too (see active). Never a value. Needs a project-level key.',
    params: ProjectParams,
    responses: { 200: { description: 'keys', schema: Type.Array(ApiKeyDTO) }, ...errorResponses(401, 403, 404) },
    async handler({ params, caller }) {
      projectScope(caller, params.projectId);
      return { body: await dtosOf(await listApiKeys(services.db, caller.projectId)) };
    },
  });

  routes.add<{ projectId: string }, unknown, Static<typeof ApiKeyCreateDTO>>({
    method: 'post',
    path: '/projects/{projectId}/apiKeys',
    tag: TAG,
    operationId: 'createApiKey',
    summary: 'Issue a key',
    description:
      "A project-level key, or with accountId an account-level key of that account. The answer carries the value in `key`, the only time it is shown (only its SHA-256 hash is stored). keyType AI revokes the project's former AI key. Needs a project-level key without an enabled access policy (403 [PROJECT_LEVEL_API_KEY_REQUIRED], [UNRESTRICTED_API_KEY_REQUIRED]). expiresAt not in the future: 400 [API_KEY_EXPIRY_NOT_IN_FUTURE]; a bad policy: 400 [ACCESS_POLICY_INVALID].",
    params: ProjectParams,
    body: ApiKeyCreateDTO,
    bodyRequired: true,
    responses: { 200: { description: 'the new key with its value', schema: IssuedApiKeyDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, body, caller, context }) {
      managerScope(caller, params.projectId);
      const accessPolicy = body.accessPolicy ? fromAccessPolicyWriteDTO(body.accessPolicy) : null;
      const accountId = body.accountId ?? null;
      if (accountId && !(await findAccount(services.db, caller.projectId, accountId))) {
        throw new ApiError(404, '[ACCOUNT_NOT_FOUND]', `account ${accountId} not found`);
      }
      const issued = await issueKey(
        services,
        {
          projectId: caller.projectId,
          accountId,
          level: accountId ? 'ACCOUNT' : 'PROJECT',
          keyType: body.keyType ?? 'INTEGRATION',
          name: body.name,
          expiresAt: body.expiresAt ? new Date(body.expiresAt).toISOString() : null,
          accessPolicy,
        },
        context,
      );
      return { body: { ...(await dtoOf(caller.projectId, issued.apiKeyId)), key: issued.key } };
    },
  });

  routes.add<KeyParams, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/apiKeys/{apiKeyId}',
    tag: TAG,
    operationId: 'getApiKey',
    summary: 'One key of the project',
    params: ProjectKeyParams,
    responses: one,
    async handler({ params, caller }) {
      projectScope(caller, params.projectId);
      return { body: await dtoOf(caller.projectId, params.apiKeyId) };
    },
  });

  routes.add<KeyParams, unknown, Static<typeof ApiKeyUpdateDTO>>({
    method: 'put',
    path: '/projects/{projectId}/apiKeys/{apiKeyId}',
    tag: TAG,
    operationId: 'updateApiKey',
    summary: 'Rename a key, change its expiry, or make it the AI key',
    description:
      "keyType AI revokes the project's former AI key (REPLACED_BY_NEW_AI_KEY); an AI key cannot become INTEGRATION (409 [AI_KEY_CANNOT_BECOME_INTEGRATION]). A revoked key changes no more (409 [API_KEY_REVOKED]). An expired key can be given a new expiry.",
    params: ProjectKeyParams,
    body: ApiKeyUpdateDTO,
    bodyRequired: true,
    responses: one,
    async handler({ params, body, caller, context }) {
      managerScope(caller, params.projectId);
      const changes = {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.keyType !== undefined ? { keyType: body.keyType } : {}),
        ...(body.expiresAt !== undefined ? { expiresAt: body.expiresAt === null ? null : new Date(body.expiresAt).toISOString() } : {}),
      };
      await changeKey(services, caller.projectId, params.apiKeyId, changes, context);
      return { body: await dtoOf(caller.projectId, params.apiKeyId) };
    },
  });

  routes.add<KeyParams, unknown, unknown>({
    method: 'post',
    path: '/projects/{projectId}/apiKeys/{apiKeyId}/rotate',
    tag: TAG,
    operationId: 'rotateApiKey',
    summary: 'Give a key a new value',
    description:
      'The old value is refused from the next request on (no grace period); the new one is in this answer only. A revoked key cannot be rotated (409 [API_KEY_REVOKED]).',
    params: ProjectKeyParams,
    responses: { 200: { description: 'the key with its new value', schema: IssuedApiKeyDTO }, ...errorResponses(401, 403, 404, 409) },
    async handler({ params, caller, context }) {
      managerScope(caller, params.projectId);
      const issued = await rotateKey(services, caller.projectId, params.apiKeyId, context);
      return { body: { ...(await dtoOf(caller.projectId, params.apiKeyId)), key: issued.key } };
    },
  });

  routes.add<KeyParams, unknown, unknown>({
    method: 'post',
    path: '/projects/{projectId}/apiKeys/{apiKeyId}/revoke',
    tag: TAG,
    operationId: 'revokeApiKey',
    summary: 'Revoke a key (final)',
    description: 'From the next request on the key gets 401 [API_KEY_REVOKED]; revoking again changes nothing. A key may revoke itself.',
    params: ProjectKeyParams,
    responses: one,
    async handler({ params, caller, context }) {
      managerScope(caller, params.projectId);
      await revokeKey(services, caller.projectId, params.apiKeyId, context);
      return { body: await dtoOf(caller.projectId, params.apiKeyId) };
    },
  });

  routes.add<KeyParams, unknown, PolicyBody>({
    method: 'put',
    path: '/projects/{projectId}/apiKeys/{apiKeyId}/accessPolicy',
    tag: TAG,
    operationId: 'setApiKeyAccessPolicy',
    summary: 'Set (replace) the access policy of a key',
    description: 'Takes effect with the next request of that key. An AI key is denied everything until it has an enabled policy.',
    params: ProjectKeyParams,
    body: AccessPolicyWriteDTO,
    bodyRequired: true,
    responses: one,
    async handler({ params, body, caller, context }) {
      managerScope(caller, params.projectId);
      await setAccessPolicy(services, caller.projectId, params.apiKeyId, fromAccessPolicyWriteDTO(body), context);
      return { body: await dtoOf(caller.projectId, params.apiKeyId) };
    },
  });

  routes.add<KeyParams, unknown, unknown>({
    method: 'delete',
    path: '/projects/{projectId}/apiKeys/{apiKeyId}/accessPolicy',
    tag: TAG,
    operationId: 'removeApiKeyAccessPolicy',
    summary: 'Remove the access policy of a key',
    description: 'An INTEGRATION key then has full access; an AI key none.',
    params: ProjectKeyParams,
    responses: one,
    async handler({ params, caller, context }) {
      managerScope(caller, params.projectId);
      await removeAccessPolicy(services, caller.projectId, params.apiKeyId, context);
      return { body: await dtoOf(caller.projectId, params.apiKeyId) };
    },
  });

  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/apiKeys',
    tag: 'Accounts',
    operationId: 'listAccountApiKeys',
    summary: 'The account-level keys of an account',
    description: "The key created with the account, and any issued for it since; never a value. An account-level key sees its own account's keys.",
    params: AccountIdParams,
    responses: { 200: { description: 'keys', schema: Type.Array(ApiKeyDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller }) {
      await loadAccount(services, caller, params.accountId);
      return { body: await dtosOf(await listApiKeys(services.db, caller.projectId, { accountId: params.accountId })) };
    },
  });
};
