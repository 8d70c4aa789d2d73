// A project's calendar alerting: alerts, standing rules and feed subscriptions (spec "Economic calendar,
// news and alerts"; the rules below are the spec's where it states them, ours where it is silent and
// then documented in the operations):
//   - an alert is unique per (event, lead time) among the project's pending alerts: arming the same
//     again updates the existing one's targets (a rule's alert armed again by hand becomes manual);
//   - only manual alerts (ruleId null) can be changed (PUT); any pending alert can be disarmed;
//   - a rule arms its alerts at calendar syncs (ApplyCalendarAlertRules), never the same (rule, event)
//     twice: a disarmed or fired one stays so; a pending one follows the rule's lead time and targets;
//   - deleting a rule disarms its pending alerts; narrowing it disarms, at the next sync, its pending alerts
//     of events it no longer takes (RULE_NARROWED; such an alert is armed again if the rule widens to it);
//   - an alert whose event is past the cutoff when the scheduler comes to it is MISSED, not sent;
//   - deleting the project disarms its pending alerts, deletes its rules and revokes its subscriptions;
//   - a subscription is active until revoked; revocation is final.
import type { Decider } from '../shared/command.js';
import { illegalState, invalid, notFound } from '../shared/errors.js';
import { MAX_TARGETS, type NotificationTarget, sameTargets } from '../notification/targets.js';
import type { AlertsCommand } from './commands.js';
import type { AlertRuleSettings, AlertsEvent } from './events.js';

export const ALERT_LIMITS = {
  /** Lead time bounds, minutes before the event. */
  leadMinutes: { min: 0, max: 1440 },
  pendingAlerts: 1000,
  rules: 50,
  activeSubscriptions: 20,
} as const;

export type AlertStatus = 'PENDING' | 'FIRED' | 'DISARMED' | 'MISSED';

export interface AlertState {
  readonly eventId: string;
  readonly leadMinutes: number;
  readonly targets: readonly NotificationTarget[];
  readonly ruleId: string | null;
  readonly status: AlertStatus;
  /** Why it was disarmed, when DISARMED. */
  readonly disarmReason?: string;
}

export interface AlertsState {
  readonly alerts: ReadonlyMap<string, AlertState>;
  readonly rules: ReadonlyMap<string, AlertRuleSettings>;
  /** Subscriptions by id: whether revoked. */
  readonly subscriptions: ReadonlyMap<string, { readonly revoked: boolean }>;
}

export const initialState: AlertsState = { alerts: new Map(), rules: new Map(), subscriptions: new Map() };

const checkLead = (leadMinutes: number): void => {
  const { min, max } = ALERT_LIMITS.leadMinutes;
  if (!Number.isInteger(leadMinutes) || leadMinutes < min || leadMinutes > max)
    throw invalid('[VALIDATION_FAILED]', `leadMinutes must be a whole number from ${min} to ${max}`);
};

const checkTargets = (targets: readonly NotificationTarget[]): void => {
  if (targets.length === 0) throw invalid('[VALIDATION_FAILED]', 'targets: at least one notification target is needed');
  if (targets.length > MAX_TARGETS) throw invalid('[VALIDATION_FAILED]', `targets: at most ${MAX_TARGETS}`);
};

const pendingTwin = (state: AlertsState, eventId: string, leadMinutes: number, except?: string): [string, AlertState] | undefined =>
  [...state.alerts].find(([id, a]) => id !== except && a.status === 'PENDING' && a.eventId === eventId && a.leadMinutes === leadMinutes);

const pendingCount = (state: AlertsState): number => [...state.alerts.values()].filter((a) => a.status === 'PENDING').length;

const pendingAlert = (state: AlertsState, alertId: string): AlertState => {
  const alert = state.alerts.get(alertId);
  if (!alert || alert.status !== 'PENDING') throw notFound('[CALENDAR_ALERT_NOT_FOUND]', `no pending calendar alert ${alertId}`);
  return alert;
};

export const decide = (command: AlertsCommand, state: AlertsState): AlertsEvent[] => {
  const at = command.metadata.now;
  const { projectId } = command.data;
  switch (command.type) {
    case 'ArmCalendarAlert': {
      const { alertId, eventId, leadMinutes, targets } = command.data;
      checkLead(leadMinutes);
      checkTargets(targets);
      const twin = pendingTwin(state, eventId, leadMinutes);
      if (twin) {
        const [id, existing] = twin;
        if (existing.ruleId === null && sameTargets(existing.targets, targets)) return [];
        return [{ type: 'CalendarAlertChanged', data: { projectId, alertId: id, leadMinutes, targets, ruleId: null, at } }];
      }
      if (pendingCount(state) >= ALERT_LIMITS.pendingAlerts)
        throw invalid('[CALENDAR_ALERT_LIMIT_REACHED]', `a project keeps at most ${ALERT_LIMITS.pendingAlerts} pending calendar alerts`);
      return [{ type: 'CalendarAlertArmed', data: { projectId, alertId, eventId, leadMinutes, targets, ruleId: null, at } }];
    }
    case 'ChangeCalendarAlert': {
      const { alertId } = command.data;
      const alert = pendingAlert(state, alertId);
      if (alert.ruleId !== null)
        throw illegalState('[CALENDAR_ALERT_NOT_MANUAL]', `calendar alert ${alertId} was armed by rule ${alert.ruleId}: only manual alerts can be changed`);
      const leadMinutes = command.data.leadMinutes ?? alert.leadMinutes;
      const targets = command.data.targets ?? alert.targets;
      checkLead(leadMinutes);
      checkTargets(targets);
      if (pendingTwin(state, alert.eventId, leadMinutes, alertId))
        throw illegalState('[CALENDAR_ALERT_EXISTS]', `another pending alert of event ${alert.eventId} has lead time ${leadMinutes} minutes`);
      if (leadMinutes === alert.leadMinutes && sameTargets(targets, alert.targets)) return [];
      return [{ type: 'CalendarAlertChanged', data: { projectId, alertId, leadMinutes, targets, ruleId: null, at } }];
    }
    case 'DisarmCalendarAlert': {
      pendingAlert(state, command.data.alertId);
      return [{ type: 'CalendarAlertDisarmed', data: { projectId, alertId: command.data.alertId, reason: 'DISARMED', at } }];
    }
    case 'FireCalendarAlert': {
      const alert = state.alerts.get(command.data.alertId);
      if (!alert || alert.status !== 'PENDING') return [];
      const { alertId, eventTime, deliveries } = command.data;
      return [{ type: 'CalendarAlertFired', data: { projectId, alertId, eventId: alert.eventId, eventTime, deliveries, at } }];
    }
    case 'MissCalendarAlert': {
      const alert = state.alerts.get(command.data.alertId);
      if (!alert || alert.status !== 'PENDING') return [];
      const { alertId, eventTime } = command.data;
      return [{ type: 'CalendarAlertMissed', data: { projectId, alertId, eventId: alert.eventId, eventTime, at } }];
    }
    case 'EndProjectAlerting': {
      const events: AlertsEvent[] = [];
      for (const [alertId, a] of state.alerts)
        if (a.status === 'PENDING') events.push({ type: 'CalendarAlertDisarmed', data: { projectId, alertId, reason: 'PROJECT_DELETED', at } });
      for (const ruleId of state.rules.keys()) events.push({ type: 'CalendarAlertRuleDeleted', data: { projectId, ruleId, at } });
      for (const [subscriptionId, s] of state.subscriptions)
        if (!s.revoked) events.push({ type: 'CalendarSubscriptionRevoked', data: { projectId, subscriptionId, at } });
      return events;
    }
    case 'SaveCalendarAlertRule': {
      const { ruleId, rule } = command.data;
      checkLead(rule.leadMinutes);
      checkTargets(rule.targets);
      if (rule.impacts.length === 0) throw invalid('[VALIDATION_FAILED]', 'impacts: at least one');
      if (!state.rules.has(ruleId) && state.rules.size >= ALERT_LIMITS.rules)
        throw invalid('[CALENDAR_ALERT_RULE_LIMIT_REACHED]', `a project keeps at most ${ALERT_LIMITS.rules} calendar alert rules`);
      const before = state.rules.get(ruleId);
      if (before && JSON.stringify(before) === JSON.stringify(rule)) return [];
      return [{ type: 'CalendarAlertRuleSaved', data: { projectId, ruleId, rule, at } }];
    }
    case 'DeleteCalendarAlertRule': {
      const { ruleId } = command.data;
      if (!state.rules.has(ruleId)) throw notFound('[CALENDAR_ALERT_RULE_NOT_FOUND]', `no calendar alert rule ${ruleId}`);
      const disarmed: AlertsEvent[] = [...state.alerts]
        .filter(([, a]) => a.ruleId === ruleId && a.status === 'PENDING')
        .map(([alertId]) => ({ type: 'CalendarAlertDisarmed', data: { projectId, alertId, reason: 'RULE_DELETED', at } }));
      return [{ type: 'CalendarAlertRuleDeleted', data: { projectId, ruleId, at } }, ...disarmed];
    }
    case 'ApplyCalendarAlertRules': {
      const events: AlertsEvent[] = [];
      for (const { ruleId, alertId } of command.data.unmatched ?? []) {
        const alert = state.alerts.get(alertId);
        if (alert?.status === 'PENDING' && alert.ruleId === ruleId)
          events.push({ type: 'CalendarAlertDisarmed', data: { projectId, alertId, reason: 'RULE_NARROWED', at } });
      }
      let pending = pendingCount(state);
      const byRuleEvent = new Map([...state.alerts].filter(([, a]) => a.ruleId !== null).map(([id, a]) => [`${a.ruleId}/${a.eventId}`, { id, a }]));
      for (const match of command.data.matches) {
        const rule = state.rules.get(match.ruleId);
        if (!rule) continue;
        const known = byRuleEvent.get(`${match.ruleId}/${match.eventId}`);
        if (known?.a.status === 'DISARMED' && known.a.disarmReason === 'RULE_NARROWED') {
          // The rule takes the event again (widened): what its narrowing disarmed is armed again.
          if (pendingTwin(state, match.eventId, rule.leadMinutes) || pending >= ALERT_LIMITS.pendingAlerts) continue;
          pending += 1;
          events.push({
            type: 'CalendarAlertArmed',
            data: { projectId, alertId: known.id, eventId: match.eventId, leadMinutes: rule.leadMinutes, targets: rule.targets, ruleId: match.ruleId, at },
          });
          continue;
        }
        if (known) {
          if (known.a.status !== 'PENDING' || (known.a.leadMinutes === rule.leadMinutes && sameTargets(known.a.targets, rule.targets))) continue;
          if (pendingTwin(state, match.eventId, rule.leadMinutes, known.id)) continue;
          events.push({
            type: 'CalendarAlertChanged',
            data: { projectId, alertId: known.id, leadMinutes: rule.leadMinutes, targets: rule.targets, ruleId: match.ruleId, at },
          });
          continue;
        }
        // A manual alert of the same event and lead time already notifies: the rule does not add a twin.
        if (pendingTwin(state, match.eventId, rule.leadMinutes) || pending >= ALERT_LIMITS.pendingAlerts) continue;
        if (state.alerts.has(match.alertId)) continue;
        pending += 1;
        events.push({
          type: 'CalendarAlertArmed',
          data: {
            projectId,
            alertId: match.alertId,
            eventId: match.eventId,
            leadMinutes: rule.leadMinutes,
            targets: rule.targets,
            ruleId: match.ruleId,
            at,
          },
        });
      }
      return events;
    }
    case 'CreateCalendarSubscription': {
      const { subscriptionId, name, tokenHash, currencies, impacts } = command.data;
      if (state.subscriptions.has(subscriptionId)) return [];
      const active = [...state.subscriptions.values()].filter((s) => !s.revoked).length;
      if (active >= ALERT_LIMITS.activeSubscriptions)
        throw invalid('[CALENDAR_SUBSCRIPTION_LIMIT_REACHED]', `a project keeps at most ${ALERT_LIMITS.activeSubscriptions} active calendar subscriptions`);
      return [{ type: 'CalendarSubscriptionCreated', data: { projectId, subscriptionId, name, tokenHash, currencies, impacts, at } }];
    }
    case 'RevokeCalendarSubscription': {
      const { subscriptionId } = command.data;
      const subscription = state.subscriptions.get(subscriptionId);
      if (!subscription) throw notFound('[CALENDAR_SUBSCRIPTION_NOT_FOUND]', `no calendar subscription ${subscriptionId}`);
      // Revocation is final (spec "Calendar subscription"): revoking again changes nothing.
      if (subscription.revoked) return [];
      return [{ type: 'CalendarSubscriptionRevoked', data: { projectId, subscriptionId, at } }];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

const withAlert = (state: AlertsState, alertId: string, change: (a: AlertState) => AlertState): AlertsState => {
  const alert = state.alerts.get(alertId);
  if (!alert) return state;
  return { ...state, alerts: new Map(state.alerts).set(alertId, change(alert)) };
};

export const evolve = (state: AlertsState, event: AlertsEvent): AlertsState => {
  switch (event.type) {
    case 'CalendarAlertArmed': {
      const { alertId, eventId, leadMinutes, targets, ruleId } = event.data;
      return { ...state, alerts: new Map(state.alerts).set(alertId, { eventId, leadMinutes, targets, ruleId, status: 'PENDING' as const }) };
    }
    case 'CalendarAlertChanged': {
      const { leadMinutes, targets, ruleId } = event.data;
      return withAlert(state, event.data.alertId, (a) => ({ ...a, leadMinutes, targets, ruleId }));
    }
    case 'CalendarAlertDisarmed':
      return withAlert(state, event.data.alertId, (a) => ({ ...a, status: 'DISARMED', disarmReason: event.data.reason }));
    case 'CalendarAlertFired':
      return withAlert(state, event.data.alertId, (a) => ({ ...a, status: 'FIRED' }));
    case 'CalendarAlertMissed':
      return withAlert(state, event.data.alertId, (a) => ({ ...a, status: 'MISSED' }));
    case 'CalendarAlertRuleSaved':
      return { ...state, rules: new Map(state.rules).set(event.data.ruleId, event.data.rule) };
    case 'CalendarAlertRuleDeleted': {
      const rules = new Map(state.rules);
      rules.delete(event.data.ruleId);
      return { ...state, rules };
    }
    case 'CalendarSubscriptionCreated':
      return { ...state, subscriptions: new Map(state.subscriptions).set(event.data.subscriptionId, { revoked: false }) };
    case 'CalendarSubscriptionRevoked':
      return { ...state, subscriptions: new Map(state.subscriptions).set(event.data.subscriptionId, { revoked: true }) };
    default:
      return state;
  }
};

export const alertsDecider: Decider<AlertsCommand, AlertsEvent, AlertsState> = { decide, evolve, initialState };
