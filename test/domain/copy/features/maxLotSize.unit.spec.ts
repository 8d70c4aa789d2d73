import { maxLotSize } from '../../../../domain/copy/features/maxLotSize.js';
import { given, masterOpened } from '../given.js';

describe('feature: FeatureMaxLotSizeDTO', () => {
  const cap = (settings: { maxLotSize: number; skipIfExceedsMax?: boolean; checkMasterLotSize?: boolean }) => ({ feature: maxLotSize, settings });

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

  it("checkMasterLotSize measures the master's lot: a small master lot passes even when sized above the cap", () =>
    given({ settings: { multiplier: 5 }, features: [cap({ maxLotSize: 2, checkMasterLotSize: true })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 5 }]));

  it('checkMasterLotSize with skipIfExceedsMax skips a master lot over the cap', () =>
    given({ features: [cap({ maxLotSize: 2, checkMasterLotSize: true, skipIfExceedsMax: true })] })
      .when(masterOpened({ volume: 2.5 }))
      .thenSkips('MAX_LOT_SIZE_EXCEEDED', /master lot 2\.5/));

  it('checkMasterLotSize without skip reduces the slave lot to the cap when the master lot is over it', () =>
    given({ features: [cap({ maxLotSize: 2, checkMasterLotSize: true })] })
      .when(masterOpened({ volume: 2.5 }))
      .then([{ type: 'open', volume: 2 }]));

  it("replaces the copier's own maxLotSize", () =>
    given({ settings: { multiplier: 3, maxLotSize: 1 }, features: [cap({ maxLotSize: 2.5 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2.5 }]));
});
