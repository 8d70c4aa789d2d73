// GET /readModels, POST /readModels/{readModel}/rebuilds, GET /readModels/{readModel}/rebuilds/{rebuildId}
// (issue 20, ours): the analyst's view of the read models, app/readModels.ts. Read models are shared by
// every project, so a project-level key sees their machinery (checkpoints, lag, generations, rebuild
// progress) and no project's data; an account-level key sees none of it.
import type { Static } from '@sinclair/typebox';
import { getRebuild, listReadModels, type Rebuild, RebuildBusyError, startRebuild, UnknownReadModelError } from '../../app/readModels.js';
import type { Services } from '../../app/services.js';
import { ApiError } from '../errors.js';
import { processorLags } from '../health.js';
import type { Caller, Routes } from '../route.js';
import { errorResponses } from '../shared/schemas.js';
import { Type } from '@sinclair/typebox';
import { ReadModelDTO, ReadModelParams, ReadModelRebuildDTO, RebuildParams } from './schemas.js';

const TAG = 'Read models';
const REBUILD_PATH = '/readModels/{readModel}/rebuilds';

const SHARED =
  'Read models are shared by every project: any project-level key sees their checkpoints, lag, generations and rebuilds (no project data is in them), and who started a rebuild only when a key of its own project did. An account-level key gets 403 [PROJECT_LEVEL_API_KEY_REQUIRED].';
const POLICY = `Starting a rebuild touches what every project reads, so a key needs an explicit grant: a project-level key whose access policy is enabled with endpoint access in ALLOW_LIST mode and a rule allowing POST ${REBUILD_PATH} (for example pathPattern "/readModels/*/rebuilds", method POST). A key without an access policy (full access otherwise), with a disabled one or with a DENY_LIST gets 403 [FORBIDDEN_ENDPOINT_NOT_ALLOWED], as does one whose ALLOW_LIST does not allow the route.`;

const projectKeyOnly = (caller: Caller): void => {
  if (caller.level === 'ACCOUNT') throw new ApiError(403, '[PROJECT_LEVEL_API_KEY_REQUIRED]', 'the read models need a project-level API key');
};

const toRebuildDTO = (r: Rebuild) => ({
  id: r.id,
  readModel: r.readModel,
  state: r.state,
  phase: r.phase,
  processed: r.processed,
  total: r.total,
  percent: r.state === 'SWITCHED' ? 100 : r.total > 0 ? Math.min(100, Math.round((r.processed / r.total) * 1000) / 10) : 0,
  generation: r.generation,
  startedAt: r.startedAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
  finishedAt: r.finishedAt?.toISOString() ?? null,
  error: r.error,
  startedByThisProject: r.startedBy !== null,
  startedByApiKeyId: r.startedBy?.apiKeyId ?? null,
});

export const readModelRoutes = (routes: Routes, services: Services): void => {
  routes.add<Record<string, never>, unknown, unknown>({
    method: 'get',
    path: '/readModels',
    tag: TAG,
    operationId: 'listReadModels',
    summary: 'Every read model with its generation, checkpoint, lag and last rebuild (ours)',
    description: `The analyst's view: each read model of the service, in name order, with the generation serving, a generation being built, its checkpoint in $all and its lag (as /metrics measures it), and its last rebuild with its progress. ${SHARED}`,
    responses: { 200: { description: 'the read models', schema: Type.Array(ReadModelDTO) }, ...errorResponses(401, 403) },
    async handler({ caller }) {
      projectKeyOnly(caller);
      const [models, lags] = await Promise.all([listReadModels(services, caller.projectId), processorLags(services, true)]);
      const lagOf = new Map(lags.map((l) => [l.name, l]));
      const known = !services.config.eventStoreConnectionString;
      return {
        body: models.map((m) => {
          const lag = lagOf.get(`projection:${m.name}`);
          return {
            name: m.name,
            version: m.version,
            generation: m.generation,
            buildingGeneration: m.buildingGeneration,
            checkpoint: m.checkpoint,
            checkpointUpdatedAt: m.checkpointUpdatedAt?.toISOString() ?? null,
            lagSeconds: known ? (lag?.seconds ?? 0) : null,
            lagEvents: known ? (lag?.events ?? 0) : null,
            lastRebuild: m.lastRebuild ? toRebuildDTO(m.lastRebuild) : null,
          };
        }),
      };
    },
  });

  routes.add<Static<typeof ReadModelParams>, unknown, unknown>({
    method: 'post',
    path: REBUILD_PATH,
    tag: TAG,
    operationId: 'startReadModelRebuild',
    summary: 'Starts a blue-green rebuild of one read model (ours)',
    description: `Builds generation N+1 of the read model in a schema of its own from the whole of $all while generation N keeps serving, applies the tail and switches the views to N+1 in one transaction once caught up (under the locks the live runner takes for each batch), then drops N. Answers 202 with the rebuild once it runs; GET ${REBUILD_PATH}/{rebuildId} follows its progress. A rebuild is leased: it holds the read model's lock for as long as it runs, on whichever instance of the service took the request, and a second request while it runs (on any instance, or while \`npm run rebuild\` or a start rebuilds it) gets 409 [REBUILD_RUNNING] instead of a second rebuild. Starting, switching and failing are recorded as events of the stream readModelRebuild-<name>. ${POLICY} An unknown read model is 404 [READ_MODEL_NOT_FOUND]. ${SHARED}`,
    params: ReadModelParams,
    responses: { 202: { description: 'the rebuild, running', schema: ReadModelRebuildDTO }, ...errorResponses(401, 403, 404, 409) },
    async handler({ params, caller, context }) {
      projectKeyOnly(caller);
      const policy = caller.accessPolicy;
      if (!policy?.enabled || policy.endpointAccess?.mode !== 'ALLOW_LIST')
        throw new ApiError(
          403,
          '[FORBIDDEN_ENDPOINT_NOT_ALLOWED]',
          `starting a rebuild needs an access policy that allows it explicitly: endpoint access ALLOW_LIST with a rule for POST ${REBUILD_PATH}`,
        );
      try {
        return { status: 202, body: toRebuildDTO(await startRebuild(services, params.readModel, context)) };
      } catch (error) {
        if (error instanceof UnknownReadModelError) throw new ApiError(404, '[READ_MODEL_NOT_FOUND]', error.message);
        if (error instanceof RebuildBusyError) throw new ApiError(409, '[REBUILD_RUNNING]', `${error.message}; follow it with GET /readModels`);
        throw error;
      }
    },
  });

  routes.add<Static<typeof RebuildParams>, unknown, unknown>({
    method: 'get',
    path: `${REBUILD_PATH}/{rebuildId}`,
    tag: TAG,
    operationId: 'getReadModelRebuild',
    summary: "A rebuild's progress (ours)",
    description: `Where a rebuild is: RUNNING with its phase and the events read of those the store held when it started, SWITCHED with the generation now serving, or FAILED with why (the old generation still serves). Read from the database, so any instance answers for a rebuild another one runs. ${SHARED}`,
    params: RebuildParams,
    responses: { 200: { description: 'the rebuild', schema: ReadModelRebuildDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      projectKeyOnly(caller);
      const rebuild = await getRebuild(services, caller.projectId, params.readModel, params.rebuildId);
      if (!rebuild) throw new ApiError(404, '[REBUILD_NOT_FOUND]', `no rebuild ${params.rebuildId} of ${params.readModel}`);
      return { body: toRebuildDTO(rebuild) };
    },
  });
};
