// The protections read model: the triggers in force on each account (a risk limit hit, a profit target
// locked), for the copy engine (no new copies), account information and the risk limits' status.
// A trigger leaves when the monitor clears it (its period ended, its rule went), when its rule is
// reset, deleted or deactivated, or when its profit target feature is removed. Readers also drop a
// trigger whose `until` has passed, so a new period unblocks at its first second.
import { sql } from 'kysely';
import type { FeatureEvent } from '../../domain/feature/events.js';
import { protectionEventTypes, type ProtectionEvent } from '../../domain/protection/events.js';
import type { RiskLimitEvent } from '../../domain/riskLimit/events.js';
import type { Projection } from '../projection.js';

export const protectionsProjection: Projection = {
  name: 'protections',
  version: 1,
  handles: [...protectionEventTypes, 'RiskLimitUpdated', 'RiskLimitDeleted', 'FeatureRemoved'],
  tables: ['account_protections'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'account_protections')} (
      account_id uuid NOT NULL,
      trigger_id text NOT NULL,
      rule_kind text NOT NULL,
      rule_id uuid NOT NULL,
      rule_type text NOT NULL,
      level text NOT NULL,
      anchor text NOT NULL,
      symbol text,
      until timestamptz,
      action text NOT NULL,
      measured double precision NOT NULL,
      threshold double precision NOT NULL,
      threshold_member text NOT NULL,
      currency text NOT NULL,
      message text NOT NULL,
      at timestamptz NOT NULL,
      positions_closed_at timestamptz,
      PRIMARY KEY (account_id, trigger_id))`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'account_protections')} (rule_id)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as ProtectionEvent | RiskLimitEvent | FeatureEvent;
    switch (event.type) {
      case 'ProtectionTriggered': {
        const d = event.data;
        await db
          .insertInto('account_protections')
          .values({
            account_id: d.accountId,
            trigger_id: d.triggerId,
            rule_kind: d.ruleKind,
            rule_id: d.ruleId,
            rule_type: d.ruleType,
            level: d.level,
            anchor: d.anchor,
            symbol: d.symbol,
            until: d.until,
            action: d.action,
            measured: d.measured,
            threshold: d.threshold,
            threshold_member: d.thresholdMember,
            currency: d.currency,
            message: d.message,
            at: d.at,
            positions_closed_at: null,
          })
          .onConflict((oc) => oc.columns(['account_id', 'trigger_id']).doNothing())
          .execute();
        return;
      }
      case 'ProtectionCleared':
        if (event.data.triggerIds.length === 0) return;
        await db
          .deleteFrom('account_protections')
          .where('account_id', '=', event.data.accountId)
          .where('trigger_id', 'in', [...event.data.triggerIds])
          .execute();
        return;
      case 'ProtectionReset':
        await db.deleteFrom('account_protections').where('account_id', '=', event.data.accountId).where('rule_id', '=', event.data.ruleId).execute();
        return;
      case 'ProtectionPositionsClosed':
        await db
          .updateTable('account_protections')
          .set({ positions_closed_at: event.data.at })
          .where('account_id', '=', event.data.accountId)
          .where('trigger_id', '=', event.data.triggerId)
          .execute();
        return;
      case 'RiskLimitUpdated':
        if (!event.data.settings.active) await db.deleteFrom('account_protections').where('rule_id', '=', event.data.riskLimitId).execute();
        return;
      case 'RiskLimitDeleted':
        await db.deleteFrom('account_protections').where('rule_id', '=', event.data.riskLimitId).execute();
        return;
      case 'FeatureRemoved':
        await db.deleteFrom('account_protections').where('rule_id', '=', event.data.featureId).execute();
        return;
      default:
        return;
    }
  },
};
