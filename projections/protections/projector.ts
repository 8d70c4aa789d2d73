// The protections read model: the triggers in force on each account (a risk limit hit, a profit target
// locked), for the copy engine (no new copies), account information and the risk limits' status; and
// the references the rules measure from now (protection_references: RiskLimitStatusDTO and
// ProfitTargetStatusDTO), kept as the protection aggregate keeps them (a newer period of a family
// replaces the older one and the resets within it; a newer reset of a rule its older one).
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
  // 3: protection_locked_closes.
  version: 3,
  handles: [...protectionEventTypes, 'RiskLimitUpdated', 'RiskLimitDeleted', 'FeatureRemoved'],
  tables: ['account_protections', 'protection_references', 'protection_locked_closes'],
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
    await sql`CREATE TABLE ${sql.id(schema, 'protection_references')} (
      account_id uuid NOT NULL,
      anchor text NOT NULL,
      kind text NOT NULL,
      rule_id uuid,
      family text,
      start timestamptz NOT NULL,
      balance double precision NOT NULL,
      equity double precision NOT NULL,
      observed_at timestamptz NOT NULL,
      PRIMARY KEY (account_id, anchor))`.execute(db);
    // Closes decided while a target locked the account and not finished yet (closed, gone, or refused
    // after the lock ended): the monitor finishes them after a restart, even once the lock has ended.
    await sql`CREATE TABLE ${sql.id(schema, 'protection_locked_closes')} (
      account_id uuid NOT NULL,
      trigger_id text NOT NULL,
      position_id text NOT NULL,
      PRIMARY KEY (account_id, trigger_id, position_id))`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as ProtectionEvent | RiskLimitEvent | FeatureEvent;
    switch (event.type) {
      case 'ProtectionReferenceRecorded': {
        const d = event.data;
        const family = d.family ?? d.unit;
        let replaced = db.deleteFrom('protection_references').where('account_id', '=', d.accountId);
        replaced =
          d.kind === 'PERIOD'
            ? replaced.where('kind', '<>', 'OVERALL').where('family', '=', family).where('start', '<', new Date(d.start))
            : replaced.where('kind', '=', d.kind).where('rule_id', '=', d.ruleId).where('anchor', '<>', d.anchor);
        await replaced.execute();
        await db
          .insertInto('protection_references')
          .values({
            account_id: d.accountId,
            anchor: d.anchor,
            kind: d.kind,
            rule_id: d.ruleId,
            family,
            start: d.start,
            balance: d.balance,
            equity: d.equity,
            observed_at: d.observedAt,
          })
          .onConflict((oc) => oc.columns(['account_id', 'anchor']).doNothing())
          .execute();
        return;
      }
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
      case 'ProtectionClosingDecided':
        // Its outcome (ProtectionPositionsClosed) is what the read model keeps.
        return;
      case 'ProtectionPositionsClosed':
        await db
          .updateTable('account_protections')
          .set({ positions_closed_at: event.data.at })
          .where('account_id', '=', event.data.accountId)
          .where('trigger_id', '=', event.data.triggerId)
          .execute();
        return;
      case 'ProtectionLockedCloseDecided':
        await db
          .insertInto('protection_locked_closes')
          .values({ account_id: event.data.accountId, trigger_id: event.data.triggerId, position_id: event.data.positionId })
          .onConflict((oc) => oc.columns(['account_id', 'trigger_id', 'position_id']).doNothing())
          .execute();
        return;
      case 'ProtectionLockedPositionClosed':
      case 'ProtectionCloseFailed':
        if (event.type === 'ProtectionCloseFailed' && event.data.final !== true) return;
        await db
          .deleteFrom('protection_locked_closes')
          .where('account_id', '=', event.data.accountId)
          .where('trigger_id', '=', event.data.triggerId)
          .where('position_id', '=', event.data.positionId)
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
