// The approvals read model: every master open FeatureApprovalDTO held back (a CopyDeferred by that
// feature; its event id is the approval's id), the decision a person took (ApprovalDecided) and what the
// engine did when it decided the open again (the outcome of the deferral: copied, failed, skipped with
// a reason, or held back again by another rule).
import { sql } from 'kysely';
import { approvalEventTypes, type ApprovalEvent } from '../../domain/approval/events.js';
import { APPROVAL } from '../../domain/copy/features/approval.js';
import { type CopyEvent, DEFERRAL_SOURCE } from '../../domain/copy/events.js';
import type { Projection } from '../projection.js';

const outcomeOf = (event: CopyEvent): string => {
  switch (event.type) {
    case 'CopyExecuted':
      return 'COPIED';
    case 'CopyFailed':
      return 'FAILED';
    case 'CopyDeferred':
      return 'DEFERRED';
    case 'TradeSkipped':
      return event.data.reason;
  }
};

export const approvalsProjection: Projection = {
  name: 'approvals',
  version: 2,
  handles: ['CopyDeferred', 'CopyExecuted', 'CopyFailed', 'TradeSkipped', ...approvalEventTypes],
  tables: ['approvals'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'approvals')} (
      id uuid PRIMARY KEY,
      copier_id uuid NOT NULL,
      master_account_id uuid NOT NULL,
      slave_account_id uuid NOT NULL,
      master_position_id text NOT NULL,
      symbol text NOT NULL,
      order_type text NOT NULL,
      volume double precision NOT NULL,
      open_price double precision NOT NULL,
      stop_loss double precision,
      take_profit double precision,
      requested_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      decision text,
      decided_at timestamptz,
      decided_volume double precision,
      outcome text,
      resolved_at timestamptz)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'approvals')} (slave_account_id, requested_at)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'approvals')} (copier_id, master_position_id)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as CopyEvent | ApprovalEvent;
    if (event.type === 'ApprovalDecided') {
      await db
        .updateTable('approvals')
        .set({ decision: event.data.approved ? 'approved' : 'rejected', decided_at: event.data.at, decided_volume: event.data.volume ?? null })
        .where('id', '=', event.data.approvalId)
        .where('decision', 'is', null)
        .execute();
      return;
    }
    // The outcome of a deferral that was an approval's ends its wait.
    if (event.data.source.type === DEFERRAL_SOURCE) {
      await db
        .updateTable('approvals')
        .set({ outcome: outcomeOf(event), resolved_at: event.data.at })
        .where('id', '=', event.data.source.eventId)
        .where('outcome', 'is', null)
        .execute();
    }
    if (event.type !== 'CopyDeferred' || event.data.by !== APPROVAL) return;
    const d = event.data;
    const trade = d.masterEvent.data as {
      symbol: string;
      orderType?: string;
      volume?: number;
      openPrice?: number;
      stopLoss?: number | null;
      takeProfit?: number | null;
    };
    await db
      .insertInto('approvals')
      .values({
        id: recorded.id,
        copier_id: d.copierId,
        master_account_id: d.masterAccountId,
        slave_account_id: d.slaveAccountId,
        master_position_id: d.masterPositionId,
        symbol: trade.symbol,
        order_type: trade.orderType ?? '',
        volume: trade.volume ?? 0,
        open_price: trade.openPrice ?? 0,
        stop_loss: trade.stopLoss ?? null,
        take_profit: trade.takeProfit ?? null,
        requested_at: d.at,
        expires_at: d.until,
        decision: null,
        decided_at: null,
        decided_volume: null,
        outcome: null,
        resolved_at: null,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  },
};
