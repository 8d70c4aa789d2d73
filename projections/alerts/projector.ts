// The calendar alerting read model: one row per alert (every status, for the scheduler and the list),
// per standing rule and per feed subscription (with the token's hash, which the feed looks up).
import { sql } from 'kysely';
import { alertsEventTypes, type AlertsEvent } from '../../domain/alerts/events.js';
import type { Projection } from '../projection.js';

export const alertsProjection: Projection = {
  name: 'alerts',
  version: 2,
  handles: alertsEventTypes,
  tables: ['calendar_alerts', 'calendar_alert_rules', 'calendar_subscriptions'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'calendar_alerts')} (
      alert_id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      event_id uuid NOT NULL,
      lead_minutes integer NOT NULL,
      targets jsonb NOT NULL,
      rule_id uuid,
      status text NOT NULL,
      created timestamptz NOT NULL,
      updated timestamptz NOT NULL,
      fired_at timestamptz,
      deliveries integer,
      disarm_reason text)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'calendar_alert_rules')} (
      rule_id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      name text NOT NULL,
      currencies jsonb NOT NULL,
      impacts jsonb NOT NULL,
      lead_minutes integer NOT NULL,
      targets jsonb NOT NULL,
      created timestamptz NOT NULL,
      updated timestamptz NOT NULL)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'calendar_subscriptions')} (
      subscription_id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      name text NOT NULL,
      token_hash text NOT NULL,
      currencies jsonb NOT NULL,
      impacts jsonb NOT NULL,
      created timestamptz NOT NULL,
      revoked_at timestamptz)`.execute(db);
  },
  async createIndexes(db, schema) {
    await sql`CREATE INDEX ON ${sql.id(schema, 'calendar_alerts')} (project_id, status)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'calendar_alerts')} (status, event_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'calendar_alert_rules')} (project_id)`.execute(db);
    await sql`CREATE UNIQUE INDEX ON ${sql.id(schema, 'calendar_subscriptions')} (token_hash)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as AlertsEvent;
    switch (event.type) {
      case 'CalendarAlertArmed': {
        const d = event.data;
        await db
          .insertInto('calendar_alerts')
          .values({
            alert_id: d.alertId,
            project_id: d.projectId,
            event_id: d.eventId,
            lead_minutes: d.leadMinutes,
            targets: JSON.stringify(d.targets),
            rule_id: d.ruleId,
            status: 'PENDING',
            created: d.at,
            updated: d.at,
            fired_at: null,
            deliveries: null,
            disarm_reason: null,
          })
          // Armed again (a widened rule re-arms what its narrowing disarmed): pending again, with the rule's lead time and targets.
          .onConflict((oc) =>
            oc.column('alert_id').doUpdateSet({
              status: 'PENDING',
              lead_minutes: d.leadMinutes,
              targets: JSON.stringify(d.targets),
              rule_id: d.ruleId,
              updated: d.at,
              disarm_reason: null,
            }),
          )
          .execute();
        return;
      }
      case 'CalendarAlertChanged': {
        const d = event.data;
        await db
          .updateTable('calendar_alerts')
          .set({ lead_minutes: d.leadMinutes, targets: JSON.stringify(d.targets), rule_id: d.ruleId, updated: d.at })
          .where('alert_id', '=', d.alertId)
          .execute();
        return;
      }
      case 'CalendarAlertDisarmed':
        await db
          .updateTable('calendar_alerts')
          .set({ status: 'DISARMED', updated: event.data.at, disarm_reason: event.data.reason })
          .where('alert_id', '=', event.data.alertId)
          .execute();
        return;
      case 'CalendarAlertFired':
        await db
          .updateTable('calendar_alerts')
          .set({ status: 'FIRED', updated: event.data.at, fired_at: event.data.at, deliveries: event.data.deliveries })
          .where('alert_id', '=', event.data.alertId)
          .execute();
        return;
      case 'CalendarAlertMissed':
        await db.updateTable('calendar_alerts').set({ status: 'MISSED', updated: event.data.at }).where('alert_id', '=', event.data.alertId).execute();
        return;
      case 'CalendarAlertRuleSaved': {
        const { ruleId, projectId, rule, at } = event.data;
        const row = {
          name: rule.name,
          currencies: JSON.stringify(rule.currencies),
          impacts: JSON.stringify(rule.impacts),
          lead_minutes: rule.leadMinutes,
          targets: JSON.stringify(rule.targets),
          updated: at,
        };
        await db
          .insertInto('calendar_alert_rules')
          .values({ rule_id: ruleId, project_id: projectId, created: at, ...row })
          .onConflict((oc) => oc.column('rule_id').doUpdateSet(row))
          .execute();
        return;
      }
      case 'CalendarAlertRuleDeleted':
        await db.deleteFrom('calendar_alert_rules').where('rule_id', '=', event.data.ruleId).execute();
        return;
      case 'CalendarSubscriptionCreated': {
        const d = event.data;
        await db
          .insertInto('calendar_subscriptions')
          .values({
            subscription_id: d.subscriptionId,
            project_id: d.projectId,
            name: d.name,
            token_hash: d.tokenHash,
            currencies: JSON.stringify(d.currencies),
            impacts: JSON.stringify(d.impacts),
            created: d.at,
            revoked_at: null,
          })
          .onConflict((oc) => oc.column('subscription_id').doNothing())
          .execute();
        return;
      }
      case 'CalendarSubscriptionRevoked':
        await db
          .updateTable('calendar_subscriptions')
          .set({ revoked_at: event.data.at })
          .where('subscription_id', '=', event.data.subscriptionId)
          .where('revoked_at', 'is', null)
          .execute();
        return;
    }
  },
};
