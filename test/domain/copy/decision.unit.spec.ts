import { expect } from 'chai';
import { slaveOrderId } from '../../../domain/copy/orderIds.js';
import type { OrderType, PendingOrderType } from '../../../domain/copy/types.js';
import {
  COPIER_ID,
  EVENT_ID,
  given,
  MASTER_POSITION,
  masterClosed,
  masterModified,
  masterOpened,
  masterPartiallyClosed,
  masterPendingCancelled,
  masterPendingFilled,
  masterPendingModified,
  masterPendingPlaced,
  SLAVE_POSITION,
  slaveCopy,
  symbolSpec,
  type World,
  copierSettings,
} from './given.js';

const idOf = (action: 'open' | 'modify' | 'partialClose' | 'close' | 'cancel') => slaveOrderId(EVENT_ID, COPIER_ID, action);
const reversed = { settings: { reverse: true } };
const withPosition = (volume = 1) => ({ slave: { copies: [slaveCopy({ volume })] } });
const withPendingOrder = (orderType: OrderType = 'BuyLimit', volume = 1) => ({
  slave: { copies: [slaveCopy({ kind: 'pendingOrder', orderType, volume })] },
});

describe('copy decision: decideCopy', () => {
  describe('opening', () => {
    it('opens the master trade on the slave with its id, stops, comment and magic number', () =>
      given({ settings: { copyOriginalComment: true, copyMagicNumber: true } })
        .when(masterOpened())
        .then([
          {
            type: 'open',
            clientOrderId: idOf('open'),
            masterPositionId: MASTER_POSITION,
            symbol: 'EURUSD',
            orderType: 'Buy',
            volume: 1,
            openPrice: null,
            stopLoss: 1.095,
            takeProfit: 1.11,
            comment: 'breakout',
            magicNumber: 42,
            replacesPendingOrderId: null,
          },
        ]));

    it('sizes the open by the copier (master 1.00 lot, multiplier 2: slave 2.00)', () =>
      given({ settings: { multiplier: 2 } })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 2 }]));

    it('opens on the mapped slave symbol and rounds prices to its digits', () =>
      given({ slaveSymbols: [symbolSpec({ symbol: 'EURUSD.m', digits: 4 })] })
        .when(masterOpened({ stopLoss: 1.09537, takeProfit: 1.11004 }))
        .then([{ type: 'open', symbol: 'EURUSD.m', stopLoss: 1.0954, takeProfit: 1.11 }]));

    it('uses an explicit symbol override', () =>
      given({ overrides: { EURUSD: 'EU50' }, slaveSymbols: [symbolSpec(), symbolSpec({ symbol: 'EU50' })] })
        .when(masterOpened())
        .then([{ type: 'open', symbol: 'EU50' }]));

    it('skips with SYMBOL_NOT_MAPPED when the slave has no such symbol', () =>
      given({ slaveSymbols: [symbolSpec({ symbol: 'GBPUSD' })] })
        .when(masterOpened())
        .thenSkips('SYMBOL_NOT_MAPPED', /Buy 1 EURUSD \(master #m-1001\) not copied: no unique slave symbol for EURUSD/));

    it('skips with VOLUME_BELOW_MINIMUM and says so in words, without forceMinTrade', () =>
      given({ settings: { forceMinTrade: false }, slaveSymbols: [symbolSpec({ minLot: 0.1 })] })
        .when(masterOpened({ volume: 0.05 }))
        .thenSkips('VOLUME_BELOW_MINIMUM', /0\.05 lots is below the minimum 0\.1 of EURUSD/));

    it('skips with MIN_VOLUME_SAFETY using the master broker minimum of the symbol', () =>
      given({
        settings: { forceMinTrade: true, minVolumeSafetySkipThresholdMultiplier: 5 },
        masterSymbol: { minLot: 0.01 },
        slaveSymbols: [symbolSpec({ minLot: 0.1 })],
      })
        .when(masterOpened({ volume: 0.02 }))
        .thenSkips('MIN_VOLUME_SAFETY'));

    it("skips with MAXIMUM_LOT_REACHED counting the copier's open copies, pending orders included", () =>
      given({
        settings: { maximumLot: 2 },
        slave: {
          copies: [
            slaveCopy({ masterPositionId: 'm-1', slavePositionId: 's-1', volume: 1 }),
            slaveCopy({ masterPositionId: 'm-2', slavePositionId: 's-2', kind: 'pendingOrder', orderType: 'BuyStop', volume: 0.6 }),
          ],
        },
      })
        .when(masterOpened({ volume: 0.5 }))
        .thenSkips('MAXIMUM_LOT_REACHED', /open lots to 2\.1, above its maximum 2/));

    it('skips with ALREADY_COPIED when the slave already copies that master position (a replay)', () =>
      given(withPosition())
        .when(masterOpened())
        .thenSkips('ALREADY_COPIED', /already copies it/));

    it('copies a pending order with its trigger price and volume', () =>
      given({ settings: { multiplier: 0.5 } })
        .when(masterPendingPlaced('BuyLimit', { openPrice: 1.095123, volume: 2 }))
        .then([{ type: 'open', orderType: 'BuyLimit', openPrice: 1.09512, volume: 1, clientOrderId: idOf('open') }]));
  });

  describe('reverse', () => {
    const mapping: readonly (readonly [OrderType, OrderType])[] = [
      ['Buy', 'Sell'],
      ['Sell', 'Buy'],
      ['BuyLimit', 'SellStop'],
      ['SellStop', 'BuyLimit'],
      ['SellLimit', 'BuyStop'],
      ['BuyStop', 'SellLimit'],
    ];
    for (const [master, slave] of mapping) {
      const event = (type: OrderType) =>
        type === 'Buy' || type === 'Sell'
          ? masterOpened({ orderType: type, stopLoss: 1.09, takeProfit: 1.12 })
          : masterPendingPlaced(type as PendingOrderType, { openPrice: 1.1, stopLoss: 1.09, takeProfit: 1.12 });

      it(`turns a master ${master} into a slave ${slave} at the same price, stop loss and take profit swapped`, () =>
        given(reversed)
          .when(event(master))
          .then([
            {
              type: 'open',
              orderType: slave,
              openPrice: master === 'Buy' || master === 'Sell' ? null : 1.1,
              stopLoss: 1.12,
              takeProfit: 1.09,
            },
          ]));

      it(`keeps a master ${master} as ${master} with its own stops when not reversed`, () =>
        given()
          .when(event(master))
          .then([{ type: 'open', orderType: master, stopLoss: 1.09, takeProfit: 1.12 }]));
    }

    it('swaps a missing stop loss into a missing take profit', () =>
      given(reversed)
        .when(masterOpened({ stopLoss: null, takeProfit: 1.12 }))
        .then([{ type: 'open', orderType: 'Sell', stopLoss: 1.12, takeProfit: null }]));

    it('swaps stop loss and take profit of a modification', () =>
      given({ ...reversed, ...withPosition() })
        .when(masterModified(1.094, 1.115))
        .then([{ type: 'modify', stopLoss: 1.115, takeProfit: 1.094, openPrice: null }]));

    it('keeps the trigger price and swaps the stops of a pending modification', () =>
      given({ ...reversed, ...withPendingOrder('SellStop') })
        .when(masterPendingModified(1.098, 1.09, 1.12))
        .then([{ type: 'modify', openPrice: 1.098, stopLoss: 1.12, takeProfit: 1.09 }]));

    it('opens the reversed side when a reversed pending copy is replaced at the master fill', () =>
      given({ ...reversed, ...withPendingOrder('SellStop', 0.5) })
        .when(masterPendingFilled({ orderType: 'Buy', stopLoss: 1.09, takeProfit: 1.12 }))
        .then([
          { type: 'cancel', slavePositionId: SLAVE_POSITION },
          { type: 'open', orderType: 'Sell', volume: 0.5, openPrice: null, stopLoss: 1.12, takeProfit: 1.09 },
        ]));
  });

  describe('modifications', () => {
    it('modifies the stops of the slave copy', () =>
      given(withPosition())
        .when(masterModified(1.096, null))
        .then([
          {
            type: 'modify',
            clientOrderId: idOf('modify'),
            slavePositionId: SLAVE_POSITION,
            symbol: 'EURUSD',
            stopLoss: 1.096,
            takeProfit: null,
            openPrice: null,
          },
        ]));

    it('moves the trigger price of the slave pending order', () =>
      given(withPendingOrder())
        .when(masterPendingModified(1.0975, 1.09, 1.11))
        .then([{ type: 'modify', slavePositionId: SLAVE_POSITION, openPrice: 1.0975, stopLoss: 1.09, takeProfit: 1.11 }]));

    it('skips with NO_SLAVE_POSITION when the position was never copied', () =>
      given()
        .when(masterModified(1.09, 1.11))
        .thenSkips('NO_SLAVE_POSITION', /stop loss \/ take profit change of master #m-1001 not copied/));

    it('skips with NO_SLAVE_ORDER when the pending order was never copied', () =>
      given()
        .when(masterPendingModified(1.09, null, null))
        .thenSkips('NO_SLAVE_ORDER'));
  });

  describe('partial closes', () => {
    it('closes the same fraction of the slave volume: master closes half of 1, slave half of 2', () =>
      given(withPosition(2))
        .when(masterPartiallyClosed(0.5, 0.5))
        .then([
          {
            type: 'partialClose',
            clientOrderId: idOf('partialClose'),
            slavePositionId: SLAVE_POSITION,
            volume: 1,
            remainingVolume: 1,
          },
        ]));

    it('computes the fraction exactly: a third of 0.3 is 0.1', () =>
      given(withPosition(0.3))
        .when(masterPartiallyClosed(0.1, 0.2))
        .then([{ type: 'partialClose', volume: 0.1, remainingVolume: 0.2 }]));

    it('rounds the closed volume down to the step: half of 0.05 closes 0.02', () =>
      given(withPosition(0.05))
        .when(masterPartiallyClosed(0.5, 0.5))
        .then([{ type: 'partialClose', volume: 0.02, remainingVolume: 0.03 }]));

    it('closes everything when what would remain is below the minimum lot', () =>
      given({ ...withPosition(0.15), slaveSymbols: [symbolSpec({ minLot: 0.1 })] })
        .when(masterPartiallyClosed(0.5, 0.5))
        .then([{ type: 'close', clientOrderId: idOf('close'), slavePositionId: SLAVE_POSITION, volume: 0.15 }]));

    it('skips with PARTIAL_CLOSE_ROUNDS_TO_ZERO when the share rounds to nothing', () =>
      given(withPosition(0.01))
        .when(masterPartiallyClosed(0.3, 0.7))
        .thenSkips('PARTIAL_CLOSE_ROUNDS_TO_ZERO', /30% of 0\.01 lots rounds down to 0/));

    it('skips with VOLUME_BELOW_MINIMUM when the share is below the minimum lot but the rest can stay', () =>
      given({ ...withPosition(1), slaveSymbols: [symbolSpec({ minLot: 0.1 })] })
        .when(masterPartiallyClosed(0.05, 0.95))
        .thenSkips('VOLUME_BELOW_MINIMUM', /closing 5% of 1 lots is 0\.05 lots/));

    it('closes everything when nothing remains on the master', () =>
      given(withPosition(0.7))
        .when(masterPartiallyClosed(1, 0))
        .then([{ type: 'close', volume: 0.7 }]));

    it('skips with NO_SLAVE_POSITION without a copy', () => given().when(masterPartiallyClosed(0.5, 0.5)).thenSkips('NO_SLAVE_POSITION'));
  });

  describe('closes and cancellations', () => {
    it('closes the slave copy with its whole volume', () =>
      given(withPosition(1.3))
        .when(masterClosed())
        .then([{ type: 'close', clientOrderId: idOf('close'), masterPositionId: MASTER_POSITION, slavePositionId: SLAVE_POSITION, volume: 1.3 }]));

    it('skips with NO_SLAVE_POSITION when the master position was never copied', () =>
      given()
        .when(masterClosed())
        .thenSkips('NO_SLAVE_POSITION', /close of master #m-1001 not copied: the slave holds no copy/));

    it('cancels a copy still pending when the master position closes', () =>
      given(withPendingOrder())
        .when(masterClosed())
        .then([{ type: 'cancel', slavePositionId: SLAVE_POSITION }]));

    it('cancels the slave pending order when the master cancels its own', () =>
      given(withPendingOrder())
        .when(masterPendingCancelled())
        .then([{ type: 'cancel', clientOrderId: idOf('cancel'), slavePositionId: SLAVE_POSITION, symbol: 'EURUSD' }]));

    it('closes a slave copy that filled on its own when the master cancels its order', () =>
      given(withPosition(0.4))
        .when(masterPendingCancelled())
        .then([{ type: 'close', volume: 0.4 }]));

    it('skips with NO_SLAVE_ORDER when the cancelled order was never copied', () => given().when(masterPendingCancelled()).thenSkips('NO_SLAVE_ORDER'));
  });

  describe('pending order fills', () => {
    it('does nothing when the slave copy has already filled', () => expect(given(withPosition()).when(masterPendingFilled()).actions).to.deep.equal([]));

    it('cancels the slave pending order and opens its volume at market, the open waiting for the cancel', () =>
      given(withPendingOrder('BuyLimit', 0.3))
        .when(masterPendingFilled({ volume: 5 }))
        .then([
          { type: 'cancel', clientOrderId: idOf('cancel'), slavePositionId: SLAVE_POSITION },
          {
            type: 'open',
            clientOrderId: idOf('open'),
            orderType: 'Buy',
            volume: 0.3,
            openPrice: null,
            replacesPendingOrderId: SLAVE_POSITION,
          },
        ]));

    it('opens a fresh, sized copy when the pending order was never copied', () =>
      given({ settings: { multiplier: 3 } })
        .when(masterPendingFilled({ volume: 0.1 }))
        .then([{ type: 'open', orderType: 'Buy', volume: 0.3, replacesPendingOrderId: null }]));
  });

  describe('comments and magic numbers', () => {
    const openWith = (world: World) => given(world).when(masterOpened({ comment: 'breakout', magicNumber: 42 }));

    it('copies neither the original comment nor the magic number by default (the reference defaults)', () =>
      openWith({}).then([{ type: 'open', comment: null, magicNumber: null }]));

    it('copies the original comment and magic number when asked', () =>
      openWith({ settings: { copyOriginalComment: true, copyMagicNumber: true } }).then([{ type: 'open', comment: 'breakout', magicNumber: 42 }]));

    it('uses the custom comment instead of the original', () =>
      openWith({ settings: { customComment: 'from A' } }).then([{ type: 'open', comment: 'from A' }]));

    it('hideComment leaves the slave order without a comment, custom comment included', () =>
      openWith({ settings: { hideComment: true, customComment: 'from A' } }).then([{ type: 'open', comment: null }]));

    it('a blank custom comment falls back to the original comment', () =>
      openWith({ settings: { customComment: '  ', copyOriginalComment: true } }).then([{ type: 'open', comment: 'breakout' }]));

    it('without copyOriginalComment and no custom comment there is none', () =>
      openWith({ settings: { copyOriginalComment: false } }).then([{ type: 'open', comment: null }]));

    it('the custom magic number wins over copying', () =>
      openWith({ settings: { customMagicNumber: 7, copyMagicNumber: true } }).then([{ type: 'open', magicNumber: 7 }]));

    it('without copyMagicNumber and no custom magic number there is none', () =>
      openWith({ settings: { copyMagicNumber: false } }).then([{ type: 'open', magicNumber: null }]));
  });

  describe('copier state', () => {
    it('an inactive copier skips an open with COPIER_INACTIVE', () =>
      given({ settings: { active: false } })
        .when(masterOpened())
        .thenSkips('COPIER_INACTIVE', /open of master #m-1001 not copied: the copier is inactive/));

    it('an inactive copier does not close either', () =>
      given({ settings: { active: false }, ...withPosition() })
        .when(masterClosed())
        .thenSkips('COPIER_INACTIVE'));

    it('a monitor-only copier places nothing and reports what it would have opened', () => {
      const skip = given({ settings: { monitorOnly: true, multiplier: 2 } })
        .when(masterOpened())
        .thenSkips('MONITOR_ONLY', /monitor only, nothing placed; would have: open Buy 2 EURUSD/);
      expect(skip.wouldHave).to.have.length(1);
      expect(skip.wouldHave[0]).to.deep.include({ type: 'open', orderType: 'Buy', volume: 2, clientOrderId: idOf('open') });
    });

    it('a monitor-only copier manages the copies it holds: closes, modifications, partial closes and cancellations go through', () => {
      given({ settings: { monitorOnly: true }, ...withPosition(0.8) })
        .when(masterClosed())
        .then([{ type: 'close', slavePositionId: SLAVE_POSITION, volume: 0.8 }]);
      given({ settings: { monitorOnly: true }, ...withPosition() })
        .when(masterModified(1.09, 1.12))
        .then([{ type: 'modify', stopLoss: 1.09, takeProfit: 1.12 }]);
      given({ settings: { monitorOnly: true }, ...withPosition(1) })
        .when(masterPartiallyClosed(0.5, 0.5))
        .then([{ type: 'partialClose', volume: 0.5 }]);
      given({ settings: { monitorOnly: true }, ...withPendingOrder() })
        .when(masterPendingCancelled())
        .then([{ type: 'cancel' }]);
    });

    it('a monitor-only copier does not open for a pending order that filled either', () =>
      given({ settings: { monitorOnly: true } })
        .when(masterPendingFilled())
        .thenSkips('MONITOR_ONLY', /would have: open Buy 1 EURUSD/));

    it('a monitor-only copier passes on the reason when the trade would have been skipped anyway', () =>
      given({ settings: { monitorOnly: true, forceMinTrade: false }, slaveSymbols: [symbolSpec({ minLot: 0.1 })] })
        .when(masterOpened({ volume: 0.01 }))
        .thenSkips('VOLUME_BELOW_MINIMUM'));
  });

  describe('skipPendingOrders', () => {
    it('is on by default, as the reference has it', () => expect(copierSettings().skipPendingOrders).to.equal(true));

    it('given it is on, when the master places a pending order, then nothing is copied and the log says why', () =>
      given({ settings: { skipPendingOrders: true } })
        .when(masterPendingPlaced('BuyLimit'))
        .thenSkips('PENDING_ORDER_SKIPPED', /pending order of master #m-1001 not copied: pending orders are not copied \(skipPendingOrders\)/));

    it('given it is on, when the pending order fills, then the position is copied like a market open', () =>
      given({ settings: { skipPendingOrders: true, multiplier: 2 } })
        .when(masterPendingFilled({ volume: 0.1 }))
        .then([{ type: 'open', orderType: 'Buy', volume: 0.2, openPrice: null }]));

    it('given it is on, a change or cancellation of the skipped pending order says the same, not that a copy is missing', () => {
      given({ settings: { skipPendingOrders: true } })
        .when(masterPendingModified(1.1, null, null))
        .thenSkips('PENDING_ORDER_SKIPPED', /pending order change of master #m-1001 not copied: pending orders are not copied/);
      given({ settings: { skipPendingOrders: true } })
        .when(masterPendingCancelled())
        .thenSkips('PENDING_ORDER_SKIPPED', /cancellation of master #m-1001 not copied/);
    });

    it('given it is off, when the master places a pending order, then it is copied', () =>
      given({ settings: { skipPendingOrders: false } })
        .when(masterPendingPlaced('SellStop', { openPrice: 1.09 }))
        .then([{ type: 'open', orderType: 'SellStop', openPrice: 1.09 }]));
  });

  describe('copyStopLoss and copyTakeProfit', () => {
    it('copy both by default', () =>
      given()
        .when(masterOpened({ stopLoss: 1.09, takeProfit: 1.12 }))
        .then([{ type: 'open', stopLoss: 1.09, takeProfit: 1.12 }]));

    it('given copyStopLoss false, then the copy has no stop loss, on the open and on later changes', () => {
      given({ settings: { copyStopLoss: false } })
        .when(masterOpened({ stopLoss: 1.09, takeProfit: 1.12 }))
        .then([{ type: 'open', stopLoss: null, takeProfit: 1.12 }]);
      given({ settings: { copyStopLoss: false }, ...withPosition() })
        .when(masterModified(1.085, 1.125))
        .then([{ type: 'modify', stopLoss: null, takeProfit: 1.125 }]);
    });

    it('given copyTakeProfit false, then the copy has no take profit, pending orders included', () => {
      given({ settings: { copyTakeProfit: false } })
        .when(masterOpened({ stopLoss: 1.09, takeProfit: 1.12 }))
        .then([{ type: 'open', stopLoss: 1.09, takeProfit: null }]);
      given({ settings: { copyTakeProfit: false }, ...withPendingOrder() })
        .when(masterPendingModified(1.1, 1.09, 1.12))
        .then([{ type: 'modify', openPrice: 1.1, stopLoss: 1.09, takeProfit: null }]);
    });

    it("under reverse they are the copy's own: copyStopLoss false drops the master's take profit, which would be the copy's stop loss", () =>
      given({ settings: { reverse: true, copyStopLoss: false } })
        .when(masterOpened({ stopLoss: 1.09, takeProfit: 1.12 }))
        .then([{ type: 'open', orderType: 'Sell', stopLoss: null, takeProfit: 1.09 }]));
  });

  describe('maxOpenPositions', () => {
    const holding = (n: number) => ({
      slave: {
        copies: Array.from({ length: n }, (_, i) =>
          slaveCopy({
            masterPositionId: `m-${i}`,
            slavePositionId: `s-${i}`,
            kind: i === 0 ? 'pendingOrder' : 'position',
            orderType: i === 0 ? 'BuyStop' : 'Buy',
          }),
        ),
      },
    });

    it('given the copier holds as many copies as its maximum (pending orders included), when the master opens, then it is skipped', () =>
      given({ settings: { maxOpenPositions: 2 }, ...holding(2) })
        .when(masterOpened())
        .thenSkips('MAX_OPEN_POSITIONS_REACHED', /holds 2 open copies, its maxOpenPositions is 2/));

    it('given one fewer, then it opens', () =>
      given({ settings: { maxOpenPositions: 3 }, ...holding(2) })
        .when(masterOpened())
        .then([{ type: 'open' }]));

    it('0 (the default) is off', () =>
      given({ settings: { maxOpenPositions: 0 }, ...holding(20) })
        .when(masterOpened())
        .then([{ type: 'open' }]));

    it('never holds back a close', () =>
      given({ settings: { maxOpenPositions: 1 }, ...withPosition() })
        .when(masterClosed())
        .then([{ type: 'close' }]));
  });

  describe('maxSlippage (points from the master open price)', () => {
    // EURUSD: 5 digits, a point is 0.00001; the master opened at 1.1.
    const at = (bid: number, ask: number) => ({ slaveQuote: { bid, ask } });

    it('given the slave ask is within maxSlippage of the master open price, when the master buys, then it opens', () =>
      given({ settings: { maxSlippage: 20 }, ...at(1.10005, 1.1002) })
        .when(masterOpened({ openPrice: 1.1 }))
        .then([{ type: 'open', orderType: 'Buy' }]));

    it('given the slave ask is further away, then it is skipped with the points in words', () =>
      given({ settings: { maxSlippage: 20 }, ...at(1.1001, 1.10021) })
        .when(masterOpened({ openPrice: 1.1 }))
        .thenSkips('SLIPPAGE_EXCEEDED', /price 1\.10021 is 21 points from the master's open price 1\.1, above maxSlippage 20/));

    it('compares a sell with the bid, and the reversed side of a reversed copy', () => {
      given({ settings: { maxSlippage: 5 }, ...at(1.09995, 1.2) })
        .when(masterOpened({ orderType: 'Sell', openPrice: 1.1 }))
        .then([{ type: 'open', orderType: 'Sell' }]);
      given({ settings: { maxSlippage: 5, reverse: true }, ...at(1.09995, 1.2) })
        .when(masterOpened({ orderType: 'Buy', openPrice: 1.1 }))
        .then([{ type: 'open', orderType: 'Sell' }]);
    });

    it('skips with PRICE_MISSING when the slave has no price', () =>
      given({ settings: { maxSlippage: 20 } })
        .when(masterOpened({ openPrice: 1.1 }))
        .thenSkips('PRICE_MISSING', /maxSlippage 20/));

    it('0 (the default) is off, and pending orders are not checked', () => {
      given({ ...at(1.5, 1.5) })
        .when(masterOpened({ openPrice: 1.1 }))
        .then([{ type: 'open' }]);
      given({ settings: { maxSlippage: 1, skipPendingOrders: false } })
        .when(masterPendingPlaced('BuyLimit', { openPrice: 1.09 }))
        .then([{ type: 'open', orderType: 'BuyLimit' }]);
    });
  });
});
