import { expect } from 'chai';
import { decide, evolve, initialGuardrailState } from '../../../domain/tradeGuardrail/decider.js';
import type { GuardrailDecision, GuardrailEvent } from '../../../domain/tradeGuardrail/events.js';
import { TRADE_GUARDRAILS_DEFAULTS, tradeGuardrailsFeature, type TradeGuardrailsSettings } from '../../../domain/tradeGuardrail/feature.js';
import { guardrailCloses, type WatchedPosition } from '../../../domain/tradeGuardrail/rules.js';
import { systemContext } from '../../../domain/shared/command.js';

const NOW = '2026-01-07T12:00:00.000Z';
const position = (positionId: string, symbol: string, volume: number, openTime = '2026-01-07T11:59:00.000Z', outside = false): WatchedPosition => ({
  positionId,
  symbol,
  side: 'Buy',
  volume,
  openTime,
  outside,
});
const guard = (settings: Partial<TradeGuardrailsSettings>) => ({ ...TRADE_GUARDRAILS_DEFAULTS, ...settings });
const closes = (settings: Partial<TradeGuardrailsSettings>, positions: WatchedPosition[]) =>
  guardrailCloses(guard(settings), positions, NOW).map((c) => [c.position.positionId, c.rule]);

describe('FeatureTradeGuardrailsDTO: the rule', () => {
  it('is an account feature (the reference) that may also sit on a copier (the spec), one per scope', () => {
    expect(tradeGuardrailsFeature.scopes).to.deep.equal(['account', 'copier']);
    expect(tradeGuardrailsFeature.multiple).to.equal(false);
    expect(TRADE_GUARDRAILS_DEFAULTS).to.deep.equal({
      enabled: true,
      maxLotSizeThreshold: 0,
      aggregatePerSymbol: false,
      maxOpenTimeSeconds: 0,
      symbolsConfiguration: {},
    });
  });

  it('closes each position above maxLotSizeThreshold, and none at it', () => {
    const book = [position('1', 'EURUSD', 0.5), position('2', 'EURUSD', 0.51), position('3', 'GBPUSD', 2)];
    expect(closes({ maxLotSizeThreshold: 0.5 }, book)).to.deep.equal([
      ['2', 'MAX_LOT_SIZE'],
      ['3', 'MAX_LOT_SIZE'],
    ]);
    const [first] = guardrailCloses(guard({ maxLotSizeThreshold: 0.5 }), book, NOW);
    expect(first!.reason).to.equal('0.51 lots, above maxLotSizeThreshold 0.5');
  });

  it('closes a position open longer than maxOpenTimeSeconds, not one open exactly that long', () => {
    const book = [position('1', 'EURUSD', 0.1, '2026-01-07T11:00:00.000Z'), position('2', 'EURUSD', 0.1, '2026-01-07T10:59:59.000Z')];
    expect(closes({ maxOpenTimeSeconds: 3600 }, book)).to.deep.equal([['2', 'MAX_OPEN_TIME']]);
    expect(guardrailCloses(guard({ maxOpenTimeSeconds: 3600 }), book, NOW)[0]!.reason).to.equal(
      'open since 2026-01-07T10:59:59.000Z, longer than maxOpenTimeSeconds 3600',
    );
  });

  it('does nothing when disabled or with both guards at 0 (deactivated)', () => {
    const book = [position('1', 'EURUSD', 50, '2020-01-01T00:00:00.000Z')];
    expect(closes({ enabled: false, maxLotSizeThreshold: 1, maxOpenTimeSeconds: 1 }, book)).to.deep.equal([]);
    expect(closes({}, book)).to.deep.equal([]);
  });

  it('aggregatePerSymbol: the reference example, 3 x 0.3 lots on EURUSD against 0.5, closes the newest until the rest is at most 0.5', () => {
    const book = [
      position('10', 'EURUSD', 0.3, '2026-01-07T11:00:00.000Z'),
      position('12', 'EURUSD', 0.3, '2026-01-07T11:02:00.000Z'),
      position('11', 'EURUSD', 0.3, '2026-01-07T11:01:00.000Z'),
      position('20', 'GBPUSD', 0.3),
    ];
    expect(closes({ maxLotSizeThreshold: 0.5, aggregatePerSymbol: true }, book)).to.deep.equal([
      ['12', 'MAX_LOT_SIZE'],
      ['11', 'MAX_LOT_SIZE'],
    ]);
    expect(guardrailCloses(guard({ maxLotSizeThreshold: 0.5, aggregatePerSymbol: true }), book, NOW)[0]!.reason).to.match(/^0\.9 lots open on EURUSD together/);
    expect(closes({ maxLotSizeThreshold: 0.5 }, book), 'each position alone: none above').to.deep.equal([]);
    expect(closes({ maxLotSizeThreshold: 0.9, aggregatePerSymbol: true }, book), 'at the threshold').to.deep.equal([]);
  });

  it('a position the time guard closes no longer counts in the symbol total', () => {
    const book = [position('1', 'EURUSD', 0.3, '2026-01-07T10:00:00.000Z'), position('2', 'EURUSD', 0.3)];
    expect(closes({ maxLotSizeThreshold: 0.5, aggregatePerSymbol: true, maxOpenTimeSeconds: 600 }, book)).to.deep.equal([['1', 'MAX_OPEN_TIME']]);
  });

  it('symbolsConfiguration gives a symbol its own members, compared without case; 0 there turns the guard off', () => {
    const book = [position('1', 'EURUSD', 2), position('2', 'GBPUSD', 2), position('3', 'XAUUSD', 2)];
    expect(
      closes({ maxLotSizeThreshold: 1, symbolsConfiguration: { eurusd: { maxLotSizeThreshold: 3 }, XAUUSD: { maxLotSizeThreshold: 0 } } }, book),
    ).to.deep.equal([['2', 'MAX_LOT_SIZE']]);
    expect(closes({ symbolsConfiguration: { GBPUSD: { maxLotSizeThreshold: 1 } } }, book)).to.deep.equal([['2', 'MAX_LOT_SIZE']]);
    expect(closes({ maxLotSizeThreshold: 1, symbolsConfiguration: { GBPUSD: { enabled: false } } }, book)).to.deep.equal([
      ['1', 'MAX_LOT_SIZE'],
      ['3', 'MAX_LOT_SIZE'],
    ]);
  });
});

describe('FeatureTradeGuardrailsDTO: the record of its closes', () => {
  const metadata = { now: NOW, context: systemContext('spec') };
  const decision = (positionId: string): GuardrailDecision => ({
    accountId: 'a',
    featureId: 'f',
    copierId: null,
    positionId,
    symbol: 'EURUSD',
    side: 'Buy',
    volume: 1,
    openTime: NOW,
    outside: true,
    rule: 'MAX_LOT_SIZE',
    reason: '1 lot, above maxLotSizeThreshold 0.5',
  });
  const fold = (events: GuardrailEvent[]) => events.reduce(evolve, initialGuardrailState);

  it('decides a position once, however often the rule asks, until its close is recorded', () => {
    const first = decide({ type: 'DecideGuardrailCloses', data: { accountId: 'a', closes: [decision('1'), decision('1')] }, metadata }, initialGuardrailState);
    expect(first.map((e) => e.type)).to.deep.equal(['GuardrailCloseDecided']);
    const state = fold(first);
    expect(decide({ type: 'DecideGuardrailCloses', data: { accountId: 'a', closes: [decision('1')] }, metadata }, state)).to.deep.equal([]);
    const closed = decide(
      { type: 'RecordGuardrailClose', data: { accountId: 'a', positionId: '1', outcome: { type: 'closed', closePrice: 1.1, result: -2 } }, metadata },
      state,
    );
    expect(closed).to.have.length(1);
    expect(closed[0]).to.deep.include({ type: 'GuardrailPositionClosed' });
    const after = fold([...first, ...closed]);
    expect(after.pending).to.deep.equal({});
    expect(
      decide({ type: 'RecordGuardrailClose', data: { accountId: 'a', positionId: '1', outcome: { type: 'gone' } }, metadata }, after),
      'a second outcome',
    ).to.deep.equal([]);
  });

  it('records a failure once per code and keeps the decision to try again', () => {
    const state = fold(decide({ type: 'DecideGuardrailCloses', data: { accountId: 'a', closes: [decision('1')] }, metadata }, initialGuardrailState));
    const failed = {
      type: 'RecordGuardrailClose' as const,
      data: { accountId: 'a', positionId: '1', outcome: { type: 'failed' as const, code: '[MARKET_CLOSED]', message: 'closed' } },
      metadata,
    };
    const once = decide(failed, state);
    expect(once.map((e) => e.type)).to.deep.equal(['GuardrailCloseFailed']);
    const next = fold([
      ...decide({ type: 'DecideGuardrailCloses', data: { accountId: 'a', closes: [decision('1')] }, metadata }, initialGuardrailState),
      ...once,
    ]);
    expect(decide(failed, next)).to.deep.equal([]);
    expect(Object.keys(next.pending)).to.deep.equal(['1']);
  });
});
