// The tables of the calendar alerting read model (projector.ts), joined into ReadModels (schema.ts).
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface CalendarAlertsTable {
  alert_id: string;
  project_id: string;
  event_id: string;
  lead_minutes: number;
  /** [{featureId, recipient}] */
  targets: Json<{ featureId: string; recipient: string | null }[]>;
  rule_id: string | null;
  status: string;
  created: Timestamp;
  updated: Timestamp;
  fired_at: Timestamp | null;
  /** Why it was disarmed (CalendarAlertDisarmed.reason); null unless DISARMED. */
  disarm_reason: string | null;
  deliveries: number | null;
}

export interface CalendarAlertRulesTable {
  rule_id: string;
  project_id: string;
  name: string;
  currencies: Json<string[]>;
  impacts: Json<string[]>;
  lead_minutes: number;
  targets: Json<{ featureId: string; recipient: string | null }[]>;
  created: Timestamp;
  updated: Timestamp;
}

export interface CalendarSubscriptionsTable {
  subscription_id: string;
  project_id: string;
  name: string;
  token_hash: string;
  currencies: Json<string[]>;
  impacts: Json<string[]>;
  created: Timestamp;
  revoked_at: Timestamp | null;
}

export interface AlertsTables {
  calendar_alerts: CalendarAlertsTable;
  calendar_alert_rules: CalendarAlertRulesTable;
  calendar_subscriptions: CalendarSubscriptionsTable;
}
