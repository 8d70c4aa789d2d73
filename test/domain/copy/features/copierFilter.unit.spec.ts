import { expect } from 'chai';
import { copierFilter } from '../../../../domain/copy/features/copierFilter.js';
import { orderTypeFilter } from '../../../../domain/copy/features/orderTypeFilter.js';
import { given, masterClosed, masterOpened, masterPendingPlaced, slaveCopy } from '../given.js';

describe('feature: FeatureCopierFilterDTO (master lot range)', () => {
  const filter = (minLotSize: number | null, maxLotSize: number | null) => ({
    feature: copierFilter,
    settings: { minLotSize, maxLotSize, comment: [], magicNumber: [] },
  });

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
    expect(copierFilter.check!({ minLotSize: 2, maxLotSize: 1, comment: [], magicNumber: [] })).to.match(/minLotSize 2 is above maxLotSize 1/);
    expect(copierFilter.check!({ minLotSize: 2, maxLotSize: 0, comment: [], magicNumber: [] })).to.equal(null);
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

describe('feature: FeatureCopierFilterDTO (comment and magic number)', () => {
  const filter = (settings: { comment?: string[]; magicNumber?: string[] }) => ({ feature: copierFilter, settings: { ...copierFilter.defaults, ...settings } });

  it('copies a master trade whose comment matches one of the patterns, without case and anywhere', () => {
    given({ features: [filter({ comment: ['^scalp', 'BREAK'] })] })
      .when(masterOpened({ comment: 'breakout #3' }))
      .then([{ type: 'open' }]);
    given({ features: [filter({ comment: ['^scalp', 'BREAK'] })] })
      .when(masterOpened({ comment: 'news' }))
      .thenSkips('COMMENT_FILTERED', /the master comment 'news' matches none of the filter's comment patterns \^scalp, BREAK/);
  });

  it('matches a trade without a comment as the empty text', () => {
    given({ features: [filter({ comment: ['^$'] })] })
      .when(masterOpened({ comment: null }))
      .then([{ type: 'open' }]);
    given({ features: [filter({ comment: ['.'] })] })
      .when(masterOpened({ comment: null }))
      .thenSkips('COMMENT_FILTERED', /comment ''/);
  });

  it('copies a master trade whose magic number (its digits) matches, and skips the others', () => {
    given({ features: [filter({ magicNumber: ['^4\\d$', '^1000$'] })] })
      .when(masterOpened({ magicNumber: 42 }))
      .then([{ type: 'open' }]);
    given({ features: [filter({ magicNumber: ['^4\\d$', '^1000$'] })] })
      .when(masterOpened({ magicNumber: 420 }))
      .thenSkips('MAGIC_NUMBER_FILTERED', /the master magic number '420' matches none/);
    given({ features: [filter({ magicNumber: ['^$'] })] })
      .when(masterOpened({ magicNumber: null }))
      .then([{ type: 'open' }]);
  });

  it('every member given must let the trade through; pending orders are filtered, closes never', () => {
    const both = filter({ comment: ['breakout'], magicNumber: ['^7$'] });
    given({ features: [both] })
      .when(masterOpened({ comment: 'breakout', magicNumber: 42 }))
      .thenSkips('MAGIC_NUMBER_FILTERED');
    given({ features: [both] })
      .when(masterPendingPlaced('BuyLimit', { comment: 'breakout', magicNumber: 7, openPrice: 1.09 }))
      .then([{ type: 'open', orderType: 'BuyLimit' }]);
    given({ features: [both], slave: { copies: [slaveCopy()] } })
      .when(masterClosed())
      .then([{ type: 'close' }]);
  });

  it('refuses a pattern that is no regular expression or could stall the engine', () => {
    expect(copierFilter.check!({ minLotSize: null, maxLotSize: null, comment: ['[abc'], magicNumber: [] })).to.match(
      /^comment: '\[abc' is no regular expression/,
    );
    expect(copierFilter.check!({ minLotSize: null, maxLotSize: null, comment: [], magicNumber: ['(\\d+)*x'] })).to.match(/^magicNumber: .* repeats a group/);
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
