import { expect } from 'chai';
import { copierFilter } from '../../../../domain/copy/features/copierFilter.js';
import { orderTypeFilter } from '../../../../domain/copy/features/orderTypeFilter.js';
import { given, masterClosed, masterOpened, masterPendingPlaced, slaveCopy } from '../given.js';

describe('feature: FeatureCopierFilterDTO (master lot range)', () => {
  const filter = (minLotSize: number | null, maxLotSize: number | null) => ({ feature: copierFilter, settings: { minLotSize, maxLotSize } });

  it('copies a master lot inside the range, bounds included', () => {
    given({ features: [filter(0.1, 1)] })
      .when(masterOpened({ volume: 0.1 }))
      .then([{ type: 'open', volume: 0.1 }]);
    given({ features: [filter(0.1, 1)] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1 }]);
  });

  it('skips a master lot below the minimum with LOT_FILTERED', () =>
    given({ features: [filter(0.1, 1)] })
      .when(masterOpened({ volume: 0.09 }))
      .thenSkips('LOT_FILTERED', /0\.09 is below the filter's minimum 0\.1/));

  it('skips a master lot above the maximum with LOT_FILTERED', () =>
    given({ features: [filter(0.1, 1)] })
      .when(masterOpened({ volume: 1.01 }))
      .thenSkips('LOT_FILTERED', /above the filter's maximum 1/));

  it('reads null or 0 as no bound', () => {
    given({ features: [filter(null, 0)] })
      .when(masterOpened({ volume: 50 }))
      .then([{ type: 'open', volume: 50 }]);
    given({ features: [filter(0, null)] })
      .when(masterOpened({ volume: 0.01 }))
      .then([{ type: 'open', volume: 0.01 }]);
  });

  it('filters the master lot, not the sized one: master 0.05 x 10 is still below a 0.1 minimum', () =>
    given({ settings: { multiplier: 10 }, features: [filter(0.1, null)] })
      .when(masterOpened({ volume: 0.05 }))
      .thenSkips('LOT_FILTERED'));

  it('filters pending orders too, and never a close', () => {
    given({ features: [filter(0.1, null)] })
      .when(masterPendingPlaced('BuyLimit', { volume: 0.05, openPrice: 1.09 }))
      .thenSkips('LOT_FILTERED');
    given({ features: [filter(10, null)], slave: { copies: [slaveCopy()] } })
      .when(masterClosed())
      .then([{ type: 'close' }]);
  });

  it('refuses a minimum above the maximum', () => {
    expect(copierFilter.check!({ minLotSize: 2, maxLotSize: 1 })).to.match(/minLotSize 2 is above maxLotSize 1/);
    expect(copierFilter.check!({ minLotSize: 2, maxLotSize: 0 })).to.equal(null);
  });

  it('combined with the order type filter, each refuses with its own reason', () => {
    const both = [filter(0.1, null), { feature: orderTypeFilter, settings: { allowedOrderTypes: ['Buy'] } }];
    given({ features: both })
      .when(masterOpened({ orderType: 'Sell', volume: 1 }))
      .thenSkips('ORDER_TYPE_FILTERED');
    given({ features: both })
      .when(masterOpened({ orderType: 'Buy', volume: 0.01 }))
      .thenSkips('LOT_FILTERED');
    given({ features: both })
      .when(masterOpened({ orderType: 'Buy', volume: 1 }))
      .then([{ type: 'open' }]);
  });
});

describe('feature: FeatureOrderTypeFilterDTO', () => {
  const allow = (allowedOrderTypes: string[] | null) => ({ feature: orderTypeFilter, settings: { allowedOrderTypes } });

  it('copies only the allowed order types', () => {
    given({ features: [allow(['Buy', 'SellLimit'])] })
      .when(masterOpened({ orderType: 'Buy' }))
      .then([{ type: 'open', orderType: 'Buy' }]);
    given({ features: [allow(['Buy', 'SellLimit'])] })
      .when(masterOpened({ orderType: 'Sell' }))
      .thenSkips('ORDER_TYPE_FILTERED', /Sell is not among the allowed order types Buy, SellLimit/);
    given({ features: [allow(['Buy', 'SellLimit'])] })
      .when(masterPendingPlaced('SellLimit', { openPrice: 1.11 }))
      .then([{ type: 'open', orderType: 'SellLimit' }]);
    given({ features: [allow(['Buy', 'SellLimit'])] })
      .when(masterPendingPlaced('BuyStop', { openPrice: 1.11 }))
      .thenSkips('ORDER_TYPE_FILTERED');
  });

  it('copies every type when the list is empty or null', () => {
    given({ features: [allow([])] })
      .when(masterOpened({ orderType: 'Sell' }))
      .then([{ type: 'open' }]);
    given({ features: [allow(null)] })
      .when(masterPendingPlaced('SellStop', { openPrice: 1.09 }))
      .then([{ type: 'open' }]);
  });

  it("judges the master's type before reverse", () =>
    given({ settings: { reverse: true }, features: [allow(['Buy'])] })
      .when(masterOpened({ orderType: 'Buy' }))
      .then([{ type: 'open', orderType: 'Sell' }]));
});
