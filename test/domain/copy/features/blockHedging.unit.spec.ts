import { expect } from 'chai';
import { blockHedging } from '../../../../domain/copy/features/blockHedging.js';
import { maxOpenPositions } from '../../../../domain/copy/features/maxOpenPositions.js';
import { given, masterOpened, masterPendingPlaced, record, slaveCopy, symbolSpec } from '../given.js';

describe('feature: FeatureBlockHedgingDTO', () => {
  const block = (settings: Record<string, unknown> = {}) => ({ feature: blockHedging, settings });
  const buyCopy = slaveCopy({ masterPositionId: 'm-1', slavePositionId: 's-1', orderType: 'Buy' });

  it('skips a sell while the slave holds a buy copy of the same symbol', () =>
    given({ features: [block()], slave: { copies: [buyCopy] } })
      .when(masterOpened({ orderType: 'Sell' }))
      .thenSkips('HEDGING_BLOCKED', /a Sell of EURUSD would hedge the slave's Buy #s-1/));

  it('copies a second buy, and a sell of another symbol', () => {
    given({ features: [block()], slave: { copies: [buyCopy] } })
      .when(masterOpened({ orderType: 'Buy' }))
      .then([{ type: 'open', orderType: 'Buy' }]);
    const gbp = symbolSpec({ symbol: 'GBPUSD' });
    given({ features: [block()], slave: { copies: [buyCopy] }, slaveSymbols: [symbolSpec(), gbp] })
      .when(masterOpened({ orderType: 'Sell', symbol: 'GBPUSD' }))
      .then([{ type: 'open' }]);
  });

  it("judges the slave's sides: under reverse a master buy is a slave sell and hedges a slave buy", () =>
    given({ features: [block()], settings: { reverse: true }, slave: { copies: [buyCopy] } })
      .when(masterOpened({ orderType: 'Buy' }))
      .thenSkips('HEDGING_BLOCKED'));

  it('counts pending orders by their side, unless includePendingOrders is false', () => {
    const pendingSell = slaveCopy({ masterPositionId: 'm-2', slavePositionId: 's-2', kind: 'pendingOrder', orderType: 'SellLimit' });
    given({ features: [block()], slave: { copies: [pendingSell] } })
      .when(masterOpened({ orderType: 'Buy' }))
      .thenSkips('HEDGING_BLOCKED');
    given({ features: [block()], slave: { copies: [buyCopy] } })
      .when(masterPendingPlaced('SellStop', { openPrice: 1.09 }))
      .thenSkips('HEDGING_BLOCKED');
    given({ features: [block({ includePendingOrders: false })], slave: { copies: [pendingSell] } })
      .when(masterOpened({ orderType: 'Buy' }))
      .then([{ type: 'open' }]);
    given({ features: [block({ includePendingOrders: false })], slave: { copies: [buyCopy] } })
      .when(masterPendingPlaced('SellStop', { openPrice: 1.09 }))
      .then([{ type: 'open' }]);
  });

  it('applies only to the listed symbols when there are any', () => {
    given({ features: [block({ symbols: ['XAU*'] })], slave: { copies: [buyCopy] } })
      .when(masterOpened({ orderType: 'Sell' }))
      .then([{ type: 'open' }]);
    given({ features: [block({ symbols: ['eur*'] })], slave: { copies: [buyCopy] } })
      .when(masterOpened({ orderType: 'Sell' }))
      .thenSkips('HEDGING_BLOCKED');
  });

  it('refuses a symbol pattern with more than three stars', () =>
    expect(blockHedging.check!({ includePendingOrders: true, symbols: ['*A*B*C*'] })).to.match(/more than 3/));

  it('with a throttle beside it, a trade that would not hedge can still be throttled', () =>
    given({
      features: [block(), { feature: maxOpenPositions, settings: { maxPositionsInTimeWindow: 1, timeWindowSeconds: 60 } }],
      slave: { copies: [buyCopy] },
      history: [record({ openedAt: '2026-01-07T09:59:30.000Z', closedAt: null })],
    })
      .when(masterOpened({ orderType: 'Buy' }))
      .thenSkips('MAX_OPEN_POSITIONS_REACHED'));
});
