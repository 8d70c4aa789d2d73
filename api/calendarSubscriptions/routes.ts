// Calendar subscriptions and the iCal feed (spec "Economic calendar, news and alerts"; state "Calendar
// subscription": active, then revoked by DELETE, final):
//   GET, POST .../calendarSubscriptions                   list (never the token) / create (the feed URL with its token, once)
//   DELETE    .../calendarSubscriptions/{subscriptionId}  revoke
//   GET       .../economicCalendar.ics?token=...          the feed: no API key, its own token (served before authentication)
// Only the token's SHA-256 is stored; the feed is rate limited per subscription (in the database, shared by
// the instances: app/alertsFeedRate.ts) and has a limited range.
import type { Request, Response } from 'express';
import ical from 'ical-generator';
import { type Static, Type } from '@sinclair/typebox';
import { createCalendarSubscription, feedTokenHash, revokeCalendarSubscription } from '../../app/alerts.js';
import { FEED_RATE_PER_MINUTE, takeFeedRequest } from '../../app/alertsFeedRate.js';
import type { Services } from '../../app/services.js';
import { IMPACTS, type Impact } from '../../domain/calendar/entry.js';
import { listCalendarSubscriptions, subscriptionByTokenHash, type SubscriptionRow } from '../../projections/alerts/queries.js';
import { calendarEvents } from '../../projections/calendar/queries.js';
import { API_PREFIX } from '../openapi.js';
import { ApiError, errorBody, toApiError } from '../errors.js';
import type { Routes } from '../route.js';
import { checkProjectScope } from '../shared/projects.js';
import { ErrorDTO, errorResponses, IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

const TAG = 'Calendar alerts';
const KEY = 'Needs a project-level key of this project (another project: 404 [PROJECT_NOT_FOUND]; an account-level key: 403 [PROJECT_LEVEL_API_KEY_REQUIRED]).';
export const FEED_PATH = '/projects/{projectId}/economicCalendar.ics';
/** Feed requests per subscription and minute. */
const DAY_MS = 86_400_000;
/** The feed's range: from 7 days back to 30 days ahead. */
export const FEED_RANGE = { pastDays: 7, aheadDays: 30 } as const;

const ImpactName = Type.Union(IMPACTS.map((i) => Type.Literal(i)));

export const CalendarSubscriptionDTO = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    currencies: Type.Array(Type.String(), { description: 'empty: every currency' }),
    impacts: Type.Array(ImpactName, { description: 'empty: every impact' }),
    active: Type.Boolean({ description: 'false once revoked (final)' }),
    created: IsoDateTime,
    revokedAt: Nullable(IsoDateTime),
    feedUrl: Type.Optional(
      Type.String({ description: 'only in the answer of POST: the full feed URL with its token; never shown again (only a hash is stored)' }),
    ),
  },
  { $id: 'CalendarSubscriptionDTO', additionalProperties: false },
);

const SubscriptionRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    currencies: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Z]{3}$' }), { maxItems: 30, uniqueItems: true, description: 'default empty: every currency' }),
    ),
    impacts: Type.Optional(Type.Array(ImpactName, { uniqueItems: true, description: 'default empty: every impact' })),
  },
  { $id: 'CalendarSubscriptionRequestDTO', additionalProperties: false },
);

const toDTO = (row: SubscriptionRow) => ({
  id: row.subscriptionId,
  name: row.name,
  currencies: row.currencies,
  impacts: row.impacts,
  active: row.revokedAt === null,
  created: row.created,
  revokedAt: row.revokedAt,
});

export const calendarSubscriptionRoutes = (routes: Routes, services: Services): void => {
  const scope = (caller: Parameters<typeof checkProjectScope>[0], projectId: string) => checkProjectScope(caller, projectId, 'calendar subscriptions');
  const ProjectParams = Type.Object({ projectId: Uuid }, { additionalProperties: false });

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/calendarSubscriptions',
    tag: TAG,
    operationId: 'listCalendarSubscriptions',
    summary: "The project's calendar feed subscriptions",
    description: `CalendarSubscriptionDTO (ours), oldest first, revoked ones too; the token is never answered again. ${KEY}`,
    params: ProjectParams,
    responses: { 200: { description: 'the subscriptions', schema: Type.Array(CalendarSubscriptionDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      scope(caller, params.projectId);
      return { body: (await listCalendarSubscriptions(services.db, params.projectId)).map(toDTO) };
    },
  });

  routes.add<{ projectId: string }, unknown, Static<typeof SubscriptionRequest>>({
    method: 'post',
    path: '/projects/{projectId}/calendarSubscriptions',
    tag: TAG,
    operationId: 'createCalendarSubscription',
    summary: 'Create a calendar feed subscription',
    description: `Body (ours): name, currencies and impacts (the feed's filter; default all). The answer carries feedUrl, the full URL of GET ${FEED_PATH} with the token (43 characters): shown once, only its SHA-256 is stored. At most 20 active subscriptions per project (400 [CALENDAR_SUBSCRIPTION_LIMIT_REACHED]). ${KEY}`,
    params: ProjectParams,
    body: SubscriptionRequest,
    bodyRequired: true,
    responses: { 200: { description: 'the subscription with its feed URL', schema: CalendarSubscriptionDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, body, caller, context, req }) {
      scope(caller, params.projectId);
      const { subscriptionId, token } = await createCalendarSubscription(services, context, params.projectId, {
        name: body.name,
        currencies: body.currencies ?? [],
        impacts: (body.impacts ?? []) as Impact[],
      });
      const [row] = await listCalendarSubscriptions(services.db, params.projectId, subscriptionId);
      const feedUrl = `${req.protocol}://${req.get('host') ?? 'localhost'}${API_PREFIX}/projects/${params.projectId}/economicCalendar.ics?token=${token}`;
      return { body: { ...toDTO(row!), feedUrl } };
    },
  });

  routes.add<{ projectId: string; subscriptionId: string }, unknown, unknown>({
    method: 'delete',
    path: '/projects/{projectId}/calendarSubscriptions/{subscriptionId}',
    tag: TAG,
    operationId: 'deleteCalendarSubscription',
    summary: 'Revoke a calendar feed subscription',
    description: `Revocation is final and immediate: the feed answers its token 404 [CALENDAR_SUBSCRIPTION_NOT_FOUND] from the answer of this call on; revoking again changes nothing (200). An unknown subscription: 404 [CALENDAR_SUBSCRIPTION_NOT_FOUND]. ${KEY}`,
    params: Type.Object({ projectId: Uuid, subscriptionId: Uuid }, { additionalProperties: false }),
    responses: { 200: { description: 'revoked' }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, context }) {
      scope(caller, params.projectId);
      if ((await listCalendarSubscriptions(services.db, params.projectId, params.subscriptionId)).length === 0)
        throw new ApiError(404, '[CALENDAR_SUBSCRIPTION_NOT_FOUND]', `no calendar subscription ${params.subscriptionId}`);
      await revokeCalendarSubscription(services, context, params.projectId, params.subscriptionId);
      return { status: 200 };
    },
  });

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: FEED_PATH,
    tag: TAG,
    operationId: 'getEconomicCalendarIcs',
    summary: 'The economic calendar as an iCal feed',
    description: `No X-API-KEY: authenticated only by its subscription's token (the feedUrl of POST .../calendarSubscriptions). A missing, unknown, revoked or other project's token: 404 [CALENDAR_SUBSCRIPTION_NOT_FOUND]. Range: ${FEED_RANGE.pastDays} days back to ${FEED_RANGE.aheadDays} days ahead of now, with the subscription's currencies and impacts; one VEVENT per calendar event (UID its eventId, summary "CUR title", description impact, forecast, previous, actual). At most ${FEED_RATE_PER_MINUTE} requests a minute per subscription (429 [RATE_LIMITED] with Retry-After, the seconds to the next minute; whole minutes of the service's clock, counted in the database, so every instance of the service counts together; refused requests count too). For personal use in a calendar application.`,
    params: Type.Object({ projectId: Uuid }, { additionalProperties: false }),
    query: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: 'the subscription token' }) }, { additionalProperties: false }),
    authenticated: false,
    responses: {
      200: { description: 'the feed (text/calendar)', contentType: 'text/calendar' },
      404: { description: 'no active subscription has this token ([CALENDAR_SUBSCRIPTION_NOT_FOUND])', schema: ErrorDTO },
      429: { description: 'the rate limit ([RATE_LIMITED]); Retry-After says when', schema: ErrorDTO },
    },
    handler: () => Promise.reject(new Error('served by api/calendarSubscriptions/routes.ts before authentication')),
  });
};

/** GET /projects/:projectId/economicCalendar.ics, mounted before authentication. */
export const calendarFeed =
  (services: Services) =>
  async (req: Request, res: Response): Promise<void> => {
    try {
      const token = typeof req.query.token === 'string' ? req.query.token : '';
      const subscription = token ? await subscriptionByTokenHash(services.db, feedTokenHash(token)) : undefined;
      if (!subscription || subscription.revokedAt !== null || subscription.projectId !== req.params.projectId)
        throw new ApiError(404, '[CALENDAR_SUBSCRIPTION_NOT_FOUND]', 'no active calendar subscription has this token');
      const wait = await takeFeedRequest(services.db, subscription.subscriptionId, services.clock());
      if (wait !== null)
        throw new ApiError(429, '[RATE_LIMITED]', `a calendar feed takes ${FEED_RATE_PER_MINUTE} requests a minute`, undefined, {
          'Retry-After': String(wait),
        });
      const now = services.clock().getTime();
      const events = await calendarEvents(services.db, {
        from: new Date(now - FEED_RANGE.pastDays * DAY_MS).toISOString(),
        to: new Date(now + FEED_RANGE.aheadDays * DAY_MS).toISOString(),
        ...(subscription.currencies.length ? { currencies: subscription.currencies } : {}),
        ...(subscription.impacts.length ? { impacts: subscription.impacts as Impact[] } : {}),
      });
      const calendar = ical({ name: `Economic calendar: ${subscription.name}`, prodId: { company: 'copy-trading-service', product: 'economic-calendar' } });
      for (const e of events) {
        const start = new Date(e.time);
        calendar.createEvent({
          id: e.eventId,
          start,
          end: e.allDay ? new Date(start.getTime() + DAY_MS) : new Date(start.getTime() + 15 * 60_000),
          allDay: e.allDay,
          summary: `${e.currency} ${e.title}`,
          description: `Impact: ${e.impact}\nForecast: ${e.forecast ?? '-'}\nPrevious: ${e.previous ?? '-'}\nActual: ${e.actual ?? '-'}`,
          stamp: new Date(now),
        });
      }
      res.status(200).type('text/calendar; charset=utf-8').send(calendar.toString());
    } catch (error) {
      const apiError = toApiError(error);
      if (!apiError) {
        services.log.error('calendar feed failed', error);
        res.status(500).json({ error: '[INTERNAL_ERROR]', message: 'an unexpected error occurred; it was logged' });
        return;
      }
      res.set(apiError.headers).status(apiError.status).json(errorBody(apiError));
    }
  };
