// What a webhook delivers (domain/webhook/payload.ts): the event kinds each position event gives, the
// stable delivery id, and the body with and without its options.
import { expect } from 'chai';
import type { ClosedTradeData, PositionData, PositionsEvent } from '../../../domain/positions/events.js';
import { buildWebhookPayload, webhookEventId, webhookKindsOf } from '../../../domain/webhook/payload.js';

const ACCOUNT = '11111111-1111-4111-8111-111111111111';
const FEATURE = '22222222-2222-4222-8222-222222222222';
const SOURCE = '33333333-3333-4333-8333-333333333333';
const AT = '2026-01-07T10:00:01.000Z';

const position: PositionData = {
  positionId: '1001',
  symbol: 'BTCUSD',
  orderType: 'Buy',
  volume: 0.5,
  openPrice: 42010.5,
  openTime: '2026-01-07T10:00:00.000Z',
  stopLoss: 41000,
  takeProfit: null,
  swap: 0,
  commission: -1.2,
  comment: 'hello',
  magicNumber: 7,
  clientOrderId: 'client-1',
};
const trade: ClosedTradeData = {
  tradeId: 't-1',
  positionId: '1001',
  symbol: 'BTCUSD',
  orderType: 'Buy',
  volume: 0.5,
  openPrice: 42010.5,
  openTime: '2026-01-07T10:00:00.000Z',
  closePrice: 42100,
  closeTime: AT,
  profit: 44.75,
  swap: -0.1,
  commission: -1.2,
  reason: 'takeProfit',
  comment: 'hello',
  magicNumber: 7,
  clientOrderId: 'client-1',
};
const opened: PositionsEvent = { type: 'PositionOpened', data: { accountId: ACCOUNT, at: AT, position } };
const closed: PositionsEvent = { type: 'PositionClosed', data: { accountId: ACCOUNT, at: AT, trade } };
const partial: PositionsEvent = {
  type: 'PositionPartiallyClosed',
  data: { accountId: ACCOUNT, at: AT, position: { ...position, volume: 0.2 }, trade: { ...trade, volume: 0.3 } },
};
const deposit: PositionsEvent = {
  type: 'BalanceChanged',
  data: { accountId: ACCOUNT, at: AT, operation: { operationId: 'op-1', time: AT, amount: 500, comment: 'top up' } },
};
const account = { accountId: ACCOUNT, projectId: 'p', alias: 'Main', loginServer: 'Demo', loginAccountNumber: '5001', accountTypeId: 1, regionId: 2 };
const all = { includePositionDetails: true, includeAccountMetadata: true };
const none = { includePositionDetails: false, includeAccountMetadata: false };

describe('webhook payload', () => {
  it('maps opens to POSITION_OPENED, full closes to POSITION_CLOSED and HISTORY_UPDATED, partial closes and balance changes to HISTORY_UPDATED, and nothing else', () => {
    expect(webhookKindsOf(opened)).to.deep.equal(['POSITION_OPENED']);
    expect(webhookKindsOf(closed)).to.deep.equal(['POSITION_CLOSED', 'HISTORY_UPDATED']);
    expect(webhookKindsOf(partial)).to.deep.equal(['HISTORY_UPDATED']);
    expect(webhookKindsOf(deposit)).to.deep.equal(['HISTORY_UPDATED']);
    expect(webhookKindsOf({ type: 'PositionModified', data: { accountId: ACCOUNT, at: AT, position } })).to.deep.equal([]);
    expect(webhookKindsOf({ type: 'VenueDisconnected', data: { accountId: ACCOUNT, at: AT, reason: 'stopped' } })).to.deep.equal([]);
  });

  it('gives each (source event, webhook, kind) one stable UUID v5, different for another webhook or kind', () => {
    const id = webhookEventId(SOURCE, FEATURE, 'POSITION_CLOSED');
    expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(webhookEventId(SOURCE, FEATURE, 'POSITION_CLOSED')).to.equal(id);
    expect(webhookEventId(SOURCE, FEATURE, 'HISTORY_UPDATED')).not.to.equal(id);
    expect(webhookEventId(SOURCE, '44444444-4444-4444-8444-444444444444', 'POSITION_CLOSED')).not.to.equal(id);
  });

  it('builds POSITION_OPENED with the open position and the account metadata', () => {
    expect(buildWebhookPayload({ sourceEventId: SOURCE, event: opened, kind: 'POSITION_OPENED', featureId: FEATURE, options: all, account })).to.deep.equal({
      eventId: webhookEventId(SOURCE, FEATURE, 'POSITION_OPENED'),
      type: 'POSITION_OPENED',
      occurredAt: AT,
      webhookId: FEATURE,
      accountId: ACCOUNT,
      positionId: '1001',
      position: {
        positionId: '1001',
        symbol: 'BTCUSD',
        orderType: 'Buy',
        volume: 0.5,
        openPrice: 42010.5,
        openTime: '2026-01-07T10:00:00.000Z',
        stopLoss: 41000,
        takeProfit: null,
        swap: 0,
        commission: -1.2,
        comment: 'hello',
        magicNumber: 7,
        fromPendingOrder: false,
      },
      account,
    });
  });

  it('builds POSITION_CLOSED with the closed trade, and its HISTORY_UPDATED with the same trade as a history entry', () => {
    const closedTrade = {
      tradeId: 't-1',
      positionId: '1001',
      symbol: 'BTCUSD',
      orderType: 'Buy',
      volume: 0.5,
      openPrice: 42010.5,
      openTime: '2026-01-07T10:00:00.000Z',
      closePrice: 42100,
      closeTime: AT,
      profit: 44.75,
      swap: -0.1,
      commission: -1.2,
      closeReason: 'takeProfit',
      comment: 'hello',
      magicNumber: 7,
    };
    const asClose = buildWebhookPayload({
      sourceEventId: SOURCE,
      event: closed,
      kind: 'POSITION_CLOSED',
      featureId: FEATURE,
      options: { ...all, includeAccountMetadata: false },
      account,
    });
    expect(asClose).to.deep.equal({
      eventId: webhookEventId(SOURCE, FEATURE, 'POSITION_CLOSED'),
      type: 'POSITION_CLOSED',
      occurredAt: AT,
      webhookId: FEATURE,
      accountId: ACCOUNT,
      positionId: '1001',
      position: closedTrade,
    });
    const asHistory = buildWebhookPayload({
      sourceEventId: SOURCE,
      event: closed,
      kind: 'HISTORY_UPDATED',
      featureId: FEATURE,
      options: { ...all, includeAccountMetadata: false },
      account,
    });
    expect(asHistory.historyEntry).to.deep.equal({ entryType: 'TRADE', ...closedTrade, partial: false, remainingVolume: 0 });
    expect(asHistory).not.to.have.property('position');
  });

  it('builds HISTORY_UPDATED for a partial close (with what remains) and for a deposit (positionId null)', () => {
    const p = buildWebhookPayload({ sourceEventId: SOURCE, event: partial, kind: 'HISTORY_UPDATED', featureId: FEATURE, options: all, account: null });
    expect(p.historyEntry).to.deep.include({ entryType: 'TRADE', volume: 0.3, partial: true, remainingVolume: 0.2 });
    expect(p.account).to.equal(null);
    const d = buildWebhookPayload({ sourceEventId: SOURCE, event: deposit, kind: 'HISTORY_UPDATED', featureId: FEATURE, options: all, account });
    expect(d.positionId).to.equal(null);
    expect(d.historyEntry).to.deep.equal({ entryType: 'BALANCE', operationId: 'op-1', time: AT, amount: 500, comment: 'top up' });
  });

  it('leaves details and metadata out when the options are off, and gives the same bytes for the same inputs', () => {
    const input = { sourceEventId: SOURCE, event: closed, kind: 'POSITION_CLOSED' as const, featureId: FEATURE, options: none, account };
    expect(Object.keys(buildWebhookPayload(input))).to.deep.equal(['eventId', 'type', 'occurredAt', 'webhookId', 'accountId', 'positionId']);
    expect(JSON.stringify(buildWebhookPayload(input))).to.equal(JSON.stringify(buildWebhookPayload({ ...input })));
  });

  it('refuses to build a kind the event does not give', () => {
    expect(() => buildWebhookPayload({ sourceEventId: SOURCE, event: opened, kind: 'POSITION_CLOSED', featureId: FEATURE, options: all, account })).to.throw(
      /not delivered/,
    );
  });
});
