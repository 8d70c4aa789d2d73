import { expect } from 'chai';
import { marginCap } from '../../../../domain/copy/features/marginCap.js';
import type { AccountPosition, SlaveAccountView } from '../../../../domain/copy/features/rules.js';
import { riskPerTrade, type RiskPerTradeSettings } from '../../../../domain/copy/features/riskPerTrade.js';
import { given, managed, manageWith, masterOpened, masterPendingPlaced } from '../given.js';

// A 10,000 USD account; EURUSD with 5 digits, and a point of one lot worth 1 USD. The master buys at
// 1.1 with its stop loss at 1.095: 500 points below.
describe('feature: FeatureRiskPerTradeDTO', () => {
  const account = (overrides: Partial<SlaveAccountView> = {}): SlaveAccountView => ({
    balance: 10_000,
    equity: 10_000,
    usedMargin: 0,
    freeMargin: 10_000,
    leverage: 100,
    currency: 'USD',
    ...overrides,
  });
  // Most specs size by the stop loss: the correction on (the reference's default is off).
  const risk = (settings: Partial<RiskPerTradeSettings>) => ({ feature: riskPerTrade, settings: { correctLotSizeBasedOnTheStopLoss: true, ...settings } });
  const percent = risk({ relativeRisk: 1 });
  const position = (overrides: Partial<AccountPosition> = {}): AccountPosition => ({
    positionId: 'p-1',
    symbol: 'EURUSD',
    side: 'Buy',
    volume: 0.1,
    openPrice: 1.1,
    stopLoss: 1.097,
    takeProfit: null,
    result: 0,
    ...overrides,
  });
  const world = { slaveAccount: account(), pointValue: 1, slavePositions: [] as AccountPosition[] };

  describe('the lot from the stop loss (correctLotSizeBasedOnTheStopLoss)', () => {
    it('opens the lot whose loss at the stop loss is relativeRisk of the balance', () =>
      // 1 % of 10,000 = 100 USD over 500 points at 1 USD a point: 0.2 lots, whatever the master's lot.
      given({ features: [percent], ...world })
        .when(masterOpened({ volume: 3 }))
        .then([{ type: 'open', volume: 0.2, stopLoss: 1.095 }]));

    it('or absoluteRisk in the account currency, and follows the balance with relativeRisk', () => {
      given({ features: [risk({ absoluteRisk: 50 })], ...world })
        .when(masterOpened())
        .then([{ type: 'open', volume: 0.1 }]);
      given({ features: [percent], ...world, slaveAccount: account({ balance: 5_000 }) })
        .when(masterOpened())
        .then([{ type: 'open', volume: 0.1 }]);
    });

    it('takes the value of a point into account (a point worth 0.5 USD doubles the lot)', () =>
      given({ features: [percent], ...world, pointValue: 0.5 })
        .when(masterOpened())
        .then([{ type: 'open', volume: 0.4 }]));

    it("measures to the copy's own stop loss: the master's take profit under reverse", () =>
      // Reversed: a sell with its stop loss at the master's take profit 1.11, 1,000 points above.
      given({ features: [percent], ...world, settings: { reverse: true } })
        .when(masterOpened())
        .then([{ type: 'open', orderType: 'Sell', volume: 0.1, stopLoss: 1.11 }]));

    it('sizes a pending order from its trigger price', () =>
      given({ features: [percent], ...world })
        .when(masterPendingPlaced('BuyLimit', { openPrice: 1.098, stopLoss: 1.096 }))
        .then([{ type: 'open', orderType: 'BuyLimit', volume: 0.5 }]));

    it("keeps the copier's lot for an open without a stop loss", () =>
      given({ features: [percent], ...world, settings: { multiplier: 2 } })
        .when(masterOpened({ volume: 0.3, stopLoss: null }))
        .then([{ type: 'open', volume: 0.6 }]));

    it("leaves the copier's and the broker's limits on the lot: maxLotSize and the lot step round it down", () => {
      given({ features: [percent], ...world, settings: { maxLotSize: 0.15 } })
        .when(masterOpened())
        .then([{ type: 'open', volume: 0.15 }]);
      given({ features: [risk({ absoluteRisk: 77 })], ...world })
        .when(masterOpened())
        .then([{ type: 'open', volume: 0.15 }]);
    });

    it('is capped by a margin cap after it', () =>
      given({ features: [{ feature: marginCap, settings: { marginCapPercentage: 1, kind: 'PER_TRADE' } }, percent], ...world, marginPerLot: 1000 })
        .when(masterOpened())
        .then([{ type: 'open', volume: 0.1 }]));

    it('skips what it cannot size: no value of a point, a stop at the open price, no balance for relativeRisk', () => {
      given({ features: [percent], ...world, pointValue: null })
        .when(masterOpened())
        .thenSkips('RISK_PER_TRADE', /no value of a point of EURUSD/);
      given({ features: [percent], ...world })
        .when(masterOpened({ stopLoss: 1.1 }))
        .thenSkips('RISK_PER_TRADE', /at the open price/);
      given({ features: [percent], ...world, slaveAccount: null })
        .when(masterOpened())
        .thenSkips('RISK_PER_TRADE', /balance is not available/);
      given({ features: [risk({ absoluteRisk: 100 })], ...world, slaveAccount: null })
        .when(masterOpened())
        .then([{ type: 'open', volume: 0.2 }]);
    });
  });

  describe('without the correction', () => {
    const check = risk({ absoluteRisk: 100, correctLotSizeBasedOnTheStopLoss: false });

    it("keeps the copier's lot while its loss at the stop loss is within the risk, the risk itself included", () =>
      given({ features: [check], ...world })
        .when(masterOpened({ volume: 0.2 }))
        .then([{ type: 'open', volume: 0.2 }]));

    it('skips an open whose loss at the stop loss would be above the risk', () =>
      given({ features: [check], ...world })
        .when(masterOpened({ volume: 0.21 }))
        .thenSkips('RISK_PER_TRADE', /0\.21 lots of EURUSD would lose 105 USD at the stop loss 1\.095, above the risk of 100 USD/));

    it('lets an open without a stop loss through', () =>
      given({ features: [check], ...world })
        .when(masterOpened({ volume: 5, stopLoss: null }))
        .then([{ type: 'open', volume: 5 }]));
  });

  describe('aggregateRiskPerSymbol', () => {
    const shared = risk({ absoluteRisk: 100, aggregateRiskPerSymbol: true });

    it("sizes from what the symbol's open positions leave of the risk", () =>
      // 0.1 lots 300 points from their stop: 30 USD at risk, 70 left over 500 points: 0.14 lots.
      given({ features: [shared], ...world, slavePositions: [position()] })
        .when(masterOpened())
        .then([{ type: 'open', volume: 0.14 }]));

    it('counts a stop that locks in profit as no risk, and other symbols not at all', () =>
      given({
        features: [shared],
        ...world,
        slavePositions: [position({ stopLoss: 1.101 }), position({ positionId: 'p-2', symbol: 'GBPUSD', stopLoss: null })],
      })
        .when(masterOpened())
        .then([{ type: 'open', volume: 0.2 }]));

    it('counts a position without a stop loss as the whole risk: nothing is left', () =>
      given({ features: [shared], ...world, slavePositions: [position({ stopLoss: null })] })
        .when(masterOpened())
        .thenSkips('RISK_PER_TRADE', /the open positions on EURUSD already risk 100 USD of the 100 USD the symbol may risk/));

    it('lets an open without a stop loss through only while nothing else on the symbol is at risk', () => {
      given({ features: [shared], ...world, slavePositions: [] })
        .when(masterOpened({ stopLoss: null }))
        .then([{ type: 'open', volume: 1 }]);
      given({ features: [shared], ...world, slavePositions: [position()] })
        .when(masterOpened({ stopLoss: null }))
        .thenSkips('RISK_PER_TRADE');
    });

    it('without the correction, skips a lot whose loss is above what is left', () =>
      given({
        features: [risk({ absoluteRisk: 100, aggregateRiskPerSymbol: true, correctLotSizeBasedOnTheStopLoss: false })],
        ...world,
        slavePositions: [position()],
      })
        .when(masterOpened({ volume: 0.15 }))
        .thenSkips('RISK_PER_TRADE', /above the risk of 100 USD \(70 USD left on the symbol\)/));
  });

  describe('autoCloseOnRiskThresholdReached (default true)', () => {
    const manage = (settings: Partial<RiskPerTradeSettings>, copies: ReturnType<typeof managed>[], slavePositions: AccountPosition[] = []) =>
      manageWith(risk(settings), { copies, slavePositions, slaveAccount: account() });
    const losing = (profit: number, overrides: Parameters<typeof managed>[0] = {}) => managed({ profit, ...overrides });

    it('closes a copy whose loss (profit + swap) reaches the risk, with or without a stop loss', () => {
      const actions = manage({ relativeRisk: 1 }, [
        losing(-99, { swap: -1, stopLoss: 1.095 }),
        losing(-99.99, { slavePositionId: 's-2', masterPositionId: 'm-2' }),
        losing(-150, { slavePositionId: 's-3', masterPositionId: 'm-3', stopLoss: null }),
      ]);
      expect(actions.map((a) => a.kind === 'close' && a.slavePositionId)).to.deep.equal(['s-2002', 's-3']);
      expect(actions[0]).to.deep.include({ kind: 'close', message: 'risk per trade: #s-2002 closed, its loss of 100 USD reaches the risk of 100 USD' });
    });

    it('closes nothing when it is off, or without the correction', () => {
      expect(manage({ relativeRisk: 1, autoCloseOnRiskThresholdReached: false }, [losing(-500)])).to.deep.equal([]);
      expect(manage({ relativeRisk: 1, correctLotSizeBasedOnTheStopLoss: false }, [losing(-500)])).to.deep.equal([]);
    });

    it("aggregated, closes the symbol's copies when the account's positions on it together lose the risk", () => {
      const copies = [losing(-40), losing(-30, { slavePositionId: 's-2', masterPositionId: 'm-2' })];
      const book = (manual: number) => [
        position({ positionId: 's-2002', result: -40 }),
        position({ positionId: 's-2', result: -30 }),
        position({ positionId: 'manual', result: manual }),
      ];
      expect(manage({ absoluteRisk: 100, aggregateRiskPerSymbol: true }, copies, book(-29))).to.deep.equal([]);
      const actions = manage({ absoluteRisk: 100, aggregateRiskPerSymbol: true }, copies, book(-30));
      expect(actions.map((a) => a.kind === 'close' && a.slavePositionId)).to.deep.equal(['s-2002', 's-2']);
      expect(actions[0]).to.have.property('message', "risk per trade: #s-2002 closed, the EURUSD positions' loss of 100 USD reaches the risk of 100 USD");
    });
  });

  it('takes at most one of relativeRisk and absoluteRisk above 0, and with both 0 does nothing', () => {
    const settings = (relativeRisk: number, absoluteRisk: number) => ({ ...riskPerTrade.defaults, relativeRisk, absoluteRisk }) as RiskPerTradeSettings;
    expect(riskPerTrade.check!(settings(1, 100))).to.match(/set at most one of absoluteRisk and relativeRisk/);
    expect(riskPerTrade.check!(settings(1, 0))).to.equal(null);
    expect(riskPerTrade.check!(settings(0, 0))).to.equal(null);
    given({ features: [risk({})], ...world, pointValue: null })
      .when(masterOpened({ volume: 0.3, stopLoss: 1.095 }))
      .then([{ type: 'open', volume: 0.3 }]);
    expect(riskPerTrade.defaults).to.deep.include({
      absoluteRisk: 0,
      relativeRisk: 0,
      autoCloseOnRiskThresholdReached: true,
      correctLotSizeBasedOnTheStopLoss: false,
      aggregateRiskPerSymbol: false,
      tickValue: 0,
      tickValueAutomaticAdjustement: true,
    });
  });

  describe('the value of a point (tickValue, tickValueAutomaticAdjustement)', () => {
    it("automatic (default): the venue's value, tickValue only when the venue has none", () => {
      given({ features: [risk({ relativeRisk: 1, tickValue: 2 })], ...world })
        .when(masterOpened({ volume: 0.3, stopLoss: 1.095 }))
        .then([{ type: 'open', volume: 0.2 }]);
      given({ features: [risk({ relativeRisk: 1, tickValue: 2 })], ...world, pointValue: null })
        .when(masterOpened({ volume: 0.3, stopLoss: 1.095 }))
        .then([{ type: 'open', volume: 0.1 }]);
    });

    it('not automatic: tickValue, the venue only while tickValue is 0', () => {
      given({ features: [risk({ relativeRisk: 1, tickValue: 2, tickValueAutomaticAdjustement: false })], ...world })
        .when(masterOpened({ volume: 0.3, stopLoss: 1.095 }))
        .then([{ type: 'open', volume: 0.1 }]);
      given({ features: [risk({ relativeRisk: 1, tickValueAutomaticAdjustement: false })], ...world })
        .when(masterOpened({ volume: 0.3, stopLoss: 1.095 }))
        .then([{ type: 'open', volume: 0.2 }]);
    });
  });

  describe('symbolsConfiguration', () => {
    it("a symbol's own risk takes priority over the general one", () => {
      given({ features: [risk({ relativeRisk: 1, symbolsConfiguration: { eurusd: { relativeRisk: 0.5 } } })], ...world })
        .when(masterOpened({ volume: 0.3, stopLoss: 1.095 }))
        .then([{ type: 'open', volume: 0.1 }]);
      given({ features: [risk({ absoluteRisk: 100, symbolsConfiguration: { EURUSD: { absoluteRisk: 0, relativeRisk: 2.5 } } })], ...world })
        .when(masterOpened({ volume: 0.3, stopLoss: 1.095 }))
        .then([{ type: 'open', volume: 0.5 }]);
    });

    it('both risks 0 for a symbol: its trades keep the copier lot', () =>
      given({ features: [risk({ relativeRisk: 1, symbolsConfiguration: { EURUSD: { relativeRisk: 0 } } })], ...world })
        .when(masterOpened({ volume: 0.3, stopLoss: 1.095 }))
        .then([{ type: 'open', volume: 0.3 }]));

    it("a symbol's own tickValue", () =>
      given({ features: [risk({ relativeRisk: 1, symbolsConfiguration: { EURUSD: { tickValue: 4, tickValueAutomaticAdjustement: false } } })], ...world })
        .when(masterOpened({ volume: 0.3, stopLoss: 1.095 }))
        .then([{ type: 'open', volume: 0.05 }]));

    it('refuses a symbol whose effective setting has both risks above 0', () =>
      expect(
        riskPerTrade.check!({ ...riskPerTrade.defaults, absoluteRisk: 50, symbolsConfiguration: { EURUSD: { relativeRisk: 2.5 } } } as RiskPerTradeSettings),
      ).to.match(/^symbolsConfiguration\.EURUSD: set at most one/));
  });
});
