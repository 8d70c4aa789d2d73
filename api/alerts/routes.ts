// Calendar alerts and standing alert rules (spec "Economic calendar, news and alerts", all under
// /projects/{projectId}); the members are ours (api/alerts/schemas.ts), documented below.
//   GET, POST   .../calendarAlerts                  pending alerts / arm one (same event and lead time: updates that one)
//   PUT, DELETE .../calendarAlerts/{alertId}        change (manual alerts only) / disarm
//   GET, POST   .../calendarAlertRules              list / create or update (effective at the next calendar sync)
//   DELETE      .../calendarAlertRules/{ruleId}     delete with its pending alerts
// Alerts fire at their lead time through their targets (app/alertsScheduler.ts, app/notifications.ts).
import { type Static, Type } from '@sinclair/typebox';
import { armCalendarAlert, changeCalendarAlert, deleteCalendarAlertRule, disarmCalendarAlert, saveCalendarAlertRule } from '../../app/alerts.js';
import type { Services } from '../../app/services.js';
import type { Impact } from '../../domain/calendar/entry.js';
import type { NotificationTarget } from '../../domain/notification/targets.js';
import { findCalendarAlert, listCalendarAlertRules, listCalendarAlerts, type AlertRow, type AlertRuleRow } from '../../projections/alerts/queries.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses } from '../shared/schemas.js';
import {
  AlertListQuery,
  AlertParams,
  CalendarAlertDTO,
  CalendarAlertRequestDTO,
  CalendarAlertRuleDTO,
  CalendarAlertRuleRequestDTO,
  CalendarAlertUpdateDTO,
  ProjectParams,
  RuleParams,
} from './schemas.js';

const TAG = 'Calendar alerts';
const KEY = 'Needs a project-level key of this project (another project: 404 [PROJECT_NOT_FOUND]; an account-level key: 403 [PROJECT_LEVEL_API_KEY_REQUIRED]).';
const TARGETS =
  "targets: NotificationTargetDTO {featureId, recipient}: a channel of GET /projects/{projectId}/notificationChannels (a FeatureWebhookDTO of the project or its accounts: recipient null; the EMAIL channel: recipient the address; a chat channel, FeatureMessagingNotificationDTO or FeatureTelegramNotificationDTO: recipient one of its chats, or null for all); anything else answers 400 [NOTIFICATION_TARGET_INVALID]. A webhook receives a POST signed like its position deliveries (X-Webhook-Event: CALENDAR_ALERT) with body {eventId, eventType: CALENDAR_ALERT, createdAt, projectId, subject, text, data: {alertId, eventId, leadMinutes, title, country, currency, impact, time, forecast, previous}}; an e-mail has the subject and text; a chat message the subject, a new line and the text. Deliveries go through the durable outbox with the channel's retries (a webhook's own policy; e-mail 6 attempts over about 20 minutes) and show in the channel's deliveries; a failing channel holds nothing else back.";

const targetsOf = (targets: readonly { featureId: string; recipient?: string | null }[]): NotificationTarget[] =>
  targets.map((t) => ({ featureId: t.featureId, recipient: t.recipient ?? null }));

export const toCalendarAlertDTO = (row: AlertRow) => ({
  id: row.alertId,
  eventId: row.eventId,
  event: row.event,
  leadMinutes: row.leadMinutes,
  fireAt: row.event ? new Date(Date.parse(row.event.time) - row.leadMinutes * 60_000).toISOString() : null,
  targets: row.targets.map((t) => ({ featureId: t.featureId, recipient: t.recipient })),
  ruleId: row.ruleId,
  manual: row.ruleId === null,
  status: row.status,
  created: row.created,
  updated: row.updated,
  firedAt: row.firedAt,
  deliveries: row.deliveries,
  disarmReason: row.disarmReason,
});

export const toCalendarAlertRuleDTO = (row: AlertRuleRow) => ({
  id: row.ruleId,
  name: row.name,
  currencies: row.currencies,
  impacts: row.impacts,
  leadMinutes: row.leadMinutes,
  targets: row.targets.map((t) => ({ featureId: t.featureId, recipient: t.recipient })),
  created: row.created,
  updated: row.updated,
});

type ProjectP = { projectId: string };

export const calendarAlertRoutes = (routes: Routes, services: Services): void => {
  const scope = (caller: Caller, projectId: string) => checkProjectScope(caller, projectId, 'calendar alerts');
  const alertDTO = async (projectId: string, alertId: string) => {
    const row = await findCalendarAlert(services.db, projectId, alertId);
    if (!row) throw new ApiError(404, '[CALENDAR_ALERT_NOT_FOUND]', `no calendar alert ${alertId}`);
    return toCalendarAlertDTO(row);
  };

  routes.add<ProjectP, Static<typeof AlertListQuery>, unknown>({
    method: 'get',
    path: '/projects/{projectId}/calendarAlerts',
    tag: TAG,
    operationId: 'listCalendarAlerts',
    summary: "The project's calendar alerts",
    description: `CalendarAlertDTO (ours): the pending alerts by fire time (status: FIRED or DISARMED for the others; eventId: one event's). fireAt is the event time minus leadMinutes and follows a revised event time; manual tells an alert armed by hand from one a rule armed (ruleId). ${KEY}`,
    params: ProjectParams,
    query: AlertListQuery,
    responses: { 200: { description: 'the alerts', schema: Type.Array(CalendarAlertDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, query, caller }) {
      scope(caller, params.projectId);
      const rows = await listCalendarAlerts(services.db, params.projectId, {
        status: query.status ?? 'PENDING',
        ...(query.eventId ? { eventId: query.eventId } : {}),
      });
      return { body: rows.map(toCalendarAlertDTO) };
    },
  });

  routes.add<ProjectP, unknown, Static<typeof CalendarAlertRequestDTO>>({
    method: 'post',
    path: '/projects/{projectId}/calendarAlerts',
    tag: TAG,
    operationId: 'createCalendarAlert',
    summary: 'Arm a reminder for one calendar event',
    description: `Body (ours): eventId (a calendar event: else 404 [CALENDAR_EVENT_NOT_FOUND]), leadMinutes (default 15, 0 to 1440), targets. The alert fires leadMinutes before the event, on the service's clock, once; an alert that comes due when its event is more than 15 minutes past (the service was down through its fire time, or it was armed on an event already past) is not sent and lists as MISSED. Deleting the project disarms its pending alerts, deletes its rules and revokes its feed subscriptions. Arming the same event with the same lead time again updates that pending alert's targets (the same id is answered; an alert a rule armed becomes manual). At most 1000 pending alerts per project (400 [CALENDAR_ALERT_LIMIT_REACHED]). ${TARGETS} ${KEY}`,
    params: ProjectParams,
    body: CalendarAlertRequestDTO,
    bodyRequired: true,
    responses: { 200: { description: 'the alert', schema: CalendarAlertDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, body, caller, context }) {
      scope(caller, params.projectId);
      const alertId = await armCalendarAlert(services, context, params.projectId, {
        eventId: body.eventId,
        leadMinutes: body.leadMinutes ?? 15,
        targets: targetsOf(body.targets),
      });
      return { body: await alertDTO(params.projectId, alertId) };
    },
  });

  routes.add<{ projectId: string; alertId: string }, unknown, Static<typeof CalendarAlertUpdateDTO>>({
    method: 'put',
    path: '/projects/{projectId}/calendarAlerts/{alertId}',
    tag: TAG,
    operationId: 'updateCalendarAlert',
    summary: 'Change the lead time or targets of a manual alert',
    description: `Body (ours): leadMinutes, targets, each optional (absent: kept). Only a pending manual alert can be changed: one a rule armed answers 409 [CALENDAR_ALERT_NOT_MANUAL] (change the rule); a lead time another pending alert of the event has answers 409 [CALENDAR_ALERT_EXISTS]; a fired, disarmed or unknown alert 404 [CALENDAR_ALERT_NOT_FOUND]. ${TARGETS} ${KEY}`,
    params: AlertParams,
    body: CalendarAlertUpdateDTO,
    bodyRequired: true,
    responses: { 200: { description: 'the alert', schema: CalendarAlertDTO }, ...errorResponses(400, 401, 403, 404, 409) },
    async handler({ params, body, caller, context }) {
      scope(caller, params.projectId);
      await alertDTO(params.projectId, params.alertId);
      await changeCalendarAlert(services, context, params.projectId, params.alertId, {
        ...(body.leadMinutes !== undefined ? { leadMinutes: body.leadMinutes } : {}),
        ...(body.targets ? { targets: targetsOf(body.targets) } : {}),
      });
      return { body: await alertDTO(params.projectId, params.alertId) };
    },
  });

  routes.add<{ projectId: string; alertId: string }, unknown, unknown>({
    method: 'delete',
    path: '/projects/{projectId}/calendarAlerts/{alertId}',
    tag: TAG,
    operationId: 'deleteCalendarAlert',
    summary: 'Disarm an alert',
    description: `A pending alert, manual or armed by a rule (one disarmed by hand is not armed again by its rule; disarmReason says why an alert was disarmed); it then lists under status=DISARMED. A fired, disarmed or unknown alert: 404 [CALENDAR_ALERT_NOT_FOUND]. ${KEY}`,
    params: AlertParams,
    responses: { 200: { description: 'disarmed' }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, context }) {
      scope(caller, params.projectId);
      await alertDTO(params.projectId, params.alertId);
      await disarmCalendarAlert(services, context, params.projectId, params.alertId);
      return { status: 200 };
    },
  });

  routes.add<ProjectP, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/calendarAlertRules',
    tag: TAG,
    operationId: 'listCalendarAlertRules',
    summary: "The project's standing alert rules",
    description: `CalendarAlertRuleDTO (ours), oldest first. ${KEY}`,
    params: ProjectParams,
    responses: { 200: { description: 'the rules', schema: Type.Array(CalendarAlertRuleDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      scope(caller, params.projectId);
      return { body: (await listCalendarAlertRules(services.db, params.projectId)).map(toCalendarAlertRuleDTO) };
    },
  });

  routes.add<ProjectP, unknown, Static<typeof CalendarAlertRuleRequestDTO>>({
    method: 'post',
    path: '/projects/{projectId}/calendarAlertRules',
    tag: TAG,
    operationId: 'saveCalendarAlertRule',
    summary: 'Create or update a standing alert rule',
    description: `Body (ours): id (absent: a new rule; a rule of this project: updates it; else 404 [CALENDAR_ALERT_RULE_NOT_FOUND]), name, currencies (default empty: all), impacts (default [HIGH]), leadMinutes (default 15), targets. Effective at the next calendar sync (an import that changes the calendar, or a fetch of the online feed): the rule then arms an alert (ruleId set, manual false) for each event of its currencies and impacts in the next eight days whose fire time is still ahead, once per event: an alert it armed that was disarmed or fired is not armed again; its pending alerts take the rule's new lead time and targets at the next sync, and those of events it no longer takes (its currencies or impacts narrowed) are disarmed then (status DISARMED, disarmReason RULE_NARROWED; widening the rule again re-arms them at the sync after, while their fire time is ahead). An event for which a pending alert of the same lead time exists already gets no second one. At most 50 rules per project (400 [CALENDAR_ALERT_RULE_LIMIT_REACHED]). ${TARGETS} ${KEY}`,
    params: ProjectParams,
    body: CalendarAlertRuleRequestDTO,
    bodyRequired: true,
    responses: { 200: { description: 'the rule', schema: CalendarAlertRuleDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, body, caller, context }) {
      scope(caller, params.projectId);
      const ruleId = await saveCalendarAlertRule(services, context, params.projectId, body.id ?? null, {
        name: body.name,
        currencies: body.currencies ?? [],
        impacts: (body.impacts ?? ['HIGH']) as Impact[],
        leadMinutes: body.leadMinutes ?? 15,
        targets: targetsOf(body.targets),
      });
      const [row] = await listCalendarAlertRules(services.db, params.projectId, ruleId);
      return { body: toCalendarAlertRuleDTO(row!) };
    },
  });

  routes.add<{ projectId: string; ruleId: string }, unknown, unknown>({
    method: 'delete',
    path: '/projects/{projectId}/calendarAlertRules/{ruleId}',
    tag: TAG,
    operationId: 'deleteCalendarAlertRule',
    summary: 'Delete a standing rule and its pending alerts',
    description: `The rule's pending alerts are disarmed with it (its fired ones stay in the list of status=FIRED). An unknown rule: 404 [CALENDAR_ALERT_RULE_NOT_FOUND]. ${KEY}`,
    params: RuleParams,
    responses: { 200: { description: 'deleted' }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, context }) {
      scope(caller, params.projectId);
      if ((await listCalendarAlertRules(services.db, params.projectId, params.ruleId)).length === 0)
        throw new ApiError(404, '[CALENDAR_ALERT_RULE_NOT_FOUND]', `no calendar alert rule ${params.ruleId}`);
      await deleteCalendarAlertRule(services, context, params.projectId, params.ruleId);
      return { status: 200 };
    },
  });
};
