import { maxLotSize } from '../../../../domain/copy/features/maxLotSize.js';
import { expect } from 'chai';
import { multiplier, type MultiplierSettings } from '../../../../domain/copy/features/multiplier.js';
import { given, masterOpened, symbolSpec } from '../given.js';

describe('feature: FeatureMultiplierDTO', () => {
  const fixed = (settings: Partial<MultiplierSettings>) => ({ feature: multiplier, settings });
  const ratio = { scaleType: 'BALANCE' as const };

  it("sizes a balance ratio with the slave's fixed balance instead of its live one", () =>
    given({ settings: ratio, features: [fixed({ fixSlaveBalanceAndEquity: 20_000 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2 }]));

  it('fixes both sides at once, for the equity ratio too', () =>
    given({
      settings: { scaleType: 'EQUITY' },
      master: { equity: 50_000 },
      features: [fixed({ fixMasterBalanceAndEquity: 20_000, fixSlaveBalanceAndEquity: 5_000 })],
    })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 0.25 }]));

  it("replaces the copier's own members, 0 included: 0 means the live figures", () => {
    // The copier alone would size with its fixed master balance of 5,000: 2 lots.
    given({ settings: { ...ratio, fixMasterBalanceAndEquity: 5_000 } })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2 }]);
    given({ settings: { ...ratio, fixMasterBalanceAndEquity: 5_000 }, features: [fixed({})] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1 }]);
  });

  it('leaves the scale types without a ratio alone', () =>
    given({ settings: { multiplier: 1.5 }, features: [fixed({ fixSlaveBalanceAndEquity: 100_000 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1.5 }]));

  it('gives its lot to the caps of a second feature', () =>
    given({ settings: ratio, features: [fixed({ fixSlaveBalanceAndEquity: 30_000 }), { feature: maxLotSize, settings: { maxLotSize: 2.5 } }] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2.5 }]));

  it("multiplier replaces the copier's multiplier; null (the default) keeps it", () => {
    given({ settings: { multiplier: 1.5 }, features: [fixed({ multiplier: 3 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 3 }]);
    given({ settings: { multiplier: 1.5 }, features: [fixed({ multiplier: null })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1.5 }]);
  });

  it("scaleType replaces the copier's; fixedLotSize is the lot when the feature sets scale type 3", () => {
    given({ settings: { multiplier: 2 }, features: [fixed({ scaleType: { id: 3 }, fixedLotSize: 0.3 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 0.3 }]);
    given({ settings: { multiplier: 2 }, features: [fixed({ scaleType: { id: 1 }, fixSlaveBalanceAndEquity: 20_000 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 4 }]);
  });

  it("with the copier's own scale type 3 the copier's fixedLotSize stays", () =>
    given({ settings: { scaleType: 'FIXED_LOT', fixedLotSize: 0.5 }, features: [fixed({ fixedLotSize: 0.2 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 0.5 }]));

  describe('symbolsConfiguration', () => {
    const gbp = { masterSymbol: { symbol: 'GBPUSD' }, slaveSymbols: [symbolSpec(), symbolSpec({ symbol: 'GBPUSD' })] };

    it("a slave symbol's multiplier replaces the general one for its trades only", () => {
      const features = [fixed({ multiplier: 2, symbolsConfiguration: { EURUSD: { multiplier: 0.5 } } })];
      given({ features })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 0.5 }]);
      given({ ...gbp, features })
        .when(masterOpened({ volume: 1, symbol: 'GBPUSD' }))
        .then([{ type: 'open', volume: 2, symbol: 'GBPUSD' }]);
    });

    it('a symbol may size with its own fixed lot while the others follow the copier', () => {
      const features = [fixed({ symbolsConfiguration: { gbpusd: { scaleType: { id: 3 }, fixedLotSize: 0.07 } } })];
      given({ ...gbp, settings: { multiplier: 3 }, features })
        .when(masterOpened({ volume: 1, symbol: 'GBPUSD' }))
        .then([{ type: 'open', volume: 0.07, symbol: 'GBPUSD' }]);
      given({ settings: { multiplier: 3 }, features })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 3 }]);
    });

    it("a symbol's fixed balances size its ratio", () =>
      given({ settings: { scaleType: 'BALANCE' }, features: [fixed({ symbolsConfiguration: { EURUSD: { fixSlaveBalanceAndEquity: 5_000 } } })] })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 0.5 }]));

    it('refuses an unknown scale type, general or per symbol', () => {
      const check = (s: Partial<MultiplierSettings>) => multiplier.check!({ ...multiplier.defaults, ...s } as MultiplierSettings);
      expect(check({ scaleType: { id: 9 } })).to.match(/scaleType\.id 9 is no scale type/);
      expect(check({ symbolsConfiguration: { EURUSD: { scaleType: { id: 0 } } } })).to.match(/^symbolsConfiguration\.EURUSD: scaleType\.id 0/);
      expect(check({ scaleType: { id: 4 }, symbolsConfiguration: { EURUSD: { scaleType: { id: 3 } } } })).to.equal(null);
    });
  });
});
