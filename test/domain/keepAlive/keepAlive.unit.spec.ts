// An account's keep-alive trades (domain/keepAlive): each firing decided once (a trade or a skip), the
// trade's outcome recorded once, each refusal once per code (the last, final), a close once.
import { keepAliveDecider, type KeepAliveOpenOutcome } from '../../../domain/keepAlive/decider.js';
import type { KeepAliveEvent } from '../../../domain/keepAlive/events.js';
import { systemContext } from '../../../domain/shared/command.js';
import { givenDecider } from '../givenDecider.js';

const given = givenDecider(keepAliveDecider);
const accountId = '11111111-1111-4111-8111-111111111111';
const at = '2026-01-07T10:00:01.000Z';
const metadata = { now: at, context: systemContext('spec') };
const firing = { accountId, featureId: 'F1', firing: '2026-01-07T10:00:00.000Z' };
const order = { symbol: 'EURUSD', side: 'Buy' as const, volume: 0.02, closeAfterInSeconds: 30, clientOrderId: 'keepalive-1' };
const decide = { type: 'DecideKeepAliveFiring' as const, data: { ...firing, decision: { type: 'trade' as const, order } }, metadata };
const decided: KeepAliveEvent = { type: 'KeepAliveTradeDecided', data: { ...firing, ...order, at } };
const trade = { ...firing, ...order, positionId: '7', price: 1.0851, openedAt: at };
const opened: KeepAliveEvent = { type: 'KeepAliveTradeOpened', data: { ...trade, at } };
const open = (outcome: KeepAliveOpenOutcome) => ({
  type: 'RecordKeepAliveOpen' as const,
  data: { ...firing, outcome },
  metadata,
});

describe('keep-alive trades of an account', () => {
  it('decide each firing once: a replay, a restart or a later tick decides nothing more for it', () => {
    given([]).when(decide).then([decided]);
    given([decided]).when(decide).then([]);
    given([decided, opened]).when(decide).then([]);
    const skipped: KeepAliveEvent = { type: 'KeepAliveTradeSkipped', data: { ...firing, reason: 'SYMBOL_NOT_FOUND', message: 'no EURUSD', at } };
    given([])
      .when({ type: 'DecideKeepAliveFiring', data: { ...firing, decision: { type: 'skip', reason: 'SYMBOL_NOT_FOUND', message: 'no EURUSD' } }, metadata })
      .then([skipped]);
    given([skipped]).when(decide).then([]);
    // The next firing, once the trade before is placed.
    const next = { ...decide, data: { ...decide.data, firing: '2026-01-07T10:01:00.000Z' } };
    given([decided]).when(next).then([]);
    given([decided, opened])
      .when(next)
      .then([{ type: 'KeepAliveTradeDecided', data: { ...firing, ...order, firing: '2026-01-07T10:01:00.000Z', at } }]);
  });

  it('record the open once, a refusal once per code, and the last one as final', () => {
    given([decided])
      .when(open({ type: 'opened', positionId: '7', price: 1.0851, time: at }))
      .then([opened]);
    given([decided, opened])
      .when(open({ type: 'opened', positionId: '7', price: 1.0851, time: at }))
      .then([]);
    const refused: KeepAliveEvent = {
      type: 'KeepAliveTradeRefused',
      data: { ...firing, ...order, stage: 'open', positionId: null, code: '[MARKET_CLOSED]', message: 'closed', final: false, at },
    };
    given([decided])
      .when(open({ type: 'failed', code: '[MARKET_CLOSED]', message: 'closed', final: false }))
      .then([refused]);
    given([decided, refused])
      .when(open({ type: 'failed', code: '[MARKET_CLOSED]', message: 'closed', final: false }))
      .then([]);
    const final: KeepAliveEvent = { type: 'KeepAliveTradeRefused', data: { ...refused.data, final: true } };
    given([decided, refused])
      .when(open({ type: 'failed', code: '[MARKET_CLOSED]', message: 'closed', final: true }))
      .then([final]);
    given([decided, refused, final])
      .when(open({ type: 'opened', positionId: '7', price: 1.0851, time: at }))
      .then([]);
  });

  it('record a close once; a refused close once per code', () => {
    const close = (outcome: { type: 'closed'; closePrice: number; result: number } | { type: 'gone' } | { type: 'failed'; code: string; message: string }) => ({
      type: 'RecordKeepAliveClose' as const,
      data: { accountId, positionId: '7', outcome },
      metadata,
    });
    const closed: KeepAliveEvent = { type: 'KeepAliveTradeClosed', data: { ...trade, closePrice: 1.085, result: -0.2, gone: false, at } };
    given([decided, opened])
      .when(close({ type: 'closed', closePrice: 1.085, result: -0.2 }))
      .then([closed]);
    given([decided, opened, closed])
      .when(close({ type: 'closed', closePrice: 1.085, result: -0.2 }))
      .then([]);
    const refused: KeepAliveEvent = {
      type: 'KeepAliveTradeRefused',
      data: { ...trade, stage: 'close', code: '[MARKET_CLOSED]', message: 'closed', final: false, at },
    };
    given([decided, opened])
      .when(close({ type: 'failed', code: '[MARKET_CLOSED]', message: 'closed' }))
      .then([refused]);
    given([decided, opened, refused])
      .when(close({ type: 'failed', code: '[MARKET_CLOSED]', message: 'closed' }))
      .then([]);
    given([decided, opened, refused])
      .when(close({ type: 'gone' }))
      .then([{ type: 'KeepAliveTradeClosed', data: { ...trade, closePrice: null, result: null, gone: true, at } }]);
  });
});
