// ApprovalDTO (spec: body of POST /accounts/{accountId}/approvals; its fields are not shown, so they are
// ours) and PendingApprovalDTO (ours: what GET /accounts/{accountId}/approvals lists).
import { Type } from '@sinclair/typebox';
import { IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

export const ApprovalDTO = Type.Object(
  {
    approvalId: Type.Optional(
      Type.String({ format: 'uuid', description: 'the waiting approval to decide (PendingApprovalDTO.approvalId); send this or positionId' }),
    ),
    positionId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          "the master's position or pending order id: decides every approval of it still waiting on this account (one per copier); send this or approvalId",
      }),
    ),
    approved: Type.Boolean({ description: 'true: copy it now; false: do not copy it (skipped with APPROVAL_REJECTED)' }),
  },
  { $id: 'ApprovalDTO', additionalProperties: false, description: 'A decision on a master open that FeatureApprovalDTO holds back' },
);

export const PendingApprovalDTO = Type.Object(
  {
    approvalId: Uuid,
    copierId: Uuid,
    masterAccountId: Uuid,
    masterPositionId: Type.String({ description: "the master's position or pending order id" }),
    symbol: Type.String({ description: "the master's symbol" }),
    orderType: Type.String({ description: "the master's order type: Buy, Sell, BuyLimit, SellLimit, BuyStop, SellStop" }),
    volume: Type.Number({ description: "the master's lots (the copy is sized when approved)" }),
    openPrice: Type.Number({ description: "the master's fill price, or the pending order's trigger price" }),
    stopLoss: Nullable(Type.Number()),
    takeProfit: Nullable(Type.Number()),
    requestedAt: IsoDateTime,
    expiresAt: Type.String({ format: 'date-time', description: 'without a decision by then, the open is skipped with APPROVAL_EXPIRED' }),
  },
  { $id: 'PendingApprovalDTO', additionalProperties: false, description: 'A master open waiting for a decision (FeatureApprovalDTO)' },
);
