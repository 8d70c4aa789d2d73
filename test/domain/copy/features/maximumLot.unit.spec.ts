import { martingaleStrategy } from '../../../../domain/copy/features/martingaleStrategy.js';
import { maximumLot, type MaximumLotSettings } from '../../../../domain/copy/features/maximumLot.js';
import { given, masterOpened, slaveCopy, symbolSpec } from '../given.js';
import { closedCopies } from './closedCopies.js';

describe('feature: FeatureMaximumLotDTO', () => {
  const cap = (settings: Partial<MaximumLotSettings>) => ({ feature: maximumLot, settings });
  const holding = (...volumes: number[]) => ({
    copies: volumes.map((volume, i) => slaveCopy({ masterPositionId: `m-open-${i}`, slavePositionId: `s-open-${i}`, volume })),
  });

  it('0 is deactivated, as the reference says', () =>
    given({ features: [cap({ maximumLot: 0 })], slave: holding(1) })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1 }]));

  it("skips an open that would bring the copier's open lots above the maximum", () =>
    given({ features: [cap({ maximumLot: 1.5 })], slave: holding(1) })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('MAXIMUM_LOT_REACHED', /would bring this copier's open lots to 2, above its maximum 1\.5/));

  it('opens when the open lots reach the maximum exactly', () =>
    given({ features: [cap({ maximumLot: 1.5 })], slave: holding(1) })
      .when(masterOpened({ volume: 0.5 }))
      .then([{ type: 'open', volume: 0.5 }]));

  it('counts pending orders with the positions', () =>
    given({
      features: [cap({ maximumLot: 1 })],
      slave: { copies: [slaveCopy({ masterPositionId: 'm-pending', kind: 'pendingOrder', orderType: 'BuyLimit', volume: 0.6 })] },
    })
      .when(masterOpened({ volume: 0.5 }))
      .thenSkips('MAXIMUM_LOT_REACHED', /open lots to 1\.1, above its maximum 1/));

  it("replaces the copier's own maximumLot", () => {
    given({ settings: { maximumLot: 1 }, slave: holding(1) })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('MAXIMUM_LOT_REACHED');
    given({ settings: { maximumLot: 1 }, features: [cap({ maximumLot: 3 })], slave: holding(1) })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1 }]);
  });

  it('reduceToFit opens the lots that still fit, in whole steps', () =>
    given({ features: [cap({ maximumLot: 1.557, reduceToFit: true })], slave: holding(1) })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 0.55 }]));

  it('reduceToFit still skips when what fits is below the minimum lot', () =>
    given({ features: [cap({ maximumLot: 1.5, reduceToFit: true })], slave: holding(1.45), slaveSymbols: [symbolSpec({ minLot: 0.1 })] })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('MAXIMUM_LOT_REACHED', /the 0\.05 lots that fit are below the minimum 0\.1 of EURUSD/));

  it("applies to the lot after a martingale feature's doubling", () => {
    const twoLosses = closedCopies([-10, -10]);
    given({ features: [{ feature: martingaleStrategy, settings: {} }, cap({ maximumLot: 3 })], history: twoLosses })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('MAXIMUM_LOT_REACHED', /open lots to 4, above its maximum 3/);
    given({ features: [{ feature: martingaleStrategy, settings: {} }, cap({ maximumLot: 3, reduceToFit: true })], history: twoLosses })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 3 }]);
  });

  describe('symbolsConfiguration', () => {
    const onSymbols = (...copies: [string, number][]) => ({
      copies: copies.map(([symbol, volume], i) => slaveCopy({ masterPositionId: `m-open-${i}`, slavePositionId: `s-open-${i}`, symbol, volume })),
    });

    it("caps the open lots on the symbol with the symbol's own maximum, other symbols' lots not counted", () => {
      const features = [cap({ symbolsConfiguration: { EURUSD: { maximumLot: 1 } } })];
      given({ features, slave: onSymbols(['EURUSD', 0.6], ['GBPUSD', 5]) })
        .when(masterOpened({ volume: 0.5 }))
        .thenSkips('MAXIMUM_LOT_REACHED', /this copier's open lots on EURUSD to 1\.1, above its maximum 1/);
      given({ features, slave: onSymbols(['EURUSD', 0.4], ['GBPUSD', 5]) })
        .when(masterOpened({ volume: 0.5 }))
        .then([{ type: 'open', volume: 0.5 }]);
    });

    it('the general maximum still caps the open lots on all symbols together', () =>
      given({ features: [cap({ maximumLot: 2, symbolsConfiguration: { EURUSD: { maximumLot: 1 } } })], slave: onSymbols(['GBPUSD', 1.8]) })
        .when(masterOpened({ volume: 0.5 }))
        .thenSkips('MAXIMUM_LOT_REACHED', /this copier's open lots to 2\.3, above its maximum 2/));

    it("a symbol's reduceToFit opens what fits under both caps", () =>
      given({
        features: [cap({ maximumLot: 2, symbolsConfiguration: { EURUSD: { maximumLot: 1, reduceToFit: true } } })],
        slave: onSymbols(['EURUSD', 0.7], ['GBPUSD', 1.1]),
      })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 0.2 }]));
  });
});
