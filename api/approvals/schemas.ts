// ApprovalDTO (spec: body of POST /accounts/{accountId}/approvals; the reference's members accountFromId,
// ticket and volume, with our `approved`) and PendingApprovalDTO (ours: what GET
// /accounts/{accountId}/approvals lists).
import { Type } from '@sinclair/typebox';
import { IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

export const ApprovalDTO = Type.Object(
  {
    accountFromId: Type.String({ format: 'uuid', description: 'The account UUID: the master account whose open waits for approval on this account' }),
    ticket: Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: "The ticket number of the position: the master's position or pending order (PendingApprovalDTO.masterPositionId)",
    }),
    volume: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1_000_000,
        description:
          "You can override the volume (lots). If not specified, it will use the lot size specified by the copier. 0 is 'not specified'. The lot replaces the copier's scaling only: its maxLotSize and maximumLot, the slave symbol's lot step (rounded down), minimum (forceMinTrade) and maximum, and the features' volume caps still apply",
      }),
    ),
    approved: Type.Optional(
      Type.Boolean({ default: true, description: 'ours: true (default) copies it now; false does not copy it (skipped with APPROVAL_REJECTED)' }),
    ),
  },
  {
    $id: 'ApprovalDTO',
    additionalProperties: false,
    description: "A decision on a master open that FeatureApprovalDTO holds back on this account, named by the master account and the position's ticket",
  },
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
