// PendingApprovalDTO from the approvals read model.
import type { Static } from '@sinclair/typebox';
import type { ApprovalRow } from '../../projections/approvals/queries.js';
import type { PendingApprovalDTO } from './schemas.js';

const iso = (value: Date | string): string => new Date(value).toISOString();

export const toPendingApprovalDTO = (row: ApprovalRow): Static<typeof PendingApprovalDTO> => ({
  approvalId: row.id,
  copierId: row.copier_id,
  masterAccountId: row.master_account_id,
  masterPositionId: row.master_position_id,
  symbol: row.symbol,
  orderType: row.order_type,
  volume: row.volume,
  openPrice: row.open_price,
  stopLoss: row.stop_loss,
  takeProfit: row.take_profit,
  requestedAt: iso(row.requested_at),
  expiresAt: iso(row.expires_at),
});
