import { expect } from 'chai';
import {
  type ClosedTrade,
  type OpenPosition,
  type OrderRequest,
  type PendingOrder,
  type VenueChange,
  type VenueConnection,
  VenueError,
} from '../../../engine/venues/port.js';
import { type Clock, type OpenAccountRequest, SimulatedVenue } from '../../../engine/venues/simulated/simulatedVenue.js';
import { defaultSymbols } from '../../../engine/venues/simulated/symbols.js';
import { refusal } from '../../support/venueRefusal.js';

const TUESDAY_10 = Date.parse('2026-01-06T10:00:00.000Z');
const SATURDAY_12 = Date.parse('2026-01-10T12:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

class TestClock implements Clock {
  constructor(public time: number) {}
  now(): number {
    return this.time;
  }
}

type Quotes = Readonly<Record<string, readonly [bid: number, ask: number]>>;

/** Every symbol pinned, so the numbers below can be worked out by hand. */
const PINNED: Quotes = {
  EURUSD: [1.085, 1.0851],
  GBPUSD: [1.27, 1.27009],
  USDJPY: [150, 150.01],
  XAUUSD: [2350, 2350.25],
  US500: [5200, 5200.5],
  BTCUSD: [65_000, 65_025],
};

interface World {
  readonly venue: SimulatedVenue;
  readonly clock: TestClock;
  readonly trader: VenueConnection;
  /** Every change the trader's connection received. */
  readonly changes: VenueChange[];
  quote(symbol: string, bid: number, ask: number): void;
  /** Moves the clock and lets the venue catch up. */
  after(ms: number): void;
}

const given = async (account: Partial<OpenAccountRequest> = {}, quotes: Quotes = {}, seed = 'spec'): Promise<World> => {
  const clock = new TestClock(TUESDAY_10);
  const venue = SimulatedVenue.create({ clock, seed });
  venue.openAccount({ login: '1001', password: 'secret', balance: 10_000, leverage: 100, marginMode: 'hedging', ...account });
  for (const [symbol, [bid, ask]] of Object.entries({ ...PINNED, ...quotes })) venue.setQuote(symbol, { bid, ask });
  const trader = venue.connection({ login: '1001', password: 'secret' });
  const changes: VenueChange[] = [];
  trader.subscribe((change) => changes.push(change));
  await trader.connect();
  return {
    venue,
    clock,
    trader,
    changes,
    quote: (symbol, bid, ask) => venue.setQuote(symbol, { bid, ask }),
    after: (ms) => {
      clock.time += ms;
      venue.tick();
    },
  };
};

let ids = 0;
const place = (world: World, request: OrderRequest) => world.trader.placeOrder(request, `client-${++ids}`);
const buy = (world: World, symbol: string, volume: number, extra: Partial<OrderRequest> = {}) =>
  place(world, { symbol, orderType: 'buy', volume, ...extra } as OrderRequest);
const sell = (world: World, symbol: string, volume: number, extra: Partial<OrderRequest> = {}) =>
  place(world, { symbol, orderType: 'sell', volume, ...extra } as OrderRequest);

const openPositions = async (world: World): Promise<OpenPosition[]> => (await world.trader.positions()).filter((p): p is OpenPosition => p.kind === 'position');
const pendingOrders = async (world: World): Promise<PendingOrder[]> => (await world.trader.positions()).filter((p): p is PendingOrder => p.kind === 'order');
const closedTrades = async (world: World): Promise<ClosedTrade[]> =>
  (await world.trader.history('2026-01-01T00:00:00Z', '2026-12-31T00:00:00Z')).filter((e): e is ClosedTrade => e.kind === 'trade');
const changeTypes = (world: World): string[] => world.changes.map((c) => c.type);

describe('simulated venue', () => {
  describe('connecting', () => {
    it('connects with the password the account was opened with and reports the account', async () => {
      const world = await given();
      expect(world.trader.isConnected()).to.equal(true);
      const info = await world.trader.accountInformation();
      expect(info).to.deep.include({ login: '1001', currency: 'USD', leverage: 100, marginMode: 'hedging', balance: 10_000, equity: 10_000 });
      expect(info).to.deep.include({ margin: 0, freeMargin: 10_000, marginLevel: null, connected: true, environment: 'DEMO' });
    });

    it('refuses a wrong password with [INVALID_CREDENTIALS] and stays disconnected', async () => {
      const { venue } = await given();
      const intruder = venue.connection({ login: '1001', password: 'Secret' });
      expect(await refusal(intruder.connect())).to.equal('[INVALID_CREDENTIALS]');
      expect(intruder.isConnected()).to.equal(false);
      expect(await refusal(intruder.positions())).to.equal('[NOT_CONNECTED]');
    });

    it('refuses to open a second account under a taken login with [ACCOUNT_EXISTS]', async () => {
      const { venue } = await given();
      expect(() => venue.openAccount({ login: '1001', password: 'other', balance: 1, leverage: 30, marginMode: 'netting' }))
        .to.throw(VenueError)
        .with.property('code', '[ACCOUNT_EXISTS]');
      expect(await refusal(venue.connection({ login: '1001', password: 'other' }).connect())).to.equal('[INVALID_CREDENTIALS]');
    });

    it('refuses an unknown login with the same [INVALID_CREDENTIALS]', async () => {
      const { venue } = await given();
      expect(await refusal(venue.connection({ login: '9999', password: 'secret' }).connect())).to.equal('[INVALID_CREDENTIALS]');
    });

    it('refuses trading before connect and after disconnect with [NOT_CONNECTED]', async () => {
      const world = await given();
      const idle = world.venue.connection({ login: '1001', password: 'secret' });
      expect(await refusal(idle.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 1 }, 'x'))).to.equal('[NOT_CONNECTED]');
      await world.trader.disconnect();
      expect(await refusal(buy(world, 'EURUSD', 1))).to.equal('[NOT_CONNECTED]');
      expect(world.venue.snapshot().accounts[0]?.positions).to.deep.equal([]);
    });
  });

  describe('market orders', () => {
    it('fills a buy at the ask and a sell at the bid', async () => {
      const world = await given();
      const bought = await buy(world, 'EURUSD', 1);
      const sold = await sell(world, 'EURUSD', 1);
      expect(bought).to.deep.include({ status: 'filled', price: 1.0851, volume: 1 });
      expect(sold).to.deep.include({ status: 'filled', price: 1.085, volume: 1 });
      const [long, short] = await openPositions(world);
      expect(long).to.deep.include({ orderType: 'buy', openPrice: 1.0851, currentPrice: 1.085, profit: -10 });
      expect(short).to.deep.include({ orderType: 'sell', openPrice: 1.085, currentPrice: 1.0851, profit: -10 });
    });

    it('charges the commission per lot from the balance when volume opens', async () => {
      const world = await given();
      await buy(world, 'EURUSD', 0.07);
      await buy(world, 'XAUUSD', 1.5);
      const [eur, gold] = await openPositions(world);
      expect(eur?.commission).to.equal(-0.49);
      expect(gold?.commission).to.equal(-10.5);
      expect((await world.trader.accountInformation()).balance).to.equal(9989.01);
    });

    it('rounds the commission half away from zero in decimals: 3.50 × 0.29 lots costs 1.02, where float rounding gives 1.01', async () => {
      const clock = new TestClock(TUESDAY_10);
      const symbols = defaultSymbols.map((s) => (s.info.symbol === 'EURUSD' ? { ...s, info: { ...s.info, commissionPerLot: 3.5 } } : s));
      const venue = SimulatedVenue.create({ clock, seed: 'commission', symbols });
      venue.openAccount({ login: '1', password: 'pw', balance: 10_000, leverage: 100, marginMode: 'hedging' });
      const trader = venue.connection({ login: '1', password: 'pw' });
      await trader.connect();
      await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.29 }, 'c');
      expect((await trader.positions())[0]).to.deep.include({ commission: -1.02 });
      expect((await trader.accountInformation()).balance).to.equal(9998.98);
    });

    it('keeps the comment, magic number and client order id on the position', async () => {
      const world = await given();
      await world.trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.1, comment: 'copy of #7', magicNumber: 42 }, 'master-7');
      const [position] = await openPositions(world);
      expect(position).to.deep.include({ comment: 'copy of #7', magicNumber: 42, clientOrderId: 'master-7' });
    });

    it('refuses an unknown symbol with [SYMBOL_NOT_FOUND]', async () => {
      const world = await given();
      expect(await refusal(buy(world, 'EURUSD.pro', 1))).to.equal('[SYMBOL_NOT_FOUND]');
      expect(await refusal(world.trader.quote('XYZ'))).to.equal('[SYMBOL_NOT_FOUND]');
    });

    it('refuses forex on a Saturday with [MARKET_CLOSED] but trades bitcoin', async () => {
      const world = await given();
      world.after(SATURDAY_12 - TUESDAY_10);
      expect(await refusal(buy(world, 'EURUSD', 1))).to.equal('[MARKET_CLOSED]');
      expect(await buy(world, 'BTCUSD', 0.01)).to.deep.include({ status: 'filled', price: 65_025 });
    });

    it('refuses an order whose margin exceeds the free margin with [NOT_ENOUGH_MONEY], placing nothing', async () => {
      const world = await given({ balance: 1000 });
      // 1 lot of EURUSD at 1:100 needs 1,000 EUR = 1,085.05 USD of margin.
      expect(await refusal(buy(world, 'EURUSD', 1))).to.equal('[NOT_ENOUGH_MONEY]');
      expect(await openPositions(world)).to.deep.equal([]);
      expect((await world.trader.accountInformation()).balance).to.equal(1000);
      expect(await buy(world, 'EURUSD', 0.9)).to.deep.include({ status: 'filled' });
    });

    it('lets a hedge through without free margin, because it adds none', async () => {
      const world = await given({ balance: 1100 });
      await buy(world, 'EURUSD', 1);
      // Equity 1,083.00 against margin 1,085.05: no room for new margin, yet the opposite leg is smaller.
      expect(await refusal(buy(world, 'EURUSD', 0.01))).to.equal('[NOT_ENOUGH_MONEY]');
      expect(await sell(world, 'EURUSD', 0.5)).to.deep.include({ status: 'filled' });
    });
  });

  describe('lot validation', () => {
    it('accepts 0.07 on a 0.01 step and refuses 0.075 with [INVALID_VOLUME]', async () => {
      const world = await given();
      expect(await buy(world, 'EURUSD', 0.07)).to.deep.include({ volume: 0.07 });
      expect(await refusal(buy(world, 'EURUSD', 0.075))).to.equal('[INVALID_VOLUME]');
    });

    it('reads float noise as the volume meant: 0.1 + 0.2, 3 × 0.1, 1.15, 0.57 and 1.13 pass at their exact values', async () => {
      const world = await given({ balance: 1_000_000 });
      // In floats 0.57 % 0.01 = 0.009999999999999953 and 1.15 / 0.01 = 114.99999999999999.
      for (const volume of [0.1 + 0.2, 3 * 0.1, 1.15, 0.57, 1.13]) await buy(world, 'EURUSD', volume);
      expect((await openPositions(world)).map((p) => p.volume)).to.deep.equal([0.3, 0.3, 1.15, 0.57, 1.13]);
    });

    it('refuses volumes below the minimum, above the maximum, zero, negative or not a number', async () => {
      const world = await given({ balance: 10_000_000 });
      for (const volume of [0.005, 100.01, 0, -0.1, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(await refusal(buy(world, 'EURUSD', volume)), String(volume)).to.equal('[INVALID_VOLUME]');
      }
      expect(await buy(world, 'EURUSD', 100)).to.deep.include({ volume: 100 });
      expect(await buy(world, 'EURUSD', 0.01)).to.deep.include({ volume: 0.01 });
    });

    it("applies each symbol's own limits: US500 takes 0.3 (0.1 + 0.2) but not 0.15 or 0.05", async () => {
      const world = await given();
      expect(await buy(world, 'US500', 0.1 + 0.2)).to.deep.include({ volume: 0.3 });
      expect(await refusal(buy(world, 'US500', 0.15))).to.equal('[INVALID_VOLUME]');
      expect(await refusal(buy(world, 'US500', 0.05))).to.equal('[INVALID_VOLUME]');
    });
  });

  describe('stops level', () => {
    // EURUSD: stops level 10 points; bid 1.08500, ask 1.08510.
    it('refuses a buy stop loss closer to the bid than the stops level and accepts one exactly at it', async () => {
      const world = await given();
      expect(await refusal(buy(world, 'EURUSD', 0.1, { stopLoss: 1.08491 }))).to.equal('[INVALID_STOPS]');
      expect(await buy(world, 'EURUSD', 0.1, { stopLoss: 1.0849 })).to.deep.include({ status: 'filled' });
    });

    it('measures a buy take profit from the bid and a sell one from the ask', async () => {
      const world = await given();
      expect(await refusal(buy(world, 'EURUSD', 0.1, { takeProfit: 1.08509 }))).to.equal('[INVALID_STOPS]');
      expect(await buy(world, 'EURUSD', 0.1, { takeProfit: 1.0851 })).to.deep.include({ status: 'filled' });
      expect(await refusal(sell(world, 'EURUSD', 0.1, { takeProfit: 1.08501 }))).to.equal('[INVALID_STOPS]');
      expect(await sell(world, 'EURUSD', 0.1, { takeProfit: 1.085 })).to.deep.include({ status: 'filled' });
    });

    it('refuses stops on the wrong side', async () => {
      const world = await given();
      expect(await refusal(buy(world, 'EURUSD', 0.1, { stopLoss: 1.09 }))).to.equal('[INVALID_STOPS]');
      expect(await refusal(buy(world, 'EURUSD', 0.1, { takeProfit: 1.08 }))).to.equal('[INVALID_STOPS]');
      expect(await refusal(sell(world, 'EURUSD', 0.1, { stopLoss: 1.08 }))).to.equal('[INVALID_STOPS]');
      expect(await refusal(sell(world, 'EURUSD', 0.1, { takeProfit: 1.09 }))).to.equal('[INVALID_STOPS]');
      expect(await openPositions(world)).to.deep.equal([]);
    });

    it('refuses a stop off the tick grid', async () => {
      const world = await given();
      expect(await refusal(buy(world, 'EURUSD', 0.1, { stopLoss: 1.084005 }))).to.equal('[INVALID_STOPS]');
    });

    it('refuses a pending price on the wrong side or within the stops level with [INVALID_PRICE]', async () => {
      const world = await given();
      const pending = (orderType: 'buyLimit' | 'sellLimit' | 'buyStop' | 'sellStop', openPrice: number) =>
        place(world, { symbol: 'EURUSD', orderType, volume: 0.1, openPrice });
      expect(await refusal(pending('buyLimit', 1.0852))).to.equal('[INVALID_PRICE]');
      expect(await refusal(pending('buyLimit', 1.08501))).to.equal('[INVALID_PRICE]');
      expect(await pending('buyLimit', 1.085)).to.deep.include({ status: 'placed', openPrice: 1.085 });
      expect(await refusal(pending('sellLimit', 1.08509))).to.equal('[INVALID_PRICE]');
      expect(await pending('sellLimit', 1.0851)).to.deep.include({ status: 'placed' });
      expect(await refusal(pending('buyStop', 1.08519))).to.equal('[INVALID_PRICE]');
      expect(await pending('buyStop', 1.0852)).to.deep.include({ status: 'placed' });
      expect(await refusal(pending('sellStop', 1.08491))).to.equal('[INVALID_PRICE]');
      expect(await pending('sellStop', 1.0849)).to.deep.include({ status: 'placed' });
    });

    it('measures the stops of a pending order from its open price', async () => {
      const world = await given();
      const request = { symbol: 'EURUSD', orderType: 'buyLimit', volume: 0.1, openPrice: 1.08 } as const;
      expect(await refusal(place(world, { ...request, stopLoss: 1.07991 }))).to.equal('[INVALID_STOPS]');
      expect(await place(world, { ...request, stopLoss: 1.0799, takeProfit: 1.0801 })).to.deep.include({ status: 'placed' });
    });

    it('refuses moving a stop loss within the stops level of the market, leaving the old one', async () => {
      const world = await given();
      const { positionId } = (await buy(world, 'EURUSD', 0.1, { stopLoss: 1.08 })) as { positionId: string };
      expect(await refusal(world.trader.modifyPosition(positionId, { stopLoss: 1.08495 }))).to.equal('[INVALID_STOPS]');
      expect((await openPositions(world))[0]?.stopLoss).to.equal(1.08);
      expect(await world.trader.modifyPosition(positionId, { stopLoss: 1.0845, takeProfit: 1.09 })).to.deep.include({
        stopLoss: 1.0845,
        takeProfit: 1.09,
      });
      expect(changeTypes(world).slice(-1)).to.deep.equal(['positionModified']);
    });
  });

  describe('pending orders trigger on the right side of the spread', () => {
    const placed = async (world: World, orderType: 'buyLimit' | 'sellLimit' | 'buyStop' | 'sellStop', openPrice: number) => {
      const result = await place(world, { symbol: 'EURUSD', orderType, volume: 0.1, openPrice, stopLoss: null });
      return result.orderId;
    };

    it('fills a buy limit when the ask reaches it (not the bid), at the ask, as a position with the order id', async () => {
      const world = await given();
      const id = await placed(world, 'buyLimit', 1.083);
      world.quote('EURUSD', 1.08295, 1.08301);
      expect(await pendingOrders(world)).to.have.length(1);
      world.quote('EURUSD', 1.08289, 1.08299);
      expect(await pendingOrders(world)).to.deep.equal([]);
      const [position] = await openPositions(world);
      expect(position).to.deep.include({ id, orderType: 'buy', openPrice: 1.08299, volume: 0.1 });
      expect(changeTypes(world).slice(-3)).to.deep.equal(['orderPlaced', 'orderFilled', 'positionOpened']);
    });

    it('fills a sell limit when the bid reaches it (not the ask), at the bid', async () => {
      const world = await given();
      await placed(world, 'sellLimit', 1.087);
      world.quote('EURUSD', 1.08699, 1.08705);
      expect(await pendingOrders(world)).to.have.length(1);
      world.quote('EURUSD', 1.087, 1.08706);
      expect((await openPositions(world))[0]).to.deep.include({ orderType: 'sell', openPrice: 1.087 });
    });

    it('fills a buy stop when the ask reaches it (not the bid), at the ask', async () => {
      const world = await given();
      await placed(world, 'buyStop', 1.087);
      world.quote('EURUSD', 1.0869, 1.08699);
      expect(await pendingOrders(world)).to.have.length(1);
      world.quote('EURUSD', 1.08696, 1.08702);
      expect((await openPositions(world))[0]).to.deep.include({ orderType: 'buy', openPrice: 1.08702 });
    });

    it('fills a sell stop when the bid reaches it, at the bid', async () => {
      const world = await given();
      await placed(world, 'sellStop', 1.083);
      world.quote('EURUSD', 1.08301, 1.08307);
      expect(await pendingOrders(world)).to.have.length(1);
      world.quote('EURUSD', 1.08298, 1.08304);
      expect((await openPositions(world))[0]).to.deep.include({ orderType: 'sell', openPrice: 1.08298 });
    });

    it('carries the order stops to the position and closes it at once if the gap jumped past them', async () => {
      const world = await given();
      await place(world, { symbol: 'EURUSD', orderType: 'sellStop', volume: 0.1, openPrice: 1.083, stopLoss: 1.084, takeProfit: 1.08 });
      world.quote('EURUSD', 1.0799, 1.07996);
      const [trade] = await closedTrades(world);
      expect(trade).to.deep.include({ reason: 'takeProfit', openPrice: 1.0799, closePrice: 1.07996, profit: -0.6 });
    });

    it('expires a pending order at its expiry and not before', async () => {
      const world = await given();
      const expiry = new Date(TUESDAY_10 + HOUR).toISOString();
      const { orderId } = await place(world, { symbol: 'EURUSD', orderType: 'buyLimit', volume: 0.1, openPrice: 1.08, expiry });
      world.after(HOUR - 1000);
      expect((await pendingOrders(world)).map((o) => o.expiry)).to.deep.equal([expiry]);
      world.after(1000);
      expect(await pendingOrders(world)).to.deep.equal([]);
      expect(world.changes.at(-1)).to.deep.include({ type: 'orderCancelled', reason: 'expired', at: expiry });
      expect(world.changes.at(-1)).to.have.nested.property('order.id', orderId);
    });

    it('refuses an expiry in the past with [INVALID_EXPIRATION]', async () => {
      const world = await given();
      const request = { symbol: 'EURUSD', orderType: 'buyLimit', volume: 0.1, openPrice: 1.08, expiry: '2026-01-06T09:00:00Z' } as const;
      expect(await refusal(place(world, request))).to.equal('[INVALID_EXPIRATION]');
    });

    it('cancels instead of filling when the margin is gone at the trigger', async () => {
      const world = await given({ balance: 1000 });
      await place(world, { symbol: 'EURUSD', orderType: 'buyLimit', volume: 0.9, openPrice: 1.08 });
      await world.venue.deposit('1001', -500);
      world.quote('EURUSD', 1.0799, 1.08);
      expect(await world.trader.positions()).to.deep.equal([]);
      expect(world.changes.at(-1)).to.deep.include({ type: 'orderCancelled', reason: 'notEnoughMoney' });
    });

    it('modifies and cancels a pending order', async () => {
      const world = await given();
      const { orderId } = await place(world, { symbol: 'EURUSD', orderType: 'buyLimit', volume: 0.1, openPrice: 1.08 });
      const modified = await world.trader.modifyPosition(orderId, { openPrice: 1.081, volume: 0.2, stopLoss: 1.08 });
      expect(modified).to.deep.include({ kind: 'order', openPrice: 1.081, volume: 0.2, stopLoss: 1.08 });
      expect(await refusal(world.trader.modifyPosition(orderId, { openPrice: 1.0851 }))).to.equal('[INVALID_PRICE]');
      expect(await world.trader.cancelOrder(orderId)).to.deep.include({ id: orderId, openPrice: 1.081 });
      expect(await refusal(world.trader.cancelOrder(orderId))).to.equal('[ORDER_NOT_FOUND]');
      expect(changeTypes(world).slice(-3)).to.deep.equal(['orderPlaced', 'orderModified', 'orderCancelled']);
    });
  });

  describe('stop loss and take profit on the right side of the spread', () => {
    it('closes a buy at its stop loss when the bid touches it, at the bid', async () => {
      const world = await given();
      await buy(world, 'EURUSD', 1, { stopLoss: 1.084 });
      world.quote('EURUSD', 1.08401, 1.08407);
      expect(await openPositions(world)).to.have.length(1);
      world.quote('EURUSD', 1.084, 1.08406);
      const [trade] = await closedTrades(world);
      expect(trade).to.deep.include({ reason: 'stopLoss', closePrice: 1.084, profit: -110 });
      expect((await world.trader.accountInformation()).balance).to.equal(10_000 - 7 - 110);
    });

    it('keeps a buy open while only the ask has reached its take profit', async () => {
      const world = await given();
      await buy(world, 'EURUSD', 1, { takeProfit: 1.087 });
      world.quote('EURUSD', 1.08694, 1.087);
      expect(await openPositions(world)).to.have.length(1);
      world.quote('EURUSD', 1.087, 1.08706);
      expect((await closedTrades(world))[0]).to.deep.include({ reason: 'takeProfit', closePrice: 1.087, profit: 190 });
    });

    it('closes a sell at its stop loss when the ask touches it, though the bid is below', async () => {
      const world = await given();
      await sell(world, 'EURUSD', 1, { stopLoss: 1.086 });
      world.quote('EURUSD', 1.08593, 1.08599);
      expect(await openPositions(world)).to.have.length(1);
      world.quote('EURUSD', 1.08594, 1.086);
      expect((await closedTrades(world))[0]).to.deep.include({ reason: 'stopLoss', closePrice: 1.086, profit: -100 });
    });

    it('keeps a sell open while only the bid has reached its take profit', async () => {
      const world = await given();
      await sell(world, 'EURUSD', 1, { takeProfit: 1.083 });
      world.quote('EURUSD', 1.083, 1.08306);
      expect(await openPositions(world)).to.have.length(1);
      world.quote('EURUSD', 1.08294, 1.083);
      expect((await closedTrades(world))[0]).to.deep.include({ reason: 'takeProfit', closePrice: 1.083, profit: 200 });
      expect(world.changes.at(-1)).to.deep.include({ type: 'positionClosed' });
    });
  });

  describe('partial closes', () => {
    it('closes 0.40 of 1.00 lot with its share of profit and commission, keeping the id', async () => {
      const world = await given();
      const { positionId } = (await buy(world, 'EURUSD', 1)) as { positionId: string };
      world.quote('EURUSD', 1.0871, 1.0872);
      const part = await world.trader.closePosition(positionId, 0.4);
      expect(part).to.deep.include({ positionId, volume: 0.4, closePrice: 1.0871, profit: 80, commission: -2.8, reason: 'manual' });
      const [rest] = await openPositions(world);
      expect(rest).to.deep.include({ id: positionId, volume: 0.6, commission: -4.2, profit: 120 });
      expect((await world.trader.accountInformation()).balance).to.equal(10_073);
      world.quote('EURUSD', 1.0861, 1.0862);
      expect(await world.trader.closePosition(positionId)).to.deep.include({ volume: 0.6, profit: 60, commission: -4.2 });
      expect((await world.trader.accountInformation()).balance).to.equal(10_133);
      expect(changeTypes(world).slice(-3)).to.deep.equal(['positionOpened', 'positionPartiallyClosed', 'positionClosed']);
    });

    it('takes a lower volume in modifyPosition as a partial close of the difference', async () => {
      const world = await given();
      const { positionId } = (await sell(world, 'EURUSD', 0.5)) as { positionId: string };
      world.quote('EURUSD', 1.084, 1.0841);
      expect(await world.trader.modifyPosition(positionId, { volume: 0.2 })).to.deep.include({ id: positionId, volume: 0.2 });
      expect((await closedTrades(world))[0]).to.deep.include({ volume: 0.3, closePrice: 1.0841, profit: 27 });
    });

    it('refuses to raise a volume, to close more than is open, or to close an off-step part', async () => {
      const world = await given();
      const { positionId } = (await buy(world, 'US500', 0.5)) as { positionId: string };
      expect(await refusal(world.trader.modifyPosition(positionId, { volume: 0.6 }))).to.equal('[INVALID_VOLUME]');
      expect(await refusal(world.trader.closePosition(positionId, 0.6))).to.equal('[INVALID_VOLUME]');
      expect(await refusal(world.trader.closePosition(positionId, 0.45))).to.equal('[INVALID_VOLUME]');
      expect(await refusal(world.trader.closePosition('404'))).to.equal('[POSITION_NOT_FOUND]');
      expect((await openPositions(world))[0]?.volume).to.equal(0.5);
    });

    it('refuses to move the open price of an open position, and to close on a closed market', async () => {
      const world = await given();
      const { positionId } = (await buy(world, 'EURUSD', 0.5)) as { positionId: string };
      expect(await refusal(world.trader.modifyPosition(positionId, { openPrice: 1.08 }))).to.equal('[INVALID_PRICE]');
      world.after(SATURDAY_12 - TUESDAY_10);
      expect(await refusal(world.trader.closePosition(positionId))).to.equal('[MARKET_CLOSED]');
      expect((await openPositions(world))[0]).to.deep.include({ openPrice: 1.0851, volume: 0.5 });
    });
  });

  describe('hedging and netting', () => {
    it('hedging keeps a buy and a sell of the same symbol as two positions', async () => {
      const world = await given();
      await buy(world, 'EURUSD', 1);
      await sell(world, 'EURUSD', 0.4);
      expect((await openPositions(world)).map((p) => [p.orderType, p.volume])).to.deep.equal([
        ['buy', 1],
        ['sell', 0.4],
      ]);
      // Larger leg: 1,000 EUR × 1.08505.
      expect((await world.trader.accountInformation()).margin).to.equal(1085.05);
    });

    it('netting reduces the one position by an opposite order, realising that part', async () => {
      const world = await given({ marginMode: 'netting' });
      const { positionId } = (await buy(world, 'EURUSD', 1)) as { positionId: string };
      world.quote('EURUSD', 1.0871, 1.0872);
      expect(await sell(world, 'EURUSD', 0.4)).to.deep.include({ positionId, price: 1.0871 });
      expect((await openPositions(world)).map((p) => [p.id, p.orderType, p.volume])).to.deep.equal([[positionId, 'buy', 0.6]]);
      expect((await closedTrades(world))[0]).to.deep.include({ volume: 0.4, profit: 80 });
      expect((await world.trader.accountInformation()).balance).to.equal(10_073);
    });

    it('netting reverses the position when the opposite order is larger, charging commission on the new volume only', async () => {
      const world = await given({ marginMode: 'netting' });
      const first = await buy(world, 'EURUSD', 1);
      world.quote('EURUSD', 1.0871, 1.0872);
      const second = await sell(world, 'EURUSD', 1.5);
      const [position] = await openPositions(world);
      expect(position).to.deep.include({ id: second.orderId, orderType: 'sell', volume: 0.5, openPrice: 1.0871, commission: -3.5 });
      expect(second).to.deep.include({ positionId: second.orderId });
      expect((await closedTrades(world))[0]).to.deep.include({ positionId: first.orderId, volume: 1, profit: 200 });
      expect((await world.trader.accountInformation()).balance).to.equal(10_189.5);
      expect(changeTypes(world).slice(-3)).to.deep.equal(['positionOpened', 'positionClosed', 'positionOpened']);
    });

    it('netting adds a same-side order at the volume-weighted average price', async () => {
      const world = await given({ marginMode: 'netting' });
      await buy(world, 'EURUSD', 1);
      world.quote('EURUSD', 1.086, 1.0861);
      await buy(world, 'EURUSD', 1, { takeProfit: 1.09 });
      const [position] = await openPositions(world);
      expect(position).to.deep.include({ volume: 2, openPrice: 1.0856, commission: -14, takeProfit: 1.09, profit: 80 });
      expect(world.changes.at(-1)).to.deep.include({ type: 'positionIncreased', volume: 1, price: 1.0861 });
    });

    it('netting fills a pending order into the one position', async () => {
      const world = await given({ marginMode: 'netting' });
      const { positionId } = (await buy(world, 'EURUSD', 1)) as { positionId: string };
      await place(world, { symbol: 'EURUSD', orderType: 'sellLimit', volume: 0.4, openPrice: 1.087 });
      world.quote('EURUSD', 1.087, 1.0871);
      expect((await world.trader.positions()).map((p) => [p.id, p.orderType, p.volume])).to.deep.equal([[positionId, 'buy', 0.6]]);
      expect((await closedTrades(world))[0]).to.deep.include({ positionId, volume: 0.4, closePrice: 1.087, profit: 76 });
      expect(changeTypes(world).slice(-2)).to.deep.equal(['orderFilled', 'positionPartiallyClosed']);
    });

    it('netting flattens the symbol on an equal opposite order', async () => {
      const world = await given({ marginMode: 'netting' });
      await buy(world, 'EURUSD', 1);
      expect(await sell(world, 'EURUSD', 1)).to.deep.include({ positionId: null });
      expect(await openPositions(world)).to.deep.equal([]);
    });
  });

  describe('margin, equity and free margin, worked by hand', () => {
    it('EURUSD (forex mode): margin is lots × 100,000 / leverage in EUR at the EURUSD mid', async () => {
      const world = await given();
      await buy(world, 'EURUSD', 1);
      expect(await world.trader.accountInformation()).to.deep.include({
        balance: 9993,
        unrealizedProfit: -10,
        equity: 9983,
        margin: 1085.05,
        freeMargin: 8897.95,
        marginLevel: 920.05,
      });
      world.quote('EURUSD', 1.087, 1.0871);
      expect(await world.trader.accountInformation()).to.deep.include({
        equity: 10_183,
        margin: 1087.05,
        freeMargin: 9095.95,
        marginLevel: 936.76,
      });
    });

    it('XAUUSD (CFD leverage mode): margin is lots × 100 oz × ask / leverage', async () => {
      const world = await given();
      await buy(world, 'XAUUSD', 0.5);
      expect(await world.trader.accountInformation()).to.deep.include({
        balance: 9996.5,
        unrealizedProfit: -12.5,
        equity: 9984,
        margin: 1175.13,
        freeMargin: 8808.87,
        marginLevel: 849.61,
      });
    });

    it('USDJPY: margin in USD needs no conversion, profit in JPY is divided by the USDJPY mid', async () => {
      const world = await given();
      const { positionId } = (await sell(world, 'USDJPY', 1)) as { positionId: string };
      // −1,000 JPY / 150.005 = −6.6664...
      expect(await world.trader.accountInformation()).to.deep.include({
        unrealizedProfit: -6.67,
        equity: 9986.33,
        margin: 1000,
        freeMargin: 8986.33,
        marginLevel: 998.63,
      });
      world.quote('USDJPY', 149.5, 149.51);
      // 49,000 JPY / 149.505 = 327.748...
      expect(await world.trader.closePosition(positionId)).to.deep.include({ profit: 327.75, closePrice: 149.51 });
      expect((await world.trader.accountInformation()).balance).to.equal(10_320.75);
    });

    it('GBPUSD converts its GBP margin at the GBPUSD mid', async () => {
      const world = await given();
      await buy(world, 'GBPUSD', 0.1);
      // 100 GBP × 1.270045 = 127.0045.
      expect((await world.trader.accountInformation()).margin).to.equal(127);
    });

    it('US500 and BTCUSD (CFD mode) ignore the account leverage: 5% and 50% of the notional at the opening side', async () => {
      const world = await given({ leverage: 500 });
      await buy(world, 'US500', 1);
      // 1 × 10 × 5200.5 × 0.05
      expect((await world.trader.accountInformation()).margin).to.equal(2600.25);
      await sell(world, 'BTCUSD', 0.1);
      // + 0.1 × 1 × 65,000 (the bid, for a sell) × 0.5
      expect((await world.trader.accountInformation()).margin).to.equal(2600.25 + 3250);
    });
  });

  describe('stop-out', () => {
    it('closes the biggest loser first while the margin level is under 50%, and stops when it recovers', async () => {
      const world = await given({ balance: 1000 });
      const eur = await buy(world, 'EURUSD', 0.5);
      await buy(world, 'XAUUSD', 0.01);
      // Equity 391.18 over margin 560.03: 69.85%, above the level.
      world.quote('EURUSD', 1.073, 1.0731);
      expect(await openPositions(world)).to.have.length(2);
      expect((await world.trader.accountInformation()).marginLevel).to.equal(69.85);
      // Equity 241.18 over margin 558.53: 43.18%.
      world.quote('EURUSD', 1.07, 1.0701);
      const [trade] = await closedTrades(world);
      expect(trade).to.deep.include({ positionId: eur.orderId, reason: 'stopOut', closePrice: 1.07, profit: -755 });
      expect((await openPositions(world)).map((p) => p.symbol)).to.deep.equal(['XAUUSD']);
      expect(await world.trader.accountInformation()).to.deep.include({ balance: 241.43, equity: 241.18, margin: 23.5, marginLevel: 1026.3 });
    });

    it('stops out on a moving price path at the first second the margin level is under 50%', async () => {
      const world = await given({ balance: 300, leverage: 500 });
      world.venue.releaseQuote('EURUSD');
      await buy(world, 'EURUSD', 1);
      for (let hour = 0; hour < 72 && (await openPositions(world)).length > 0; hour++) world.after(HOUR);
      const [trade] = await closedTrades(world);
      // Released at bid 1.08500, the path quotes its own spread: the buy filled at 1.08506.
      expect(trade).to.deep.include({ reason: 'stopOut', openPrice: 1.08506 });
      // Margin: 100,000 / 500 EUR at the EURUSD mid; equity: balance after commission + profit + swap.
      const levelAt = (time: number) => {
        const quote = world.venue.quote('EURUSD', time);
        const equity = 293 + (quote.bid - 1.08506) * 100_000 + (trade?.swap ?? 0);
        return (equity / (200 * ((quote.bid + quote.ask) / 2))) * 100;
      };
      const closedAt = Date.parse(trade?.closeTime ?? '');
      expect(levelAt(closedAt)).to.be.below(50);
      expect(levelAt(closedAt - 1000)).to.be.at.least(50);
    });
  });

  describe('swaps', () => {
    it("charges one day of swap at Tuesday's 22:00 UTC rollover and three at Wednesday's", async () => {
      const world = await given();
      await buy(world, 'EURUSD', 1);
      await sell(world, 'USDJPY', 1);
      world.after(13 * HOUR);
      // EURUSD long: −7.2 points × 0.00001 × 100,000; USDJPY short: −28.7 × 0.001 × 100,000 JPY / 150.005.
      expect((await openPositions(world)).map((p) => p.swap)).to.deep.equal([-7.2, -19.13]);
      world.after(23 * HOUR);
      expect((await openPositions(world)).map((p) => p.swap)).to.deep.equal([-28.8, -76.53]);
      const [eur] = await openPositions(world);
      expect(await world.trader.closePosition(eur?.id ?? '')).to.deep.include({ swap: -28.8, profit: -10 });
      expect((await world.trader.accountInformation()).balance).to.equal(9947.2);
    });
  });

  describe('idempotent client order ids', () => {
    it('returns the first result for a second placement with the same id, placing nothing more', async () => {
      const world = await given();
      const first = await world.trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 1 }, 'slave-1:open');
      world.quote('EURUSD', 1.09, 1.0901);
      const again = await world.trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 2 }, 'slave-1:open');
      expect(again).to.deep.equal(first);
      expect((await openPositions(world)).map((p) => p.volume)).to.deep.equal([1]);
      await world.trader.closePosition(first.orderId);
      expect(await world.trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 1 }, 'slave-1:open')).to.deep.equal(first);
      expect(await openPositions(world)).to.deep.equal([]);
    });

    it('does not remember a refused placement, so a retry can succeed', async () => {
      const world = await given({ balance: 500 });
      const request = { symbol: 'EURUSD', orderType: 'buy', volume: 1 } as const;
      expect(await refusal(world.trader.placeOrder(request, 'retry-me'))).to.equal('[NOT_ENOUGH_MONEY]');
      world.venue.deposit('1001', 1000, 'top up');
      expect(await world.trader.placeOrder(request, 'retry-me')).to.deep.include({ status: 'filled', volume: 1 });
    });

    it('remembers placements across snapshot and restore', async () => {
      const world = await given();
      const first = await world.trader.placeOrder({ symbol: 'EURUSD', orderType: 'buyLimit', volume: 1, openPrice: 1.08 }, 'pending-1');
      const restored = SimulatedVenue.restore(JSON.parse(JSON.stringify(world.venue.snapshot())), { clock: world.clock });
      const trader = restored.connection({ login: '1001', password: 'secret' });
      await trader.connect();
      expect(await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buyLimit', volume: 1, openPrice: 1.08 }, 'pending-1')).to.deep.equal(first);
      expect(await trader.positions()).to.have.length(1);
    });
  });

  describe("trades placed in the broker's terminal (outside the service)", () => {
    it('opens a position without a client order id, reported to the sessions like any change, and closable through a connection', async () => {
      const world = await given();
      const placed = world.venue.terminalTrade('1001', { symbol: 'EURUSD', orderType: 'sell', volume: 0.5 });
      expect(placed).to.deep.include({ status: 'filled', volume: 0.5, price: 1.085 });
      expect(placed).not.to.have.property('clientOrderId');
      const [position] = await openPositions(world);
      expect(position).to.deep.include({ orderType: 'sell', volume: 0.5, clientOrderId: null, comment: null });
      const opened = world.changes.find((c) => c.type === 'positionOpened');
      expect(opened).to.deep.include({ type: 'positionOpened' });
      expect(opened?.type === 'positionOpened' ? opened.position.clientOrderId : 'missing').to.equal(null);
      await world.trader.closePosition(position!.id, undefined, 'close-outside');
      expect(await openPositions(world)).to.deep.equal([]);
    });

    it('places a pending order too, and refuses what a connection would be refused (unknown account, no money, market closed)', async () => {
      const world = await given({ balance: 500 });
      expect(world.venue.terminalTrade('1001', { symbol: 'EURUSD', orderType: 'buyLimit', volume: 1, openPrice: 1.08 })).to.deep.include({ status: 'placed' });
      const refused = (work: () => unknown) => {
        try {
          work();
          return 'placed';
        } catch (error) {
          return error instanceof VenueError ? error.code : String(error);
        }
      };
      expect(refused(() => world.venue.terminalTrade('1001', { symbol: 'EURUSD', orderType: 'buy', volume: 1 }))).to.equal('[NOT_ENOUGH_MONEY]');
      expect(refused(() => world.venue.terminalTrade('nobody', { symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }))).to.equal('[ACCOUNT_NOT_FOUND]');
      world.clock.time = SATURDAY_12;
      expect(refused(() => world.venue.terminalTrade('1001', { symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }))).to.equal('[MARKET_CLOSED]');
    });
  });

  describe('change feed', () => {
    it('tells every connection of the account what happened, whoever caused it, in sequence', async () => {
      const world = await given();
      const monitor = world.venue.connection({ login: '1001', password: 'secret' });
      const seen: VenueChange[] = [];
      monitor.subscribe((change) => seen.push(change));
      await monitor.connect();
      const { positionId } = (await buy(world, 'EURUSD', 1, { stopLoss: 1.08 })) as { positionId: string };
      await world.trader.modifyPosition(positionId, { takeProfit: 1.09 });
      await world.trader.closePosition(positionId, 0.5);
      world.quote('EURUSD', 1.08, 1.0801);
      expect(seen.map((c) => c.type)).to.deep.equal(['positionOpened', 'positionModified', 'positionPartiallyClosed', 'positionClosed']);
      expect(seen.map((c) => c.sequence)).to.deep.equal([2, 3, 4, 5]);
      expect(seen.at(-1)).to.have.nested.property('trade.reason', 'stopLoss');
      expect(seen).to.deep.equal(world.changes.slice(-4));
    });

    it('lets a listener trade from inside its callback, as a copy engine does', async () => {
      const world = await given();
      world.venue.openAccount({ login: '2002', password: 'slave', balance: 10_000, leverage: 100, marginMode: 'hedging' });
      const slave = world.venue.connection({ login: '2002', password: 'slave' });
      await slave.connect();
      world.trader.subscribe((change) => {
        if (change.type === 'positionOpened') {
          const { symbol, orderType, volume, id } = change.position;
          void slave.placeOrder({ symbol, orderType, volume: volume * 2 }, `copy-${id}`);
        }
      });
      await buy(world, 'EURUSD', 0.5);
      const slavePositions = await slave.positions();
      expect(slavePositions.map((p) => [p.symbol, p.orderType, p.volume])).to.deep.equal([['EURUSD', 'buy', 1]]);
    });

    it('stops delivering after unsubscribe and while disconnected', async () => {
      const world = await given();
      const monitor = world.venue.connection({ login: '1001', password: 'secret' });
      const seen: string[] = [];
      const unsubscribe = monitor.subscribe((change) => seen.push(change.type));
      await monitor.connect();
      await buy(world, 'EURUSD', 0.1);
      await monitor.disconnect();
      await buy(world, 'EURUSD', 0.1);
      await monitor.connect();
      unsubscribe();
      await buy(world, 'EURUSD', 0.1);
      expect(seen).to.deep.equal(['positionOpened']);
    });
  });

  describe('state', () => {
    /** The same script of trades and ticks, on a venue whose prices move on their own. */
    const script = async (venue: SimulatedVenue, clock: TestClock, trader: VenueConnection, from: number, to: number) => {
      for (let step = from; step < to; step++) {
        clock.time = TUESDAY_10 + step * 7 * MINUTE;
        const eur = await trader.quote('EURUSD');
        const gold = await trader.quote('XAUUSD');
        const stopLoss = Number((eur.bid - 0.0008).toFixed(5));
        const takeProfit = Number((eur.bid + 0.0008).toFixed(5));
        if (step % 3 === 0) await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.1, stopLoss, takeProfit }, `m-${step}`);
        const openPrice = Number((gold.bid + 1 + (step % 5)).toFixed(2));
        const expiry = new Date(clock.time + 2 * HOUR).toISOString();
        if (step % 3 === 1) await trader.placeOrder({ symbol: 'XAUUSD', orderType: 'sellLimit', volume: 0.05, openPrice, expiry }, `p-${step}`);
        if (step % 3 === 2) venue.tick();
      }
    };

    const movingWorld = async () => {
      const clock = new TestClock(TUESDAY_10);
      const venue = SimulatedVenue.create({ clock, seed: 'restore' });
      venue.openAccount({ login: '7', password: 'pw', balance: 50_000, leverage: 100, marginMode: 'hedging' });
      const trader = venue.connection({ login: '7', password: 'pw' });
      await trader.connect();
      return { clock, venue, trader };
    };

    it('a venue restored from a JSON snapshot continues identically: prices, positions, tickets and changes', async () => {
      const original = await movingWorld();
      await script(original.venue, original.clock, original.trader, 0, 30);
      const saved = JSON.parse(JSON.stringify(original.venue.snapshot()));
      const clock = new TestClock(original.clock.time);
      const restored = SimulatedVenue.restore(saved, { clock });
      const trader = restored.connection({ login: '7', password: 'pw' });
      await trader.connect();
      const changesOf = (connection: VenueConnection) => {
        const changes: VenueChange[] = [];
        connection.subscribe((change) => changes.push(change));
        return changes;
      };
      const before = changesOf(original.trader);
      const after = changesOf(trader);
      await script(original.venue, original.clock, original.trader, 30, 60);
      await script(restored, clock, trader, 30, 60);
      expect(before.length).to.be.above(10);
      expect(after).to.deep.equal(before);
      expect(restored.snapshot()).to.deep.equal(original.venue.snapshot());
      expect(restored.quote('GBPUSD', clock.time + HOUR)).to.deep.equal(original.venue.quote('GBPUSD', clock.time + HOUR));
    });

    it('reaches the same state whether ticked every second, every ten minutes or once', async () => {
      const runs = await Promise.all(
        [1000, 10 * MINUTE, 6 * HOUR].map(async (every) => {
          const world = await movingWorld();
          await script(world.venue, world.clock, world.trader, 0, 3);
          const start = world.clock.time;
          for (let t = start + every; t <= start + 6 * HOUR; t += every) world.venue.advanceTo(t);
          world.clock.time = start + 6 * HOUR;
          return world.venue.snapshot();
        }),
      );
      expect(runs[0]?.accounts[0]?.history.length).to.be.above(1);
      expect(runs[1]).to.deep.equal(runs[0]);
      expect(runs[2]).to.deep.equal(runs[0]);
    });

    it('exports only JSON data: the snapshot survives a JSON round trip unchanged', async () => {
      const world = await given();
      await buy(world, 'EURUSD', 1, { stopLoss: 1.08, comment: 'x' });
      await place(world, { symbol: 'XAUUSD', orderType: 'buyStop', volume: 0.1, openPrice: 2360, expiry: '2026-01-07T00:00:00Z' });
      const snapshot = world.venue.snapshot();
      expect(JSON.parse(JSON.stringify(snapshot))).to.deep.equal(snapshot);
      expect(JSON.stringify(snapshot)).not.to.contain('secret');
    });
  });
});

describe('simulated venue: client request ids and the save journal', () => {
  const opened = async (world: World, volume = 1): Promise<string> => {
    const result = await buy(world, 'EURUSD', volume);
    if (result.status !== 'filled' || result.positionId === null) return expect.fail('expected a filled buy') as never;
    return result.positionId;
  };
  const pendingLimit = async (world: World): Promise<string> =>
    (await place(world, { symbol: 'EURUSD', orderType: 'buyLimit', volume: 0.5, openPrice: 1.08 })).orderId;
  const accountOf = (world: World) => world.venue.snapshot().accounts.find((a) => a.login === '1001');
  const recorded = (world: World) => (accountOf(world)?.requests ?? []).map((r) => [r.kind, r.id]);

  describe('repeated requests', () => {
    it('closes once when a close is repeated with its client request id, and answers the same trade', async () => {
      const world = await given();
      const positionId = await opened(world);
      world.quote('EURUSD', 1.086, 1.0861);
      const first = await world.trader.closePosition(positionId, undefined, 'slave-1:close');
      world.quote('EURUSD', 1.09, 1.0901);
      const again = await world.trader.closePosition(positionId, undefined, 'slave-1:close');
      expect(first).to.deep.include({ positionId, volume: 1, closePrice: 1.086, profit: 90 });
      expect(again).to.deep.equal(first);
      expect(await closedTrades(world)).to.deep.equal([first]);
      // 10,000 − 7 commission + 90 profit, once.
      expect((await world.trader.accountInformation()).balance).to.equal(10_083);
      expect(changeTypes(world).filter((t) => t === 'positionClosed')).to.have.length(1);
    });

    it('closes a partial close repeated with its id only once, leaving the rest open', async () => {
      const world = await given();
      const positionId = await opened(world);
      const first = await world.trader.closePosition(positionId, 0.4, 'slave-1:partial-1');
      const again = await world.trader.closePosition(positionId, 0.4, 'slave-1:partial-1');
      expect(first).to.deep.include({ positionId, volume: 0.4 });
      expect(again).to.deep.equal(first);
      expect((await openPositions(world)).map((p) => [p.id, p.volume])).to.deep.equal([[positionId, 0.6]]);
      expect(await closedTrades(world)).to.have.length(1);
      expect(changeTypes(world).filter((t) => t === 'positionPartiallyClosed')).to.have.length(1);
    });

    it('modifies once when a modification is repeated with its id, even if the repeat asks for other stops', async () => {
      const world = await given();
      const positionId = await opened(world);
      const first = await world.trader.modifyPosition(positionId, { stopLoss: 1.08 }, 'slave-1:modify-1');
      const again = await world.trader.modifyPosition(positionId, { stopLoss: 1.07, takeProfit: 1.1 }, 'slave-1:modify-1');
      expect(first).to.deep.include({ id: positionId, stopLoss: 1.08, takeProfit: null });
      expect(again).to.deep.equal(first);
      expect((await openPositions(world))[0]).to.deep.include({ stopLoss: 1.08, takeProfit: null });
      expect(changeTypes(world).filter((t) => t === 'positionModified')).to.have.length(1);
    });

    it('keeps a partial close made by lowering the volume in modify to one close when repeated', async () => {
      const world = await given();
      const positionId = await opened(world);
      const first = await world.trader.modifyPosition(positionId, { volume: 0.7 }, 'slave-1:shrink');
      world.quote('EURUSD', 1.086, 1.0861);
      const again = await world.trader.modifyPosition(positionId, { volume: 0.4 }, 'slave-1:shrink');
      expect(first).to.deep.include({ volume: 0.7 });
      expect(again).to.deep.equal(first);
      expect((await closedTrades(world)).map((t) => t.volume)).to.deep.equal([0.3]);
      expect((await openPositions(world))[0]?.volume).to.equal(0.7);
    });

    it('cancels once when a cancel is repeated with its id, and answers the same order', async () => {
      const world = await given();
      const orderId = await pendingLimit(world);
      const first = await world.trader.cancelOrder(orderId, 'slave-1:cancel');
      const again = await world.trader.cancelOrder(orderId, 'slave-1:cancel');
      expect(first).to.deep.include({ kind: 'order', id: orderId, orderType: 'buyLimit', openPrice: 1.08 });
      expect(again).to.deep.equal(first);
      expect(await pendingOrders(world)).to.deep.equal([]);
      expect(changeTypes(world).filter((t) => t === 'orderCancelled')).to.have.length(1);
    });

    it('simply runs a modify, close or cancel without an id each time, and remembers none of them', async () => {
      const world = await given();
      const positionId = await opened(world);
      const orderId = await pendingLimit(world);
      await world.trader.modifyPosition(positionId, { stopLoss: 1.08 });
      expect(await world.trader.modifyPosition(positionId, { stopLoss: 1.07 })).to.deep.include({ stopLoss: 1.07 });
      await world.trader.closePosition(positionId, 0.5);
      expect(await world.trader.closePosition(positionId, 0.5)).to.deep.include({ volume: 0.5 });
      expect(await refusal(world.trader.closePosition(positionId))).to.equal('[POSITION_NOT_FOUND]');
      await world.trader.cancelOrder(orderId);
      expect(await refusal(world.trader.cancelOrder(orderId))).to.equal('[ORDER_NOT_FOUND]');
      expect((await closedTrades(world)).map((t) => t.volume)).to.deep.equal([0.5, 0.5]);
      expect(recorded(world).map(([kind]) => kind)).to.deep.equal(['place', 'place']);
    });

    it('refuses an id already used for another kind of request with [INVALID_REQUEST], changing nothing', async () => {
      const world = await given();
      const result = await world.trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 1 }, 'slave-1:x');
      const orderId = await pendingLimit(world);
      await world.trader.modifyPosition(result.orderId, { stopLoss: 1.08 }, 'slave-1:y');
      expect(await refusal(world.trader.closePosition(result.orderId, undefined, 'slave-1:x'))).to.equal('[INVALID_REQUEST]');
      expect(await refusal(world.trader.cancelOrder(orderId, 'slave-1:y'))).to.equal('[INVALID_REQUEST]');
      expect(await refusal(world.trader.modifyPosition(result.orderId, { takeProfit: 1.09 }, 'slave-1:x'))).to.equal('[INVALID_REQUEST]');
      expect((await world.trader.positions()).map((p) => [p.kind, p.id, p.stopLoss, p.takeProfit])).to.deep.equal([
        ['position', result.orderId, 1.08, null],
        ['order', orderId, null, null],
      ]);
      expect(await closedTrades(world)).to.deep.equal([]);
    });

    it('refuses an empty client request id with [INVALID_REQUEST]', async () => {
      const world = await given();
      const positionId = await opened(world);
      expect(await refusal(world.trader.closePosition(positionId, undefined, ''))).to.equal('[INVALID_REQUEST]');
      expect(await openPositions(world)).to.have.length(1);
    });

    it('keeps ids per account: another account may use the same id for its own request', async () => {
      const world = await given();
      world.venue.openAccount({ login: '2002', password: 'other', balance: 10_000, leverage: 100, marginMode: 'hedging' });
      const other = world.venue.connection({ login: '2002', password: 'other' });
      await other.connect();
      const mine = await opened(world);
      const theirs = await other.placeOrder({ symbol: 'EURUSD', orderType: 'sell', volume: 0.2 }, 'shared-open');
      const myTrade = await world.trader.closePosition(mine, undefined, 'shared-close');
      const theirTrade = await other.closePosition(theirs.orderId, undefined, 'shared-close');
      expect(myTrade).to.deep.include({ positionId: mine, orderType: 'buy', volume: 1 });
      expect(theirTrade).to.deep.include({ positionId: theirs.orderId, orderType: 'sell', volume: 0.2 });
      expect(await other.positions()).to.deep.equal([]);
    });

    it('does not remember a refused request, so a later one with the same id can succeed', async () => {
      const world = await given();
      const positionId = await opened(world);
      const orderId = await pendingLimit(world);
      expect(await refusal(world.trader.closePosition('999', undefined, 'retry-close'))).to.equal('[POSITION_NOT_FOUND]');
      expect(await refusal(world.trader.closePosition(positionId, 1.5, 'retry-partial'))).to.equal('[INVALID_VOLUME]');
      expect(await refusal(world.trader.modifyPosition(positionId, { stopLoss: 1.08495 }, 'retry-modify'))).to.equal('[INVALID_STOPS]');
      expect(await refusal(world.trader.cancelOrder('999', 'retry-cancel'))).to.equal('[ORDER_NOT_FOUND]');
      expect(recorded(world).map(([kind]) => kind)).to.deep.equal(['place', 'place']);
      expect(await world.trader.modifyPosition(positionId, { stopLoss: 1.08 }, 'retry-modify')).to.deep.include({ stopLoss: 1.08 });
      expect(await world.trader.closePosition(positionId, 0.5, 'retry-partial')).to.deep.include({ volume: 0.5 });
      expect(await world.trader.closePosition(positionId, undefined, 'retry-close')).to.deep.include({ positionId, volume: 0.5 });
      expect(await world.trader.cancelOrder(orderId, 'retry-cancel')).to.deep.include({ id: orderId });
      expect(await world.trader.positions()).to.deep.equal([]);
    });
  });

  describe('the save journal', () => {
    /** A venue with two accounts, everything so far marked saved. */
    const savedWorld = async () => {
      const world = await given();
      world.venue.openAccount({ login: '2002', password: 'other', balance: 5_000, leverage: 100, marginMode: 'netting' });
      world.venue.markSaved(world.venue.journal());
      return world;
    };

    it('holds every account of a new venue, with its whole history', async () => {
      const world = await given();
      const journal = world.venue.journal();
      expect(journal.accounts.map((a) => [a.account.login, a.historyFrom, a.newHistory.length, a.requestsFrom, a.newRequests.length])).to.deep.equal([
        ['1001', 0, 1, 0, 0],
      ]);
      expect(journal.accounts[0]?.newHistory[0]).to.deep.include({ kind: 'balance', amount: 10_000, comment: 'initial deposit' });
    });

    it('lists only the changed accounts, with their state, their new history entries and their new requests', async () => {
      const world = await savedWorld();
      const { orderId: positionId } = await world.trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 1 }, 'j-open');
      const partial = await world.trader.closePosition(positionId, 0.4, 'j-partial');
      const journal = world.venue.journal();
      const snapshot = world.venue.snapshot();
      expect(journal.accounts).to.have.length(1);
      const [entry] = journal.accounts;
      const { history: _history, requests, ...account } = snapshot.accounts.find((a) => a.login === '1001')!;
      expect(entry?.account).to.deep.equal(account);
      expect(entry?.account.positions.map((p) => p.volume)).to.deep.equal([0.6]);
      expect(entry).to.deep.include({ historyFrom: 1, newHistory: [partial], requestsFrom: 0 });
      expect(entry?.newRequests).to.deep.equal(requests);
      expect(entry?.newRequests.map((r) => [r.kind, r.id])).to.deep.equal([
        ['place', 'j-open'],
        ['close', 'j-partial'],
      ]);
      expect(journal).to.deep.include({ processedStep: snapshot.processedStep, nextTicket: snapshot.nextTicket, prices: snapshot.prices });
    });

    it('answers the same journal until markSaved, and nothing new right after it', async () => {
      const world = await savedWorld();
      await opened(world);
      world.venue.deposit('2002', 250, 'top up');
      const first = world.venue.journal();
      expect(first.accounts.map((a) => a.account.login)).to.deep.equal(['1001', '2002']);
      expect(world.venue.journal()).to.deep.equal(first);
      world.venue.markSaved(first);
      expect(world.venue.journal().accounts).to.deep.equal([]);
    });

    it('after markSaved, shows a further change with only its own new entries', async () => {
      const world = await savedWorld();
      const positionId = await opened(world);
      await world.trader.closePosition(positionId, 0.4, 'j-partial');
      world.venue.markSaved(world.venue.journal());
      const rest = await world.trader.closePosition(positionId, undefined, 'j-rest');
      const [entry, ...others] = world.venue.journal().accounts;
      expect(others).to.deep.equal([]);
      expect(entry).to.deep.include({ historyFrom: 2, newHistory: [rest], requestsFrom: 2 });
      expect(entry?.newRequests).to.deep.equal([{ kind: 'close', id: 'j-rest', result: rest }]);
      expect(entry?.account.positions).to.deep.equal([]);
    });

    it('keeps changes made between journal() and markSaved pending, history, requests and state alike', async () => {
      const world = await savedWorld();
      const positionId = await opened(world);
      const taken = world.venue.journal();
      world.venue.deposit('1001', 100, 'during the save');
      const trade = await world.trader.closePosition(positionId, undefined, 'j-during');
      world.venue.markSaved(taken);
      const [entry, ...others] = world.venue.journal().accounts;
      expect(others).to.deep.equal([]);
      expect(entry?.historyFrom).to.equal(1);
      expect(entry?.newHistory.map((h) => h.kind)).to.deep.equal(['balance', 'trade']);
      expect(entry?.newHistory[1]).to.deep.equal(trade);
      expect(entry).to.deep.include({ requestsFrom: 1 });
      expect(entry?.newRequests.map((r) => r.id)).to.deep.equal(['j-during']);
      expect(entry?.account).to.deep.include({ balance: accountOf(world)?.balance, positions: [] });
    });

    it('keeps a change that adds no history or request pending when it came after journal()', async () => {
      const world = await savedWorld();
      const positionId = await opened(world);
      const taken = world.venue.journal();
      await world.trader.modifyPosition(positionId, { stopLoss: 1.08 });
      world.venue.markSaved(taken);
      const [entry, ...others] = world.venue.journal().accounts;
      expect(others).to.deep.equal([]);
      expect(entry).to.deep.include({ newHistory: [], newRequests: [] });
      expect(entry?.account.positions.map((p) => p.stopLoss)).to.deep.equal([1.08]);
    });

    it('lists only what changed among many saved accounts, new accounts in the order they were opened, as the snapshot has them', async () => {
      const world = await savedWorld();
      for (let i = 0; i < 50; i++) world.venue.openAccount({ login: `many-${i}`, password: 'pw', balance: 1_000, leverage: 100, marginMode: 'hedging' });
      world.venue.markSaved(world.venue.journal());
      const positionId = await opened(world);
      world.venue.openAccount({ login: 'late-b', password: 'pw', balance: 1_000, leverage: 100, marginMode: 'hedging' });
      world.venue.deposit('many-7', 50, 'top up');
      world.venue.openAccount({ login: 'late-a', password: 'pw', balance: 1_000, leverage: 100, marginMode: 'hedging' });
      const journal = world.venue.journal();
      // sim_accounts numbers the new rows in this order: a restored venue walks its accounts as they were opened.
      expect(journal.accounts.map((a) => a.account.login)).to.deep.equal(['1001', 'late-b', 'many-7', 'late-a']);
      const snapshot = world.venue.snapshot();
      for (const entry of journal.accounts) {
        const { history, requests, ...account } = snapshot.accounts.find((a) => a.login === entry.account.login)!;
        expect(entry.account).to.deep.equal(account);
        expect([...history.slice(0, entry.historyFrom), ...entry.newHistory]).to.deep.equal(history);
        expect([...requests.slice(0, entry.requestsFrom), ...entry.newRequests]).to.deep.equal(requests);
      }
      world.venue.markSaved(journal);
      expect(world.venue.journal().accounts).to.deep.equal([]);
      await world.trader.closePosition(positionId, undefined, 'many-close');
      expect(world.venue.journal().accounts.map((a) => [a.account.login, a.historyFrom, a.requestsFrom])).to.deep.equal([['1001', 1, 1]]);
    });

    it('does not bring changes back when an older journal is marked saved after a newer one', async () => {
      const world = await savedWorld();
      await opened(world);
      const older = world.venue.journal();
      await opened(world);
      const newer = world.venue.journal();
      world.venue.markSaved(newer);
      world.venue.markSaved(older);
      expect(world.venue.journal().accounts).to.deep.equal([]);
    });

    it('lists an account whose swap the clock charged, though no one asked anything', async () => {
      const world = await savedWorld();
      await opened(world);
      world.venue.markSaved(world.venue.journal());
      world.after(13 * HOUR);
      const [entry] = world.venue.journal().accounts;
      expect(entry?.account.login).to.equal('1001');
      expect(entry?.account.positions.map((p) => p.swap)).to.deep.equal([-7.2]);
      expect(entry).to.deep.include({ newHistory: [], newRequests: [] });
    });
  });
});
