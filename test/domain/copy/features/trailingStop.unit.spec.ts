import { expect } from 'chai';
import { trailingStop } from '../../../../domain/copy/features/trailingStop.js';
import { given, managed, manageWith, masterOpened, masterPendingPlaced, symbolSpec } from '../given.js';

describe('feature: FeatureTrailingStopDTO', () => {
  // Points of the copy's symbol: 0.00001 on a 5-digit EURUSD. Buy at 1.1000 with take profit 1.1100: D = 1,000 points.
  const trail = (settings: Record<string, number> = {}) => ({ feature: trailingStop, settings });
  const buyAt = (currentPrice: number, stopLoss: number | null = null) => managed({ currentPrice, stopLoss });

  it("takes the reference's defaults: activation 30 points, stop 20 points behind, steps of 10, initial stop 50", () =>
    expect(trailingStop.defaults).to.deep.equal({
      activationThresholdPoints: 30,
      activationThresholdPercentage: 0,
      initialStopLossPoints: 50,
      minimumDistancePoints: 20,
      trailingStepPoints: 10,
      trailingStepPercentage: 0,
      symbolsConfiguration: {},
    }));

  describe('activation', () => {
    it('does nothing before the gain reaches activationThresholdPoints', () => expect(manageWith(trail(), { copies: [buyAt(1.10029)] })).to.deep.equal([]));

    it('starts at the threshold: the stop goes minimumDistancePoints behind the price', () => {
      const [action] = manageWith(trail(), { copies: [buyAt(1.1003)] });
      expect(action).to.deep.include({ kind: 'modify', stopLoss: 1.1001, takeProfit: 1.11, slavePositionId: 's-2002' });
    });

    it('with a percentage of the distance to take profit as well, the larger threshold applies', () => {
      // 50 % of D = 500 points, above the 30 points.
      expect(manageWith(trail({ activationThresholdPercentage: 50 }), { copies: [buyAt(1.1049)] })).to.deep.equal([]);
      expect(manageWith(trail({ activationThresholdPercentage: 50 }), { copies: [buyAt(1.105)] })[0]).to.deep.include({ stopLoss: 1.1048 });
      // 1 % of D = 10 points, below the 30 points.
      expect(manageWith(trail({ activationThresholdPercentage: 1 }), { copies: [buyAt(1.1002)] })).to.deep.equal([]);
    });

    it('the percentage needs a take profit: a copy without one is not trailed while it is set', () => {
      const noTp = managed({ takeProfit: null, currentPrice: 1.2 });
      expect(manageWith(trail({ activationThresholdPercentage: 50 }), { copies: [noTp] })).to.deep.equal([]);
      expect(manageWith(trail(), { copies: [noTp] })[0]).to.deep.include({ stopLoss: 1.1998 });
    });

    it('with both thresholds 0 the stop trails from the open', () =>
      expect(manageWith(trail({ activationThresholdPoints: 0 }), { copies: [buyAt(1.1, 1.0995)] })[0]).to.deep.include({ stopLoss: 1.0998 }));
  });

  describe('the trail', () => {
    it('moves only forward and by at least trailingStepPoints', () => {
      expect(manageWith(trail(), { copies: [buyAt(1.10039, 1.1001)] })).to.deep.equal([]);
      expect(manageWith(trail(), { copies: [buyAt(1.1004, 1.1001)] })[0]).to.deep.include({ stopLoss: 1.1002 });
      expect(manageWith(trail(), { copies: [buyAt(1.1003, 1.1002)] })).to.deep.equal([]);
    });

    it('takes the larger step of trailingStepPoints and trailingStepPercentage of D', () => {
      // 20 % of D = 200 points.
      const settings = trail({ trailingStepPercentage: 20 });
      expect(manageWith(settings, { copies: [buyAt(1.105, 1.1029)] })).to.deep.equal([]);
      expect(manageWith(settings, { copies: [buyAt(1.105, 1.1028)] })[0]).to.deep.include({ stopLoss: 1.1048 });
    });

    it('trails a sell from above', () => {
      const sell = managed({ side: 'Sell', openPrice: 1.1, takeProfit: 1.09, currentPrice: 1.094, stopLoss: null });
      expect(manageWith(trail(), { copies: [sell] })[0]).to.deep.include({ stopLoss: 1.0942 });
    });

    it("keeps the broker's stops level between the stop and the market", () => {
      const wide = managed({ currentPrice: 1.105, spec: symbolSpec({ stopsLevel: 300 }) });
      expect(manageWith(trail(), { copies: [wide] })[0]).to.deep.include({ stopLoss: 1.102 });
    });

    it('counts in the points of the copy’s symbol: 2 digits on gold', () => {
      const gold = managed({
        symbol: 'XAUUSD',
        openPrice: 2350,
        takeProfit: null,
        currentPrice: 2350.4,
        spec: symbolSpec({ symbol: 'XAUUSD', digits: 2, point: 0.01, stopsLevel: 0 }),
      });
      // 40 points of gold are 0.40: past the 30-point activation; the stop goes 20 points (0.20) behind.
      expect(manageWith(trail(), { copies: [gold] })[0]).to.deep.include({ stopLoss: 2350.2 });
    });
  });

  describe('symbolsConfiguration', () => {
    const perSymbol = trail({ minimumDistancePoints: 20 });
    const settings = {
      ...perSymbol.settings,
      symbolsConfiguration: { XAUUSD: { activationThresholdPoints: 100, minimumDistancePoints: 50, initialStopLossPoints: 300 } },
    };
    const gold = (currentPrice: number) =>
      managed({
        symbol: 'XAUUSD',
        openPrice: 2350,
        takeProfit: null,
        currentPrice,
        spec: symbolSpec({ symbol: 'XAUUSD', digits: 2, point: 0.01, stopsLevel: 0 }),
      });

    it("trails a copy on a configured symbol by the symbol's members, the others by the general ones", () => {
      const actions = manageWith({ feature: trailingStop, settings }, { copies: [buyAt(1.1003), gold(2350.99)] });
      // Gold is 99 points in profit, below its own 100-point activation; EURUSD trails at the general 30.
      expect(actions.map((a) => (a.kind === 'modify' ? [a.symbol, a.stopLoss] : null))).to.deep.equal([['EURUSD', 1.1001]]);
      expect(manageWith({ feature: trailingStop, settings }, { copies: [gold(2351)] })[0]).to.deep.include({ symbol: 'XAUUSD', stopLoss: 2350.5 });
    });

    it("opens a copy on a configured symbol with the symbol's initial stop", () =>
      given({
        features: [{ feature: trailingStop, settings }],
        masterSymbol: { symbol: 'XAUUSD', digits: 2, point: 0.01 },
        slaveSymbols: [symbolSpec({ symbol: 'XAUUSD', digits: 2, point: 0.01 })],
      })
        .when(masterOpened({ symbol: 'XAUUSD', openPrice: 2350, stopLoss: null, takeProfit: null }))
        .then([{ type: 'open', stopLoss: 2347 }]));
  });

  describe('initialStopLossPoints', () => {
    it("opens the copy with a stop loss that far from its entry (the slave's ask for a buy)", () =>
      given({ features: [trail()], quotes: { slave: { bid: 1.1002, ask: 1.1004 } } })
        .when(masterOpened({ stopLoss: null, takeProfit: null }))
        .then([{ type: 'open', stopLoss: 1.0999 }]));

    it("keeps a master's stop loss nearer to the entry, replaces one further away", () => {
      given({ features: [trail()] })
        .when(masterOpened({ stopLoss: 1.0997, takeProfit: null }))
        .then([{ type: 'open', stopLoss: 1.0997 }]);
      given({ features: [trail()] })
        .when(masterOpened({ stopLoss: 1.09, takeProfit: null }))
        .then([{ type: 'open', stopLoss: 1.0995 }]);
    });

    it('measures a sell pending order from its trigger price, and 0 sets none', () => {
      given({ features: [trail()] })
        .when(masterPendingPlaced('SellLimit', { openPrice: 1.12, stopLoss: null, takeProfit: null }))
        .then([{ type: 'open', stopLoss: 1.1205 }]);
      given({ features: [trail({ initialStopLossPoints: 0 })] })
        .when(masterOpened({ stopLoss: null, takeProfit: null }))
        .then([{ type: 'open', stopLoss: null }]);
    });
  });
});
