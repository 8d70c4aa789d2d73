// What a webhook did (FeatureWebhookDTO): its recent deliveries with their status, attempts and the
// last answer or error, so a user can see why an event did not arrive. Finished deliveries are kept
// 7 days (engine/delivery/outbox.ts).
//   GET /accounts/{accountId}/features/{featureId}/deliveries
//   GET /projects/{projectId}/features/{featureId}/deliveries
import { type Static, Type } from '@sinclair/typebox';
import { WEBHOOK_EVENT_KINDS, WEBHOOK_FEATURE_TYPE } from '../../domain/webhook/feature.js';
import { type DeliveryStatus, webhookDeliveries } from '../../app/outbound.js';
import { accountFeatureRows } from '../../projections/features/queries.js';
import { loadAccount } from '../shared/accounts.js';
import { ApiError } from '../errors.js';
import type { Routes } from '../route.js';
import type { Services } from '../../app/services.js';
import { errorResponses, IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';
import { toWebhookDeliveryDTO } from './dto.js';
import { projectFeatureRow, projectFeatureScope } from './projectScope.js';

const STATUSES: readonly DeliveryStatus[] = ['PENDING', 'DELIVERED', 'FAILED', 'CANCELLED'];

export const WebhookDeliveryDTO = Type.Object(
  {
    eventId: Uuid,
    type: Type.Union(
      [...WEBHOOK_EVENT_KINDS, 'CALENDAR_ALERT'].map((k) => Type.Literal(k)),
      {
        description:
          'the event kind; CALENDAR_ALERT: a calendar alert sent to this webhook as a notification target (GET /projects/{projectId}/calendarAlerts)',
      },
    ),
    accountId: Nullable(Type.String({ format: 'uuid', description: 'the account of the event; null for a notification of a project-level webhook' })),
    status: Type.Union(
      STATUSES.map((s) => Type.Literal(s)),
      {
        description:
          'PENDING: not yet acknowledged (nextAttemptAt says when it is tried); DELIVERED: a 2xx answer; FAILED: maxAttempts used up (lastStatusCode and lastError say why); CANCELLED: the webhook was removed first',
      },
    ),
    attempts: Type.Integer({ minimum: 0, description: 'attempts made so far' }),
    maxAttempts: Type.Integer({ minimum: 1 }),
    nextAttemptAt: Nullable(IsoDateTime),
    lastAttemptAt: Nullable(IsoDateTime),
    lastStatusCode: Nullable(
      Type.Integer({ description: 'the HTTP status of the last answer; null when there was none (timeout, refused connection, address not allowed)' }),
    ),
    lastError: Nullable(Type.String({ description: 'why the last attempt failed, in words' })),
    created: IsoDateTime,
    finishedAt: Nullable(IsoDateTime),
  },
  { $id: 'WebhookDeliveryDTO', additionalProperties: false },
);

const DeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'at most this many, newest first; default 100' })),
    status: Type.Optional(
      Type.Union(
        STATUSES.map((s) => Type.Literal(s)),
        { description: 'only deliveries in this status' },
      ),
    ),
  },
  { additionalProperties: false },
);
type Query = Static<typeof DeliveriesQuery>;

const notAWebhook = (featureId: string) => new ApiError(404, '[FEATURE_NOT_FOUND]', `no webhook (FeatureWebhookDTO) ${featureId}`);

export const webhookDeliveryRoutes = (routes: Routes, services: Services): void => {
  const list = async (featureId: string, query: Query) =>
    (await webhookDeliveries(services, featureId, { limit: query.limit ?? 100, ...(query.status ? { status: query.status } : {}) })).map(toWebhookDeliveryDTO);
  const responses = { 200: { description: 'the deliveries, newest first', schema: Type.Array(WebhookDeliveryDTO) }, ...errorResponses(400, 401, 403, 404) };
  const description =
    'The recent deliveries of a webhook (FeatureWebhookDTO), newest first: one per event and kind, with its status, attempts and the last answer or error. Finished deliveries are kept 7 days. A failed delivery is also logged by the service (warning).';

  routes.add<{ accountId: string; featureId: string }, Query, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/features/{featureId}/deliveries',
    tag: 'Features',
    operationId: 'listAccountWebhookDeliveries',
    summary: "What an account's webhook delivered",
    description,
    params: Type.Object({ accountId: Uuid, featureId: Uuid }, { additionalProperties: false }),
    query: DeliveriesQuery,
    responses,
    async handler({ params, query, caller }) {
      await loadAccount(services, caller, params.accountId);
      const row = (await accountFeatureRows(services.db, caller.projectId, params.accountId)).find((r) => r.id === params.featureId);
      if (!row || row.type !== WEBHOOK_FEATURE_TYPE) throw notAWebhook(params.featureId);
      return { body: await list(row.id, query) };
    },
  });
  routes.add<{ projectId: string; featureId: string }, Query, unknown>({
    method: 'get',
    path: '/projects/{projectId}/features/{featureId}/deliveries',
    tag: 'Features',
    operationId: 'listProjectWebhookDeliveries',
    summary: "What a project's webhook delivered",
    description: `${description} Needs a project-level key of this project.`,
    params: Type.Object({ projectId: Uuid, featureId: Uuid }, { additionalProperties: false }),
    query: DeliveriesQuery,
    responses,
    async handler({ params, query, caller }) {
      const scope = projectFeatureScope(caller, params.projectId);
      const row = await projectFeatureRow(services, scope.projectId, params.featureId);
      if (row.type !== WEBHOOK_FEATURE_TYPE) throw notAWebhook(params.featureId);
      return { body: await list(row.id, query) };
    },
  });
};
