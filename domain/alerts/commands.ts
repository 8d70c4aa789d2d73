import type { CommandMetadata } from '../shared/command.js';
import type { Impact } from '../calendar/entry.js';
import type { NotificationTarget } from '../notification/targets.js';
import type { AlertRuleSettings } from './events.js';

type Of<T extends string, D> = { type: T; data: D & { projectId: string }; metadata: CommandMetadata };

/**
 * ApplyCalendarAlertRules: `matches` are the rules' words on the upcoming calendar events; `unmatched` the
 * pending alerts a rule armed whose event its currencies and impacts no longer take (the rule was narrowed).
 */
/** A rule's word on one upcoming calendar event at a sync: the alert it wants, with the id it gets when new. */
export interface RuleMatch {
  readonly ruleId: string;
  readonly eventId: string;
  readonly alertId: string;
}

export type AlertsCommand =
  | Of<'ArmCalendarAlert', { alertId: string; eventId: string; leadMinutes: number; targets: readonly NotificationTarget[] }>
  | Of<'ChangeCalendarAlert', { alertId: string; leadMinutes?: number; targets?: readonly NotificationTarget[] }>
  | Of<'DisarmCalendarAlert', { alertId: string }>
  | Of<'FireCalendarAlert', { alertId: string; eventTime: string; deliveries: number }>
  | Of<'SaveCalendarAlertRule', { ruleId: string; rule: AlertRuleSettings }>
  | Of<'DeleteCalendarAlertRule', { ruleId: string }>
  | Of<'ApplyCalendarAlertRules', { matches: readonly RuleMatch[]; unmatched?: readonly { ruleId: string; alertId: string }[] }>
  | Of<'MissCalendarAlert', { alertId: string; eventTime: string }>
  | Of<'EndProjectAlerting', Record<never, never>>
  | Of<'CreateCalendarSubscription', { subscriptionId: string; name: string; tokenHash: string; currencies: readonly string[]; impacts: readonly Impact[] }>
  | Of<'RevokeCalendarSubscription', { subscriptionId: string }>;
