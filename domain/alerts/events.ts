// Events of a project's calendar alerting (stream `calendarAlerts-<projectId>`): the alerts armed on
// calendar events (spec "Economic calendar, news and alerts": /calendarAlerts), the standing rules that
// arm them at each calendar sync (/calendarAlertRules) and the iCal feed subscriptions
// (/calendarSubscriptions, state "Calendar subscription"). One stream per project: an alert is unique
// per (event, lead time) within the project, which its decider checks against the others.
import type { Impact } from '../calendar/entry.js';
import type { NotificationTarget } from '../notification/targets.js';

export interface AlertRuleSettings {
  readonly name: string;
  /** Empty: every currency. */
  readonly currencies: readonly string[];
  /** The impacts it arms alerts for (at least one). */
  readonly impacts: readonly Impact[];
  readonly leadMinutes: number;
  readonly targets: readonly NotificationTarget[];
}

export type AlertsEvent =
  | {
      type: 'CalendarAlertArmed';
      data: {
        projectId: string;
        alertId: string;
        eventId: string;
        leadMinutes: number;
        targets: readonly NotificationTarget[];
        /** The standing rule that armed it; null: armed by hand (POST /calendarAlerts). */
        ruleId: string | null;
        at: string;
      };
    }
  | {
      type: 'CalendarAlertChanged';
      data: { projectId: string; alertId: string; leadMinutes: number; targets: readonly NotificationTarget[]; ruleId: string | null; at: string };
    }
  | {
      type: 'CalendarAlertDisarmed';
      data: {
        projectId: string;
        alertId: string;
        /** By hand; its rule deleted; its rule narrowed so that its event no longer matches; its project deleted. */
        reason: 'DISARMED' | 'RULE_DELETED' | 'RULE_NARROWED' | 'PROJECT_DELETED';
        at: string;
      };
    }
  | {
      type: 'CalendarAlertFired';
      data: { projectId: string; alertId: string; eventId: string; eventTime: string; deliveries: number; at: string };
    }
  | {
      /** Not sent: its event was more than the cutoff past when the scheduler came to it (downtime, or armed on a past event). */
      type: 'CalendarAlertMissed';
      data: { projectId: string; alertId: string; eventId: string; eventTime: string; at: string };
    }
  | { type: 'CalendarAlertRuleSaved'; data: { projectId: string; ruleId: string; rule: AlertRuleSettings; at: string } }
  | { type: 'CalendarAlertRuleDeleted'; data: { projectId: string; ruleId: string; at: string } }
  | {
      type: 'CalendarSubscriptionCreated';
      data: {
        projectId: string;
        subscriptionId: string;
        name: string;
        /** SHA-256 of the token, hex: the token itself is answered once and never stored. */
        tokenHash: string;
        currencies: readonly string[];
        impacts: readonly Impact[];
        at: string;
      };
    }
  | { type: 'CalendarSubscriptionRevoked'; data: { projectId: string; subscriptionId: string; at: string } };

export type AlertsEventType = AlertsEvent['type'];
export const alertsEventTypes: readonly AlertsEventType[] = [
  'CalendarAlertArmed',
  'CalendarAlertChanged',
  'CalendarAlertDisarmed',
  'CalendarAlertFired',
  'CalendarAlertMissed',
  'CalendarAlertRuleSaved',
  'CalendarAlertRuleDeleted',
  'CalendarSubscriptionCreated',
  'CalendarSubscriptionRevoked',
];

export const ALERTS_STREAM_PREFIX = 'calendarAlerts-';
export const alertsStream = (projectId: string): string => `${ALERTS_STREAM_PREFIX}${projectId}`;
