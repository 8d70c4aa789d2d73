import { expect } from 'chai';
import { slaveOrderId } from '../../../domain/copy/orderIds.js';
import { MAX_SPLIT_PARTS, partialCloseOfParts, splitVolume } from '../../../domain/copy/split.js';
import {
  COPIER_ID,
  EVENT_ID,
  given,
  masterClosed,
  masterModified,
  masterOpened,
  masterPartiallyClosed,
  masterPendingFilled,
  masterPendingPlaced,
  slaveCopy,
  symbolSpec,
} from './given.js';

// A symbol whose broker takes at most 10 lots an order.
const spec = symbolSpec({ maxLot: 10, minLot: 0.1, lotStep: 0.01 });
const split = { settings: { forcePositionLotSize: true }, slaveSymbols: [spec] };
const part = (n: number, volume: number, kind: 'position' | 'pendingOrder' = 'position') =>
  slaveCopy({ slavePositionId: `s-${n}`, volume, kind, ...(n === 0 ? {} : { part: n }), ...(kind === 'pendingOrder' ? { orderType: 'BuyLimit' } : {}) });
const threeParts = { ...split, slave: { copies: [part(0, 10), part(1, 10), part(2, 5.5)] } };
const id = (action: 'open' | 'modify' | 'partialClose' | 'close' | 'cancel', n: number) => slaveOrderId(EVENT_ID, COPIER_ID, action, n);

describe('forcePositionLotSize: a lot above the broker maximum as several orders', () => {
  describe('splitVolume', () => {
    it('leaves a lot within the maximum as one order', () => {
      expect(splitVolume(10, spec)).to.deep.equal([10]);
      expect(splitVolume(0.5, spec)).to.deep.equal([0.5]);
    });

    it('places full orders of the maximum and one of the rest', () => expect(splitVolume(25.5, spec)).to.deep.equal([10, 10, 5.5]));

    it('gives a rest below the minimum what it lacks from the order before it: every order within the limits, the sum unchanged', () =>
      expect(splitVolume(20.05, spec)).to.deep.equal([10, 9.95, 0.1]));

    it('places orders of the last whole step below a maximum off the step', () =>
      expect(splitVolume(10, symbolSpec({ maxLot: 4.005, minLot: 0.01, lotStep: 0.01 }))).to.deep.equal([4, 4, 2]));

    it('places at most MAX_SPLIT_PARTS orders', () => expect(splitVolume(10_000, spec)).to.have.length(MAX_SPLIT_PARTS));
  });

  describe('partialCloseOfParts', () => {
    const parts = [part(0, 10), part(1, 10), part(2, 5.5)];
    it('takes the volume from the last part back: whole parts first, then a share of the next', () => {
      const closes = partialCloseOfParts(parts, 12, spec);
      expect(closes.map((c) => [c.copy.slavePositionId, c.kind, 'volume' in c ? c.volume : null])).to.deep.equal([
        ['s-2', 'all', null],
        ['s-1', 'partial', 6.5],
      ]);
    });

    it('closes a part whole rather than leave less than the minimum open', () =>
      expect(partialCloseOfParts(parts, 15.45, spec).map((c) => [c.copy.slavePositionId, c.kind])).to.deep.equal([
        ['s-2', 'all'],
        ['s-1', 'all'],
      ]));

    it('closes nothing of a part for a share below the minimum', () => expect(partialCloseOfParts(parts, 0.05, spec)).to.deep.equal([]));
  });

  describe('the copy decision', () => {
    it('opens 25.5 lots on a 10-lot maximum as three orders with client ids of their own; the first keeps the unsplit id', () => {
      const actions = given(split)
        .when(masterOpened({ volume: 25.5 }))
        .then([
          { type: 'open', volume: 10, clientOrderId: slaveOrderId(EVENT_ID, COPIER_ID, 'open') },
          { type: 'open', volume: 10, part: 1, clientOrderId: id('open', 1) },
          { type: 'open', volume: 5.5, part: 2, clientOrderId: id('open', 2) },
        ]);
      expect(actions[0]).not.to.have.property('part');
      expect(new Set(actions.map((a) => (a.type === 'open' ? a.clientOrderId : null))).size).to.equal(3);
      // The same master event decided again gives the same orders: a replay places nothing twice.
      expect(given(split).when(masterOpened({ volume: 25.5 })).actions).to.deep.equal(actions);
    });

    it('caps the lot at the maximum without forcePositionLotSize', () =>
      given({ slaveSymbols: [spec] })
        .when(masterOpened({ volume: 25.5 }))
        .then([{ type: 'open', volume: 10 }]));

    it('counts the whole lot against maximumLot', () =>
      given({ ...split, settings: { forcePositionLotSize: true, maximumLot: 20 } })
        .when(masterOpened({ volume: 25.5 }))
        .thenSkips('MAXIMUM_LOT_REACHED'));

    it('splits a pending order too, each part at the trigger price', () =>
      given({ ...split, settings: { forcePositionLotSize: true, skipPendingOrders: false } })
        .when(masterPendingPlaced('BuyLimit', { volume: 12, openPrice: 1.08 }))
        .then([
          { type: 'open', orderType: 'BuyLimit', volume: 10, openPrice: 1.08 },
          { type: 'open', orderType: 'BuyLimit', volume: 2, openPrice: 1.08, part: 1 },
        ]));

    it('does not copy an open again when any part copies it', () =>
      given(threeParts)
        .when(masterOpened({ volume: 25.5 }))
        .thenSkips('ALREADY_COPIED', /#s-0, #s-1, #s-2 already copies it/));

    it('closes every part when the master closes', () =>
      given(threeParts)
        .when(masterClosed())
        .then([
          { type: 'close', slavePositionId: 's-0', volume: 10, clientOrderId: slaveOrderId(EVENT_ID, COPIER_ID, 'close') },
          { type: 'close', slavePositionId: 's-1', volume: 10, part: 1, clientOrderId: id('close', 1) },
          { type: 'close', slavePositionId: 's-2', volume: 5.5, part: 2, clientOrderId: id('close', 2) },
        ]));

    it('moves the stops of every part', () =>
      given(threeParts)
        .when(masterModified(1.09, 1.12))
        .then([0, 1, 2].map((n) => ({ type: 'modify', slavePositionId: `s-${n}`, stopLoss: 1.09, takeProfit: 1.12, clientOrderId: id('modify', n) }))));

    it('closes the master share of the sum of the parts from the last part back (half of 25.5 is 12.75)', () =>
      given(threeParts)
        .when(masterPartiallyClosed(1, 1))
        .then([
          { type: 'close', slavePositionId: 's-2', volume: 5.5, clientOrderId: id('close', 2) },
          { type: 'partialClose', slavePositionId: 's-1', volume: 7.25, remainingVolume: 2.75, part: 1, clientOrderId: id('partialClose', 1) },
        ]));

    it('closes every part when the master closes all but nothing', () =>
      given(threeParts)
        .when(masterPartiallyClosed(1, 0))
        .then([{ type: 'close' }, { type: 'close' }, { type: 'close' }]));

    it('replaces each part still pending by a market open of its volume when the master order fills; a filled part stays', () =>
      given({ ...split, slave: { copies: [part(0, 10), part(1, 2, 'pendingOrder')] } })
        .when(masterPendingFilled({ volume: 12 }))
        .then([
          { type: 'cancel', slavePositionId: 's-1', part: 1, clientOrderId: id('cancel', 1) },
          { type: 'open', volume: 2, part: 1, replacesPendingOrderId: 's-1', clientOrderId: id('open', 1) },
        ]));
  });
});
