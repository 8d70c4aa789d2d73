// Calendar alerts, standing alert rules and calendar subscriptions (spec "Economic calendar, news and
// alerts"): the use cases behind /calendarAlerts, /calendarAlertRules and /calendarSubscriptions. Each
// is a command on the project's alerting stream (domain/alerts); the answer waits for the read model.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { v5 as uuidv5 } from 'uuid';
import type { AlertsCommand, RuleMatch } from '../domain/alerts/commands.js';
import { alertsDecider } from '../domain/alerts/decider.js';
import { alertsStream, type AlertRuleSettings } from '../domain/alerts/events.js';
import type { Impact } from '../domain/calendar/entry.js';
import { distinctTargets, type NotificationTarget } from '../domain/notification/targets.js';
import type { RequestContext } from '../domain/shared/command.js';
import { notFound } from '../domain/shared/errors.js';
import { findCalendarEvent } from '../projections/calendar/queries.js';
import { checkTargets } from './notifications.js';
import { commandMetadata, execute, type Services } from './services.js';

export const ALERTS_READ_MODELS = ['alerts'];
/** Fixed forever: the ids of the alerts a rule arms derive from it. */
const RULE_ALERT_NAMESPACE = '0d9b5c7e-4f21-4a6b-8e3d-7c1a2b5f9e64';

type Data<T extends AlertsCommand['type']> = Omit<Extract<AlertsCommand, { type: T }>['data'], 'projectId'>;

const run = <T extends AlertsCommand['type']>(services: Services, context: RequestContext, projectId: string, type: T, data: Data<T>) =>
  execute(
    services,
    alertsStream(projectId),
    alertsDecider,
    { type, data: { ...data, projectId }, metadata: commandMetadata(services, context) } as unknown as AlertsCommand,
    ALERTS_READ_MODELS,
  );

export const armCalendarAlert = async (
  services: Services,
  context: RequestContext,
  projectId: string,
  input: { eventId: string; leadMinutes: number; targets: readonly NotificationTarget[] },
): Promise<string> => {
  if (!(await findCalendarEvent(services.db, input.eventId))) throw notFound('[CALENDAR_EVENT_NOT_FOUND]', `calendar event ${input.eventId} not found`);
  const targets = distinctTargets(input.targets);
  await checkTargets(services, projectId, targets);
  const alertId = randomUUID();
  const { events } = await run(services, context, projectId, 'ArmCalendarAlert', { alertId, eventId: input.eventId, leadMinutes: input.leadMinutes, targets });
  const changed = events[0];
  if (changed?.type === 'CalendarAlertChanged') return changed.data.alertId;
  if (changed?.type === 'CalendarAlertArmed') return alertId;
  // The same alert again: the existing one.
  const existing = await services.db
    .selectFrom('calendar_alerts')
    .select('alert_id')
    .where('project_id', '=', projectId)
    .where('event_id', '=', input.eventId)
    .where('lead_minutes', '=', input.leadMinutes)
    .where('status', '=', 'PENDING')
    .executeTakeFirstOrThrow();
  return existing.alert_id;
};

export const changeCalendarAlert = async (
  services: Services,
  context: RequestContext,
  projectId: string,
  alertId: string,
  input: { leadMinutes?: number; targets?: readonly NotificationTarget[] },
): Promise<void> => {
  const targets = input.targets ? distinctTargets(input.targets) : undefined;
  if (targets) await checkTargets(services, projectId, targets);
  await run(services, context, projectId, 'ChangeCalendarAlert', {
    alertId,
    ...(input.leadMinutes !== undefined ? { leadMinutes: input.leadMinutes } : {}),
    ...(targets ? { targets } : {}),
  });
};

export const disarmCalendarAlert = async (services: Services, context: RequestContext, projectId: string, alertId: string): Promise<void> => {
  await run(services, context, projectId, 'DisarmCalendarAlert', { alertId });
};

export const saveCalendarAlertRule = async (
  services: Services,
  context: RequestContext,
  projectId: string,
  ruleId: string | null,
  rule: AlertRuleSettings,
): Promise<string> => {
  const targets = distinctTargets(rule.targets);
  await checkTargets(services, projectId, targets);
  const id = ruleId ?? randomUUID();
  if (ruleId) {
    const known = await services.db
      .selectFrom('calendar_alert_rules')
      .select('rule_id')
      .where('rule_id', '=', ruleId)
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    if (!known) throw notFound('[CALENDAR_ALERT_RULE_NOT_FOUND]', `no calendar alert rule ${ruleId}`);
  }
  await run(services, context, projectId, 'SaveCalendarAlertRule', { ruleId: id, rule: { ...rule, targets } });
  return id;
};

export const deleteCalendarAlertRule = async (services: Services, context: RequestContext, projectId: string, ruleId: string): Promise<void> => {
  await run(services, context, projectId, 'DeleteCalendarAlertRule', { ruleId });
};

/** The id of the alert a rule arms on an event: the same at every sync. */
export const ruleAlertId = (ruleId: string, eventId: string): string => uuidv5(`${ruleId}/${eventId}`, RULE_ALERT_NAMESPACE);

/** What the standing rules of every project want armed now: their matches among the events ahead. */
export const ruleMatches = async (services: Pick<Services, 'db'>, now: Date): Promise<Map<string, RuleMatch[]>> => {
  const rules = await services.db.selectFrom('calendar_alert_rules').selectAll().execute();
  const byProject = new Map<string, RuleMatch[]>();
  for (const rule of rules) {
    // Events whose alert is still ahead, within a week (the calendar's default range).
    let q = services.db
      .selectFrom('calendar_events')
      .select('event_id')
      .where('time', '>', new Date(now.getTime() + rule.lead_minutes * 60_000))
      .where('time', '<', new Date(now.getTime() + 8 * 86_400_000))
      .where('impact', 'in', rule.impacts);
    if (rule.currencies.length > 0) q = q.where('currency', 'in', rule.currencies);
    const events = await q.execute();
    const list = byProject.get(rule.project_id) ?? [];
    for (const e of events) list.push({ ruleId: rule.rule_id, eventId: e.event_id, alertId: ruleAlertId(rule.rule_id, e.event_id) });
    byProject.set(rule.project_id, list);
  }
  return byProject;
};

/** The pending alerts a rule armed whose event the rule no longer takes (its currencies or impacts were narrowed), by project. */
export const ruleUnmatched = async (services: Pick<Services, 'db'>): Promise<Map<string, { ruleId: string; alertId: string }[]>> => {
  const { rows } = await sql<{ project_id: string; rule_id: string; alert_id: string }>`SELECT a.project_id, a.rule_id, a.alert_id
    FROM calendar_alerts a JOIN calendar_alert_rules r ON r.rule_id = a.rule_id JOIN calendar_events e ON e.event_id = a.event_id
    WHERE a.status = 'PENDING'
      AND NOT (r.impacts ? e.impact AND (jsonb_array_length(r.currencies) = 0 OR r.currencies ? e.currency))
    ORDER BY a.project_id, a.alert_id`.execute(services.db);
  const byProject = new Map<string, { ruleId: string; alertId: string }[]>();
  for (const r of rows) byProject.set(r.project_id, [...(byProject.get(r.project_id) ?? []), { ruleId: r.rule_id, alertId: r.alert_id }]);
  return byProject;
};

/** At a calendar sync: arms what the rules take now, and disarms their pending alerts of events they no longer take; answers how many were armed. */
export const applyCalendarAlertRules = async (services: Services, context: RequestContext): Promise<number> => {
  let armed = 0;
  const matchesByProject = await ruleMatches(services, services.clock());
  const unmatchedByProject = await ruleUnmatched(services);
  for (const projectId of new Set([...matchesByProject.keys(), ...unmatchedByProject.keys()])) {
    const matches = matchesByProject.get(projectId) ?? [];
    const unmatched = unmatchedByProject.get(projectId) ?? [];
    if (matches.length === 0 && unmatched.length === 0) continue;
    const { events } = await run(services, context, projectId, 'ApplyCalendarAlertRules', { matches, unmatched });
    armed += events.filter((e) => e.type === 'CalendarAlertArmed').length;
  }
  return armed;
};

/** Deleting a project (app/commands/projects.ts): its pending alerts disarmed, its rules deleted, its feed subscriptions revoked. */
export const endProjectAlerting = async (services: Services, context: RequestContext, projectId: string): Promise<void> => {
  await run(services, context, projectId, 'EndProjectAlerting', {});
};

/** SHA-256 of a feed token, hex: what is stored and looked up. */
export const feedTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

export const createCalendarSubscription = async (
  services: Services,
  context: RequestContext,
  projectId: string,
  input: { name: string; currencies: readonly string[]; impacts: readonly Impact[] },
): Promise<{ subscriptionId: string; token: string }> => {
  const subscriptionId = randomUUID();
  // 32 random bytes: the token is the feed's only credential.
  const token = randomBytes(32).toString('base64url');
  await run(services, context, projectId, 'CreateCalendarSubscription', { subscriptionId, tokenHash: feedTokenHash(token), ...input });
  return { subscriptionId, token };
};

export const revokeCalendarSubscription = async (services: Services, context: RequestContext, projectId: string, subscriptionId: string): Promise<void> => {
  await run(services, context, projectId, 'RevokeCalendarSubscription', { subscriptionId });
};
