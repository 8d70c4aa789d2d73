// Queries of the calendar alerting read model.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

const iso = (d: Date | string): string => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null): string | null => (d === null ? null : iso(d));

export interface AlertRow {
  readonly alertId: string;
  readonly eventId: string;
  readonly event: { title: string; country: string; currency: string; impact: string; time: string } | null;
  readonly leadMinutes: number;
  readonly targets: readonly { featureId: string; recipient: string | null }[];
  readonly ruleId: string | null;
  readonly status: string;
  readonly created: string;
  readonly updated: string;
  readonly firedAt: string | null;
  readonly deliveries: number | null;
  readonly disarmReason: string | null;
}

export const listCalendarAlerts = async (
  db: Kysely<ReadModels>,
  projectId: string,
  filter: { status: string; eventId?: string; alertId?: string },
): Promise<AlertRow[]> => {
  let q = db
    .selectFrom('calendar_alerts as a')
    .leftJoin('calendar_events as e', 'e.event_id', 'a.event_id')
    .select([
      'a.alert_id',
      'a.event_id',
      'a.lead_minutes',
      'a.targets',
      'a.rule_id',
      'a.status',
      'a.created',
      'a.updated',
      'a.fired_at',
      'a.deliveries',
      'a.disarm_reason',
      'e.title',
      'e.country',
      'e.currency',
      'e.impact',
      'e.time',
    ])
    .where('a.project_id', '=', projectId);
  if (filter.alertId) q = q.where('a.alert_id', '=', filter.alertId);
  else q = q.where('a.status', '=', filter.status);
  if (filter.eventId) q = q.where('a.event_id', '=', filter.eventId);
  const rows = await q.orderBy('e.time').orderBy('a.lead_minutes', 'desc').orderBy('a.alert_id').limit(1000).execute();
  return rows.map((r) => ({
    alertId: r.alert_id,
    eventId: r.event_id,
    event: r.title !== null && r.time !== null ? { title: r.title, country: r.country!, currency: r.currency!, impact: r.impact!, time: iso(r.time) } : null,
    leadMinutes: r.lead_minutes,
    targets: r.targets,
    ruleId: r.rule_id,
    status: r.status,
    created: iso(r.created),
    updated: iso(r.updated),
    firedAt: isoOrNull(r.fired_at),
    deliveries: r.deliveries,
    disarmReason: r.disarm_reason,
  }));
};

export const findCalendarAlert = async (db: Kysely<ReadModels>, projectId: string, alertId: string): Promise<AlertRow | undefined> =>
  (await listCalendarAlerts(db, projectId, { status: 'PENDING', alertId }))[0];

export interface AlertRuleRow {
  readonly ruleId: string;
  readonly name: string;
  readonly currencies: readonly string[];
  readonly impacts: readonly string[];
  readonly leadMinutes: number;
  readonly targets: readonly { featureId: string; recipient: string | null }[];
  readonly created: string;
  readonly updated: string;
}

export const listCalendarAlertRules = async (db: Kysely<ReadModels>, projectId: string, ruleId?: string): Promise<AlertRuleRow[]> => {
  let q = db.selectFrom('calendar_alert_rules').selectAll().where('project_id', '=', projectId);
  if (ruleId) q = q.where('rule_id', '=', ruleId);
  return (await q.orderBy('created').orderBy('rule_id').execute()).map((r) => ({
    ruleId: r.rule_id,
    name: r.name,
    currencies: r.currencies,
    impacts: r.impacts,
    leadMinutes: r.lead_minutes,
    targets: r.targets,
    created: iso(r.created),
    updated: iso(r.updated),
  }));
};

export interface SubscriptionRow {
  readonly subscriptionId: string;
  readonly projectId: string;
  readonly name: string;
  readonly currencies: readonly string[];
  readonly impacts: readonly string[];
  readonly created: string;
  readonly revokedAt: string | null;
}

const subscriptionOf = (r: {
  subscription_id: string;
  project_id: string;
  name: string;
  currencies: string[];
  impacts: string[];
  created: Date;
  revoked_at: Date | null;
}): SubscriptionRow => ({
  subscriptionId: r.subscription_id,
  projectId: r.project_id,
  name: r.name,
  currencies: r.currencies,
  impacts: r.impacts,
  created: iso(r.created),
  revokedAt: isoOrNull(r.revoked_at),
});

const SUBSCRIPTION_COLUMNS = ['subscription_id', 'project_id', 'name', 'currencies', 'impacts', 'created', 'revoked_at'] as const;

export const listCalendarSubscriptions = async (db: Kysely<ReadModels>, projectId: string, subscriptionId?: string): Promise<SubscriptionRow[]> => {
  let q = db.selectFrom('calendar_subscriptions').select(SUBSCRIPTION_COLUMNS).where('project_id', '=', projectId);
  if (subscriptionId) q = q.where('subscription_id', '=', subscriptionId);
  return (await q.orderBy('created').orderBy('subscription_id').execute()).map(subscriptionOf);
};

/** The subscription a feed token's hash belongs to, revoked or not. */
export const subscriptionByTokenHash = async (db: Kysely<ReadModels>, tokenHash: string): Promise<SubscriptionRow | undefined> => {
  const row = await db.selectFrom('calendar_subscriptions').select(SUBSCRIPTION_COLUMNS).where('token_hash', '=', tokenHash).executeTakeFirst();
  return row ? subscriptionOf(row) : undefined;
};
