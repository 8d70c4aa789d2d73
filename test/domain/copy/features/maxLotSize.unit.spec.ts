import { maxLotSize, type MaxLotSizeSettings } from '../../../../domain/copy/features/maxLotSize.js';
import { given, masterOpened, symbolSpec } from '../given.js';

describe('feature: FeatureMaxLotSizeDTO', () => {
  const cap = (settings: Partial<MaxLotSizeSettings>) => ({ feature: maxLotSize, settings });

  it("0 is deactivated, as the reference says: the copier's own maxLotSize applies", () => {
    given({ settings: { multiplier: 3 }, features: [cap({ maxLotSize: 0, skipIfExceedsMax: true })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 3 }]);
    given({ settings: { multiplier: 3, maxLotSize: 2 }, features: [cap({ maxLotSize: 0 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2 }]);
  });

  it('reduces a slave lot above the cap to the cap by default', () =>
    given({ settings: { multiplier: 3 }, features: [cap({ maxLotSize: 2 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2 }]));

  it('leaves a lot at or below the cap alone', () =>
    given({ settings: { multiplier: 2 }, features: [cap({ maxLotSize: 2 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2 }]));

  it('skipIfExceedsMax skips a slave lot over the cap with MAX_LOT_SIZE_EXCEEDED', () =>
    given({ settings: { multiplier: 3 }, features: [cap({ maxLotSize: 2, skipIfExceedsMax: true })] })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('MAX_LOT_SIZE_EXCEEDED', /slave lot 3 is above the maximum lot size 2/));

  it("checkMasterLotSize with skipIfExceedsMax measures the master's lot: a small master lot passes even when sized above the cap", () =>
    given({ settings: { multiplier: 5 }, features: [cap({ maxLotSize: 2, checkMasterLotSize: true, skipIfExceedsMax: true })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 5 }]));

  it('checkMasterLotSize with skipIfExceedsMax skips a master lot over the cap', () =>
    given({ features: [cap({ maxLotSize: 2, checkMasterLotSize: true, skipIfExceedsMax: true })] })
      .when(masterOpened({ volume: 2.5 }))
      .thenSkips('MAX_LOT_SIZE_EXCEEDED', /master lot 2\.5/));

  it('checkMasterLotSize without skipIfExceedsMax is not active (the reference): the slave lot is reduced to the cap', () => {
    given({ settings: { multiplier: 5 }, features: [cap({ maxLotSize: 2, checkMasterLotSize: true })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2 }]);
    given({ features: [cap({ maxLotSize: 2, checkMasterLotSize: true })] })
      .when(masterOpened({ volume: 2.5 }))
      .then([{ type: 'open', volume: 2 }]);
  });

  it("replaces the copier's own maxLotSize", () =>
    given({ settings: { multiplier: 3, maxLotSize: 1 }, features: [cap({ maxLotSize: 2.5 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2.5 }]));

  describe('symbolsConfiguration', () => {
    it("a symbol's members replace the general ones for its trades; other symbols keep the general cap", () => {
      const features = [cap({ maxLotSize: 2, symbolsConfiguration: { eurusd: { maxLotSize: 1 } } })];
      given({ settings: { multiplier: 3 }, features })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 1 }]);
      given({ settings: { multiplier: 3 }, features, masterSymbol: { symbol: 'GBPUSD' }, slaveSymbols: [symbolSpec({ symbol: 'GBPUSD' })] })
        .when(masterOpened({ volume: 1, symbol: 'GBPUSD' }))
        .then([{ type: 'open', volume: 2 }]);
    });

    it('a member the symbol leaves out keeps the general value: EURUSD skips with the general skipIfExceedsMax', () =>
      given({ settings: { multiplier: 3 }, features: [cap({ maxLotSize: 5, skipIfExceedsMax: true, symbolsConfiguration: { EURUSD: { maxLotSize: 2 } } })] })
        .when(masterOpened({ volume: 1 }))
        .thenSkips('MAX_LOT_SIZE_EXCEEDED', /slave lot 3 is above the maximum lot size 2/));

    it("reads the slave's symbol after mapping, not the master's", () => {
      const mapped = { overrides: { EURUSD: 'EURUSD.m' }, slaveSymbols: [symbolSpec({ symbol: 'EURUSD.m' })], settings: { multiplier: 3 } };
      given({ ...mapped, features: [cap({ maxLotSize: 2, symbolsConfiguration: { 'EURUSD.m': { maxLotSize: 1 } } })] })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 1, symbol: 'EURUSD.m' }]);
      given({ ...mapped, features: [cap({ maxLotSize: 2, symbolsConfiguration: { EURUSD: { maxLotSize: 1 } } })] })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 2, symbol: 'EURUSD.m' }]);
    });

    it("maxLotSize 0 for a symbol deactivates the feature there: the copier's own maxLotSize applies", () =>
      given({ settings: { multiplier: 3, maxLotSize: 2.5 }, features: [cap({ maxLotSize: 1, symbolsConfiguration: { EURUSD: { maxLotSize: 0 } } })] })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 2.5 }]));
  });
});
