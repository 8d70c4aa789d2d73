import { liveDelay } from '../../../../domain/copy/features/liveDelay.js';
import { tpSlManagement } from '../../../../domain/copy/features/tpSlManagement.js';
import { given, masterModified, masterOpened, masterPendingPlaced, slaveCopy, symbolSpec } from '../given.js';

describe('feature: FeatureTpSlManagementDTO', () => {
  const manage = (settings: Record<string, unknown>) => ({ feature: tpSlManagement, settings: { ...tpSlManagement.defaults, ...settings } });
  // The master bought at 1.1; a point of EURUSD is 0.00001.
  const noStops = { stopLoss: null, takeProfit: null };

  describe('fixed stop loss and take profit', () => {
    it("fills in only what the master's trade lacks when masterTpSlPriority is on (the default)", () =>
      given({ features: [manage({ fixedSlInPoints: 200, fixedTpInPoints: 300 })] })
        .when(masterOpened({ stopLoss: null, takeProfit: 1.11 }))
        .then([{ type: 'open', stopLoss: 1.098, takeProfit: 1.11 }]));

    it("replaces the master's stops with the configured ones when masterTpSlPriority is off", () =>
      given({ features: [manage({ fixedSlInPoints: 200, fixedTpInPoints: 300, masterTpSlPriority: false })] })
        .when(masterOpened({ stopLoss: 1.095, takeProfit: 1.11 }))
        .then([{ type: 'open', stopLoss: 1.098, takeProfit: 1.103 }]));

    it("keeps the master's value where no fixed one is configured, even without priority", () =>
      given({ features: [manage({ fixedSlInPoints: 200, fixedTpInPoints: 0, masterTpSlPriority: false })] })
        .when(masterOpened({ stopLoss: 1.095, takeProfit: 1.11 }))
        .then([{ type: 'open', stopLoss: 1.098, takeProfit: 1.11 }]));

    it("measures a market open from the slave's quote: the ask for a buy, the bid for a sell", () => {
      const quotes = { slave: { bid: 1.1002, ask: 1.1004 } };
      given({ features: [manage({ fixedSlInPoints: 200, fixedTpInPoints: 300 })], quotes })
        .when(masterOpened(noStops))
        .then([{ type: 'open', stopLoss: 1.0984, takeProfit: 1.1034 }]);
      given({ features: [manage({ fixedSlInPoints: 200, fixedTpInPoints: 300 })], quotes })
        .when(masterOpened({ orderType: 'Sell', ...noStops }))
        .then([{ type: 'open', stopLoss: 1.1022, takeProfit: 1.0972 }]);
    });

    it('measures a pending order from its trigger price', () =>
      given({ features: [manage({ fixedSlInPoints: 100, fixedTpInPoints: 100 })] })
        .when(masterPendingPlaced('SellLimit', { openPrice: 1.12, ...noStops }))
        .then([{ type: 'open', orderType: 'SellLimit', openPrice: 1.12, stopLoss: 1.121, takeProfit: 1.119 }]));

    it("places them on the slave's side under reverse: a master buy is a slave sell", () =>
      given({ features: [manage({ fixedSlInPoints: 200, fixedTpInPoints: 300 })], settings: { reverse: true } })
        .when(masterOpened(noStops))
        .then([{ type: 'open', orderType: 'Sell', stopLoss: 1.102, takeProfit: 1.097 }]));

    it('0 configures none', () =>
      given({ features: [manage({ fixedSlInPoints: 0, fixedTpInPoints: 0 })] })
        .when(masterOpened(noStops))
        .then([{ type: 'open', stopLoss: null, takeProfit: null }]));
  });

  describe('additionalSlPoints and additionalTpPoints', () => {
    it("move the copy's stop loss and take profit that many points further from the entry", () =>
      given({ features: [manage({ additionalSlPoints: 50, additionalTpPoints: 30 })] })
        .when(masterOpened({ stopLoss: 1.095, takeProfit: 1.11 }))
        .then([{ type: 'open', stopLoss: 1.0945, takeProfit: 1.1103 }]));

    it('widen a fixed level too, on the side of a sell, and leave a missing level missing', () => {
      given({ features: [manage({ fixedSlInPoints: 200, additionalSlPoints: 50, additionalTpPoints: 30 })] })
        .when(masterOpened({ orderType: 'Sell', ...noStops }))
        .then([{ type: 'open', stopLoss: 1.1025, takeProfit: null }]);
    });

    it("widen the master's later stop changes as well", () =>
      given({ features: [manage({ additionalSlPoints: 50, additionalTpPoints: 30 })], slave: { copies: [slaveCopy()] } })
        .when(masterModified(1.09, 1.12))
        .then([{ type: 'modify', stopLoss: 1.0895, takeProfit: 1.1203 }]));

    it('count in the points of the symbol: 2 digits on gold', () =>
      given({
        features: [manage({ additionalSlPoints: 50 })],
        masterSymbol: { symbol: 'XAUUSD', digits: 2, point: 0.01 },
        slaveSymbols: [symbolSpec({ symbol: 'XAUUSD', digits: 2, point: 0.01 })],
      })
        .when(masterOpened({ symbol: 'XAUUSD', openPrice: 2350, stopLoss: 2340, takeProfit: null }))
        .then([{ type: 'open', stopLoss: 2339.5 }]));
  });

  describe('adjustWithMasterDistance', () => {
    // The master bought at 1.1 with its stop 500 points below and take profit 1,000 above; the slave's ask is 1.1004.
    const quotes = { slave: { bid: 1.1002, ask: 1.1004 } };

    it("places the master's levels at their distance from the copy's entry, not at the master's prices", () => {
      given({ features: [manage({ adjustWithMasterDistance: true })], quotes })
        .when(masterOpened({ stopLoss: 1.095, takeProfit: 1.11 }))
        .then([{ type: 'open', stopLoss: 1.0954, takeProfit: 1.1104 }]);
      given({ features: [manage({ adjustWithMasterDistance: false })], quotes })
        .when(masterOpened({ stopLoss: 1.095, takeProfit: 1.11 }))
        .then([{ type: 'open', stopLoss: 1.095, takeProfit: 1.11 }]);
    });

    it('keeps the distances under reverse: the master buy is a slave sell at the bid', () =>
      given({ features: [manage({ adjustWithMasterDistance: true })], quotes, settings: { reverse: true } })
        .when(masterOpened({ stopLoss: 1.095, takeProfit: 1.11 }))
        .then([{ type: 'open', orderType: 'Sell', stopLoss: 1.1102, takeProfit: 1.0952 }]));

    it("measures the master's later changes from both open prices, with the extra points on top", () =>
      given({
        features: [manage({ adjustWithMasterDistance: true, additionalSlPoints: 10 })],
        slave: { copies: [slaveCopy()] },
        openPrices: { master: 1.1, slave: { 's-2002': 1.1004 } },
      })
        .when(masterModified(1.098, 1.115))
        .then([{ type: 'modify', stopLoss: 1.0983, takeProfit: 1.1154 }]));
  });

  describe("the master's later stop changes with fixed values", () => {
    it('keep a fixed level where the master has none, measured from the copy’s open price', () =>
      given({
        features: [manage({ fixedSlInPoints: 200 })],
        slave: { copies: [slaveCopy()] },
        openPrices: { master: 1.1, slave: { 's-2002': 1.1004 } },
      })
        .when(masterModified(null, 1.12))
        .then([{ type: 'modify', stopLoss: 1.0984, takeProfit: 1.12 }]));

    it('keep replacing the master’s level when masterTpSlPriority is off', () =>
      given({
        features: [manage({ fixedTpInPoints: 300, masterTpSlPriority: false })],
        slave: { copies: [slaveCopy()] },
        openPrices: { master: 1.1, slave: { 's-2002': 1.1 } },
      })
        .when(masterModified(1.09, 1.12))
        .then([{ type: 'modify', stopLoss: 1.09, takeProfit: 1.103 }]));
  });

  describe('symbolsConfiguration', () => {
    const slaveSymbols = [symbolSpec(), symbolSpec({ symbol: 'GBPUSD' })];
    const perSymbol = manage({ additionalSlPoints: 10, symbolsConfiguration: { EURUSD: { fixedSlInPoints: 5, fixedTpInPoints: 10, additionalSlPoints: 0 } } });

    it("places a copy's stops on a configured symbol by the symbol's members, with priority over the general ones", () =>
      given({ features: [perSymbol], slaveSymbols })
        .when(masterOpened(noStops))
        .then([{ type: 'open', stopLoss: 1.09995, takeProfit: 1.1001 }]));

    it('places the stops of the trades on other symbols by the general members', () =>
      given({ features: [perSymbol], slaveSymbols })
        .when(masterOpened({ symbol: 'GBPUSD', stopLoss: 1.095, takeProfit: null }))
        .then([{ type: 'open', symbol: 'GBPUSD', stopLoss: 1.0949, takeProfit: null }]));

    it("judges a master's later change by its copy's symbol", () =>
      given({ features: [manage({ symbolsConfiguration: { EURUSD: { lockTpSl: true } } })], slave: { copies: [slaveCopy()] } })
        .when(masterModified(1.09, 1.12))
        .thenSkips('TP_SL_LOCKED'));
  });

  describe('blockTradeWithoutTpSl', () => {
    it('skips an open that would have neither a stop loss nor a take profit', () =>
      given({ features: [manage({ blockTradeWithoutTpSl: true })] })
        .when(masterOpened(noStops))
        .thenSkips('NO_TP_SL', /no stop loss and take profit/));

    it('copies it when the master has one, or a fixed value supplies one', () => {
      given({ features: [manage({ blockTradeWithoutTpSl: true })] })
        .when(masterOpened({ stopLoss: 1.095, takeProfit: null }))
        .then([{ type: 'open' }]);
      given({ features: [manage({ blockTradeWithoutTpSl: true, fixedTpInPoints: 100 })] })
        .when(masterOpened(noStops))
        .then([{ type: 'open', takeProfit: 1.101 }]);
    });

    it('requireBothTpSl skips when either is missing', () => {
      given({ features: [manage({ blockTradeWithoutTpSl: true, requireBothTpSl: true })] })
        .when(masterOpened({ stopLoss: 1.095, takeProfit: null }))
        .thenSkips('NO_TP_SL', /no take profit/);
      given({ features: [manage({ blockTradeWithoutTpSl: true, requireBothTpSl: true, fixedTpInPoints: 100 })] })
        .when(masterOpened({ stopLoss: 1.095, takeProfit: null }))
        .then([{ type: 'open' }]);
    });

    it('does nothing when off', () =>
      given({ features: [manage({ blockTradeWithoutTpSl: false })] })
        .when(masterOpened(noStops))
        .then([{ type: 'open' }]));
  });

  describe('removeSl and removeTp', () => {
    it("open the copy without the master's stop loss or take profit, or a fixed one", () => {
      given({ features: [manage({ removeSl: true })] })
        .when(masterOpened({ stopLoss: 1.09, takeProfit: 1.12 }))
        .then([{ type: 'open', stopLoss: null, takeProfit: 1.12 }]);
      given({ features: [manage({ removeTp: true, fixedTpInPoints: 300 })] })
        .when(masterOpened({ stopLoss: 1.09, takeProfit: null }))
        .then([{ type: 'open', stopLoss: 1.09, takeProfit: null }]);
    });

    it("do not copy the master's later stop changes, which would put the level back", () =>
      given({ features: [manage({ removeSl: true })], slave: { copies: [slaveCopy()] } })
        .when(masterModified(1.09, 1.12))
        .thenSkips('TP_SL_REMOVED', /without its stop loss/));
  });

  describe('lockTpSl', () => {
    it("does not copy the master's stop changes", () =>
      given({ features: [manage({ lockTpSl: true })], slave: { copies: [slaveCopy()] } })
        .when(masterModified(1.09, 1.12))
        .thenSkips('TP_SL_LOCKED'));

    it('copies them when off', () =>
      given({ features: [manage({ lockTpSl: false })], slave: { copies: [slaveCopy()] } })
        .when(masterModified(1.09, 1.12))
        .then([{ type: 'modify', stopLoss: 1.09, takeProfit: 1.12 }]));
  });

  it("with a live delay beside it, a trade without stops is refused with its own reason, not the delay's", () =>
    given({
      features: [
        manage({ blockTradeWithoutTpSl: true }),
        { feature: liveDelay, settings: { skipOrdersCount: 1, resetIntervalMinutes: 0, resetOnPositionClose: false, trackByDirection: false } },
      ],
      masterOrders: [],
    })
      .when(masterOpened(noStops))
      .thenSkips('NO_TP_SL'));
});
