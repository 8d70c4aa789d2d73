import { expect } from 'chai';
import { breakEven } from '../../../../domain/copy/features/breakEven.js';
import { trailingStop } from '../../../../domain/copy/features/trailingStop.js';
import { managed, manageWith, symbolSpec } from '../given.js';

describe('feature: FeatureBreakEvenDTO', () => {
  // A buy opened at 1.10000 with take profit 1.11000; a point is 0.00001.
  const normal = (triggerInPoints: number, stopLossInPoints = 0) => ({ feature: breakEven, settings: { triggerInPoints, stopLossInPoints } });
  const reverse = (reverseTriggerInPoints: number, reverseStopLossInPoints = 0, more: Record<string, unknown> = {}) => ({
    feature: breakEven,
    settings: { reverse: true, reverseTriggerInPoints, reverseStopLossInPoints, ...more },
  });
  const buyAt = (currentPrice: number, overrides: Parameters<typeof managed>[0] = {}) => managed({ currentPrice, ...overrides });

  describe('normal break-even', () => {
    it('does nothing before the copy is triggerInPoints in profit', () => expect(manageWith(normal(300, 50), { copies: [buyAt(1.10299)] })).to.deep.equal([]));

    it('moves the stop loss to stopLossInPoints beyond the entry at the trigger, keeping the take profit', () => {
      const [action] = manageWith(normal(300, 50), { copies: [buyAt(1.103, { stopLoss: 1.095 })] });
      expect(action).to.deep.include({ kind: 'modify', slavePositionId: 's-2002', stopLoss: 1.1005, takeProfit: 1.11 });
    });

    it('stopLossInPoints 0 puts the stop loss at the entry itself', () =>
      expect(manageWith(normal(300), { copies: [buyAt(1.104)] })[0]).to.deep.include({ stopLoss: 1.1 }));

    it('works from above for a sell', () => {
      const sell = managed({ side: 'Sell', openPrice: 1.1, takeProfit: 1.09, currentPrice: 1.097, stopLoss: 1.105 });
      expect(manageWith(normal(300, 50), { copies: [sell] })[0]).to.deep.include({ stopLoss: 1.0995, takeProfit: 1.09 });
    });

    it('leaves a stop loss that is already there or beyond alone', () => {
      expect(manageWith(normal(300, 50), { copies: [buyAt(1.104, { stopLoss: 1.1005 })] })).to.deep.equal([]);
      expect(manageWith(normal(300, 50), { copies: [buyAt(1.104, { stopLoss: 1.102 })] })).to.deep.equal([]);
    });

    it("waits while the new stop would be within the broker's stops level of the market", () => {
      const near = (currentPrice: number) => buyAt(currentPrice, { spec: symbolSpec({ stopsLevel: 300 }) });
      expect(manageWith(normal(300, 50), { copies: [near(1.103)] })).to.deep.equal([]);
      expect(manageWith(normal(300, 50), { copies: [near(1.1035)] })[0]).to.deep.include({ stopLoss: 1.1005 });
    });
  });

  describe('reverse break-even', () => {
    it('moves the take profit to reverseStopLossInPoints from the entry on the loss side once the loss reaches the trigger', () => {
      const [action] = manageWith(reverse(400, 100), { copies: [buyAt(1.096, { stopLoss: 1.09 })] });
      expect(action).to.deep.include({ kind: 'modify', stopLoss: 1.09, takeProfit: 1.099 });
    });

    it('does nothing before the trigger, and 0 disables it', () => {
      expect(manageWith(reverse(400, 100), { copies: [buyAt(1.09601)] })).to.deep.equal([]);
      expect(
        manageWith({ feature: breakEven, settings: { triggerInPoints: 300, reverse: true, reverseTriggerInPoints: 0 } }, { copies: [buyAt(1.09)] }),
      ).to.deep.equal([]);
    });

    it('needs reverse: with reverse false the reverse members do nothing', () =>
      expect(
        manageWith({ feature: breakEven, settings: { triggerInPoints: 300, reverse: false, reverseTriggerInPoints: 400 } }, { copies: [buyAt(1.09)] }),
      ).to.deep.equal([]));

    it('works from below for a sell, and keeps a take profit that is already nearer', () => {
      const sell = (takeProfit: number) => managed({ side: 'Sell', openPrice: 1.1, currentPrice: 1.104, takeProfit, stopLoss: null });
      expect(manageWith(reverse(400, 100), { copies: [sell(1.09)] })[0]).to.deep.include({ takeProfit: 1.101 });
      expect(manageWith(reverse(400, 100), { copies: [sell(1.102)] })).to.deep.equal([]);
    });

    it('runs alongside normal break-even when both are set', () => {
      const both = reverse(400, 100, { triggerInPoints: 300, stopLossInPoints: 50 });
      expect(manageWith(both, { copies: [buyAt(1.096)] })[0]).to.deep.include({ takeProfit: 1.099 });
      expect(manageWith(both, { copies: [buyAt(1.103)] })[0]).to.deep.include({ stopLoss: 1.1005 });
    });
  });

  it('refuses settings that do nothing, or a stop beyond its own trigger', () => {
    const base = { triggerInPoints: 0, stopLossInPoints: 0, reverse: false, reverseTriggerInPoints: 0, reverseStopLossInPoints: 0, symbolsConfiguration: {} };
    expect(breakEven.check!(base)).to.match(/does nothing/);
    expect(breakEven.check!({ ...base, triggerInPoints: 100, stopLossInPoints: 100 })).to.match(/stopLossInPoints 100 must be below triggerInPoints 100/);
    expect(breakEven.check!({ ...base, reverse: true, reverseTriggerInPoints: 100, reverseStopLossInPoints: 150 })).to.match(/reverseStopLossInPoints 150/);
    expect(breakEven.check!({ ...base, triggerInPoints: 100, stopLossInPoints: 10 })).to.equal(null);
    // The reference's defaults: a trigger of 30 points, the stop loss 20 beyond the entry; valid as they are.
    expect(breakEven.defaults).to.deep.include({ triggerInPoints: 30, stopLossInPoints: 20 });
    expect(breakEven.check!({ ...base, ...breakEven.defaults } as typeof base)).to.equal(null);
  });

  it("moves each copy's stop by the members of its symbol in symbolsConfiguration", () => {
    const perSymbol = {
      feature: breakEven,
      settings: {
        reverse: false,
        reverseTriggerInPoints: 0,
        reverseStopLossInPoints: 0,
        triggerInPoints: 300,
        stopLossInPoints: 50,
        symbolsConfiguration: { GBPUSD: { triggerInPoints: 0 }, XAUUSD: { triggerInPoints: 100, stopLossInPoints: 10 } },
      },
    };
    const gold = managed({
      symbol: 'XAUUSD',
      openPrice: 2350,
      takeProfit: null,
      currentPrice: 2351,
      spec: symbolSpec({ symbol: 'XAUUSD', digits: 2, point: 0.01, stopsLevel: 0 }),
    });
    const pound = managed({
      symbol: 'GBPUSD',
      slavePositionId: 's-3',
      openPrice: 1.27,
      takeProfit: null,
      currentPrice: 1.28,
      spec: symbolSpec({ symbol: 'GBPUSD', stopsLevel: 0 }),
    });
    const actions = manageWith(perSymbol, { copies: [buyAt(1.105), gold, pound] });
    // EURUSD by the general members, gold 100 points (1.00) in profit by its own; GBPUSD turned off.
    expect(actions.map((a) => (a.kind === 'modify' ? [a.symbol, a.stopLoss] : null))).to.deep.equal([
      ['EURUSD', 1.1005],
      ['XAUUSD', 2350.1],
    ]);
    expect(
      breakEven.check!({ ...perSymbol.settings, triggerInPoints: 0, symbolsConfiguration: { XAUUSD: { triggerInPoints: 100, stopLossInPoints: 10 } } }),
    ).to.equal(null);
    expect(breakEven.check!({ ...perSymbol.settings, symbolsConfiguration: { XAUUSD: { triggerInPoints: 10 } } })).to.match(
      /symbolsConfiguration.XAUUSD: stopLossInPoints 50 must be below triggerInPoints 10/,
    );
  });

  it('with a trailing stop beside it, both ask for their own stop and neither undoes the other', () => {
    const copy = buyAt(1.105);
    const be = manageWith(normal(300, 50), { copies: [copy] });
    const trail = manageWith({ feature: trailingStop, settings: { activationThresholdPoints: 500, minimumDistancePoints: 200 } }, { copies: [copy] });
    expect(be[0]).to.deep.include({ stopLoss: 1.1005 });
    expect(trail[0]).to.deep.include({ stopLoss: 1.103 });
    // Once the trail has moved the stop beyond break-even, break-even asks nothing.
    expect(manageWith(normal(300, 50), { copies: [buyAt(1.105, { stopLoss: 1.103 })] })).to.deep.equal([]);
  });
});
