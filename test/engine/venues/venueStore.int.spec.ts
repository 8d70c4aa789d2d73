import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import type { ClosedTrade, PendingOrder, PlaceOrderResult, VenueConnection, VenuePosition } from '../../../engine/venues/port.js';
import { type Clock, SimulatedVenue } from '../../../engine/venues/simulated/simulatedVenue.js';
import { CLOCK_ONLY_SAVE_STEPS, SimulatedVenueStore } from '../../../engine/venues/simulated/venueStore.js';
import { createReadModelDb } from '../../../projections/database.js';
import type { ReadModels } from '../../../projections/schema.js';
import { freshDatabase } from '../../support/postgres.js';

const TUESDAY_10 = Date.parse('2026-01-06T10:00:00.000Z');
const HOUR = 3_600_000;

class TestClock implements Clock {
  constructor(public time: number) {}
  now(): number {
    return this.time;
  }
}

/** Writes what changed since the last save, as the venue host does. */
const saveChanges = async (store: SimulatedVenueStore, venue: SimulatedVenue): Promise<void> => {
  const journal = venue.journal();
  await store.save(venue.name, venue.catalogue(), journal);
  venue.markSaved(journal);
};

const connected = async (venue: SimulatedVenue, login: string, password: string): Promise<VenueConnection> => {
  const connection = venue.connection({ login, password });
  await connection.connect();
  return connection;
};

interface Traded {
  readonly venue: SimulatedVenue;
  readonly clock: TestClock;
  readonly openEur: PlaceOrderResult;
  readonly pending: PlaceOrderResult;
  readonly partial: ClosedTrade;
  readonly modified: VenuePosition;
  readonly cancelled: PendingOrder;
}

/**
 * Two accounts (hedging and netting) trade on pinned quotes: positions with stops, a partial close,
 * pending orders (one cancelled), a deposit, netting deals, a swap charged at rollover, every
 * request under a client id, saved after each step.
 */
const tradedVenue = async (store: SimulatedVenueStore, name: string): Promise<Traded> => {
  const clock = new TestClock(TUESDAY_10);
  const venue = SimulatedVenue.create({ clock, seed: `store-${name}`, name });
  venue.openAccount({ login: '1001', password: 'hedger', balance: 10_000, leverage: 100, marginMode: 'hedging' });
  venue.openAccount({ login: '2002', password: 'netter', balance: 5_000, leverage: 100, marginMode: 'netting' });
  venue.setQuote('EURUSD', { bid: 1.085, ask: 1.0851 });
  venue.setQuote('XAUUSD', { bid: 2350, ask: 2350.25 });
  await saveChanges(store, venue);

  const hedger = await connected(venue, '1001', 'hedger');
  const netter = await connected(venue, '2002', 'netter');
  const openEur = await hedger.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 1, stopLoss: 1.08, comment: 'copy of #7', magicNumber: 7 }, 'open-eur');
  await hedger.placeOrder({ symbol: 'XAUUSD', orderType: 'sell', volume: 0.1 }, 'open-gold');
  await saveChanges(store, venue);

  const pending = await hedger.placeOrder(
    { symbol: 'EURUSD', orderType: 'buyLimit', volume: 0.5, openPrice: 1.08, expiry: '2026-01-08T00:00:00.000Z' },
    'pending-eur',
  );
  const goldLimit = await hedger.placeOrder({ symbol: 'XAUUSD', orderType: 'sellLimit', volume: 0.1, openPrice: 2400 }, 'pending-gold');
  await saveChanges(store, venue);

  venue.setQuote('EURUSD', { bid: 1.086, ask: 1.0861 });
  const partial = await hedger.closePosition(openEur.orderId, 0.4, 'partial-eur');
  const modified = await hedger.modifyPosition(openEur.orderId, { takeProfit: 1.09 }, 'modify-eur');
  const cancelled = await hedger.cancelOrder(goldLimit.orderId, 'cancel-gold');
  await saveChanges(store, venue);

  venue.deposit('1001', 500, 'top up');
  await netter.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.3 }, 'net-1');
  venue.setQuote('EURUSD', { bid: 1.0865, ask: 1.0866 });
  await netter.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.2 }, 'net-2');
  await netter.placeOrder({ symbol: 'EURUSD', orderType: 'sell', volume: 0.1 }, 'net-3');
  await saveChanges(store, venue);

  // Past Tuesday's 22:00 rollover: swaps charged without a request.
  clock.time += 13 * HOUR;
  venue.tick();
  await saveChanges(store, venue);
  return { venue, clock, openEur, pending, partial, modified, cancelled };
};

/** The venue's error code, or null when the request went through. */
const refusal = async (attempt: Promise<unknown>): Promise<string | null> => {
  try {
    await attempt;
    return null;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
};

const rowCount = async (db: Kysely<ReadModels>, table: 'sim_history' | 'sim_requests', venue: string): Promise<number> => {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE venue = ${venue}`.execute(db);
  return rows[0]?.n ?? -1;
};

const writtenStep = async (db: Kysely<ReadModels>, venue: string): Promise<number> => {
  const { rows } = await sql<{ step: string }>`SELECT processed_step AS step FROM sim_venues WHERE name = ${venue}`.execute(db);
  return Number(rows[0]?.step ?? -1);
};

describe('simulated venue store', () => {
  let db: Kysely<ReadModels>;
  let store: SimulatedVenueStore;

  before(async () => {
    ({ db } = createReadModelDb(await freshDatabase()));
    await SimulatedVenueStore.migrate(db);
    // A second start migrates again: nothing to do.
    await SimulatedVenueStore.migrate(db);
    store = new SimulatedVenueStore(db);
  });
  after(async () => {
    await db.destroy();
  });

  it('loads nothing for a venue never saved', async () => {
    expect(await store.load('Never saved')).to.equal(null);
  });

  it('loads a venue saved journal by journal as exactly the snapshot of the original', async () => {
    const { venue } = await tradedVenue(store, 'Round trip');
    const original = venue.snapshot();
    expect(original.accounts.map((a) => [a.login, a.positions.length, a.orders.length, a.history.length, a.requests.length])).to.deep.equal([
      ['1001', 2, 1, 3, 7],
      ['2002', 1, 0, 2, 3],
    ]);
    expect(original.accounts[0]?.positions[0]?.swap).to.equal(-4.32);
    expect(await store.load('Round trip')).to.deep.equal(original);
  });

  it('restores a loaded venue that carries on where the original stood', async () => {
    const traded = await tradedVenue(store, 'Restored');
    const { venue, clock } = traded;
    const loaded = await store.load('Restored');
    const restored = SimulatedVenue.restore(loaded!, { clock });
    expect(restored.snapshot()).to.deep.equal(venue.snapshot());

    // The same requests on both venues lead to the same state, tickets included.
    for (const subject of [venue, restored]) {
      const hedger = await connected(subject, '1001', 'hedger');
      subject.setQuote('EURUSD', { bid: 1.0875, ask: 1.0876 });
      await hedger.closePosition(traded.openEur.orderId, undefined, 'close-eur');
      await hedger.placeOrder({ symbol: 'XAUUSD', orderType: 'buy', volume: 0.2 }, 'after-restore');
    }
    expect(restored.snapshot()).to.deep.equal(venue.snapshot());
    expect(restored.snapshot().accounts[0]?.history.at(-1)).to.deep.include({ positionId: traded.openEur.orderId, volume: 0.6, closePrice: 1.0875 });
  });

  it('remembers client ids across save and load: a repeat on the restored venue answers the first result and changes nothing', async () => {
    const traded = await tradedVenue(store, 'Replayed');
    const restored = SimulatedVenue.restore((await store.load('Replayed'))!, { clock: traded.clock });
    const before = restored.snapshot();
    const hedger = await connected(restored, '1001', 'hedger');
    const netter = await connected(restored, '2002', 'netter');
    expect(await hedger.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 1 }, 'open-eur')).to.deep.equal(traded.openEur);
    expect(
      await hedger.placeOrder({ symbol: 'EURUSD', orderType: 'buyLimit', volume: 0.5, openPrice: 1.08, expiry: '2026-01-08T00:00:00.000Z' }, 'pending-eur'),
    ).to.deep.equal(traded.pending);
    expect(await hedger.closePosition(traded.openEur.orderId, 0.4, 'partial-eur')).to.deep.equal(traded.partial);
    expect(await hedger.modifyPosition(traded.openEur.orderId, { takeProfit: 1.1 }, 'modify-eur')).to.deep.equal(traded.modified);
    expect(await hedger.cancelOrder(traded.cancelled.id, 'cancel-gold')).to.deep.equal(traded.cancelled);
    expect(await netter.placeOrder({ symbol: 'EURUSD', orderType: 'sell', volume: 0.1 }, 'net-3')).to.deep.include({ status: 'filled', volume: 0.1 });
    expect(await refusal(hedger.closePosition(traded.openEur.orderId, undefined, 'open-eur'))).to.equal('[INVALID_REQUEST]');
    expect(restored.snapshot()).to.deep.equal(before);
  });

  it('restores accounts in the order they were opened, so the dealer hands out the same tickets as the original (regression: loaded by login)', async () => {
    const clock = new TestClock(TUESDAY_10);
    const venue = SimulatedVenue.create({ clock, seed: 'opening-order', name: 'Opening order' });
    venue.openAccount({ login: 'b', password: 'pw', balance: 10_000, leverage: 100, marginMode: 'hedging' });
    venue.openAccount({ login: 'a', password: 'pw', balance: 10_000, leverage: 100, marginMode: 'hedging' });
    venue.setQuote('EURUSD', { bid: 1.085, ask: 1.0851 });
    for (const login of ['b', 'a'])
      await (await connected(venue, login, 'pw')).placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.1, stopLoss: 1.08 }, `open-${login}`);
    await saveChanges(store, venue);
    const restored = SimulatedVenue.restore((await store.load('Opening order'))!, { clock });
    // Both stop losses hit in the same second: each venue closes b first, then a.
    venue.setQuote('EURUSD', { bid: 1.079, ask: 1.0791 });
    restored.setQuote('EURUSD', { bid: 1.079, ask: 1.0791 });
    expect(restored.snapshot()).to.deep.equal(venue.snapshot());
  });

  it("keeps a free symbol's commission 0, not -0, through save and load (regression)", async () => {
    const clock = new TestClock(TUESDAY_10);
    const venue = SimulatedVenue.create({ clock, seed: 'free', name: 'Free symbol' });
    venue.openAccount({ login: '1001', password: 'pw', balance: 10_000, leverage: 100, marginMode: 'hedging' });
    const trader = await connected(venue, '1001', 'pw');
    const { orderId } = await trader.placeOrder({ symbol: 'BTCUSD', orderType: 'buy', volume: 0.1 }, 'btc');
    await trader.closePosition(orderId, 0.05, 'half');
    await saveChanges(store, venue);
    expect(Object.is(venue.snapshot().accounts[0]?.positions[0]?.commission, 0)).to.equal(true);
    expect(await store.load('Free symbol')).to.deep.equal(venue.snapshot());
  });

  it('takes the same journal saved twice without harm', async () => {
    const clock = new TestClock(TUESDAY_10);
    const venue = SimulatedVenue.create({ clock, seed: 'twice', name: 'Twice' });
    venue.openAccount({ login: '1001', password: 'pw', balance: 10_000, leverage: 100, marginMode: 'hedging' });
    const trader = await connected(venue, '1001', 'pw');
    const { orderId } = await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 1 }, 'open');
    await trader.closePosition(orderId, 0.5, 'partial');
    const journal = venue.journal();
    await store.save(venue.name, venue.catalogue(), journal);
    await store.save(venue.name, venue.catalogue(), journal);
    venue.markSaved(journal);
    expect(await rowCount(db, 'sim_history', 'Twice')).to.equal(2);
    expect(await rowCount(db, 'sim_requests', 'Twice')).to.equal(2);
    expect(await store.load('Twice')).to.deep.equal(venue.snapshot());
  });

  it('writes a journal whose save was never confirmed again with the next one, each entry once', async () => {
    const clock = new TestClock(TUESDAY_10);
    const venue = SimulatedVenue.create({ clock, seed: 'unconfirmed', name: 'Unconfirmed' });
    venue.openAccount({ login: '1001', password: 'pw', balance: 10_000, leverage: 100, marginMode: 'hedging' });
    const trader = await connected(venue, '1001', 'pw');
    const { orderId } = await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 1 }, 'open');
    // Saved, but the process died before markSaved: the venue still counts it as new.
    await store.save(venue.name, venue.catalogue(), venue.journal());
    await trader.closePosition(orderId, undefined, 'close');
    const journal = venue.journal();
    expect(journal.accounts[0]).to.deep.include({ historyFrom: 0, requestsFrom: 0 });
    await store.save(venue.name, venue.catalogue(), journal);
    venue.markSaved(journal);
    expect(await rowCount(db, 'sim_history', 'Unconfirmed')).to.equal(2);
    expect(await store.load('Unconfirmed')).to.deep.equal(venue.snapshot());
  });

  it('keeps only the requests the venue keeps, and a venue loaded from them answers a repeat inside the bound the same', async () => {
    const clock = new TestClock(TUESDAY_10);
    const venue = SimulatedVenue.create({ clock, seed: 'bounded', name: 'Bounded', requestsKept: 3 });
    venue.openAccount({ login: '1001', password: 'pw', balance: 10_000, leverage: 100, marginMode: 'hedging' });
    venue.openAccount({ login: '2002', password: 'pw', balance: 10_000, leverage: 100, marginMode: 'hedging' });
    const trader = await connected(venue, '1001', 'pw');
    const other = await connected(venue, '2002', 'pw');
    await other.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }, 'other-0');
    const placed: PlaceOrderResult[] = [];
    for (let i = 0; i < 10; i++) {
      placed.push(await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }, `bounded-${i}`));
      // Saved now and then, so rows are written before they are forgotten as well as after.
      if (i % 3 === 0) await saveChanges(store, venue);
    }
    await saveChanges(store, venue);
    const { rows } = await sql<{ login: string; id: string; seq: number }>`
      SELECT login, id, seq FROM sim_requests WHERE venue = 'Bounded' ORDER BY login, seq`.execute(db);
    expect(rows.map((r) => [r.login, r.id, r.seq])).to.deep.equal([
      ['1001', 'bounded-6', 6],
      ['1001', 'bounded-7', 7],
      ['1001', 'bounded-8', 8],
      ['1001', 'bounded-9', 9],
      ['2002', 'other-0', 0],
    ]);
    const loaded = await store.load('Bounded');
    expect(loaded).to.deep.equal(venue.snapshot());

    const restored = SimulatedVenue.restore(loaded!, { clock, requestsKept: 3 });
    const again = await connected(restored, '1001', 'pw');
    expect(await again.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }, 'bounded-9')).to.deep.equal(placed[9]);
    expect(await refusal(again.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }, 'bounded-1'))).to.equal('[INVALID_REQUEST]');
    expect((await again.positions()).map((p) => p.clientOrderId)).to.deep.equal(placed.map((_, i) => `bounded-${i}`));
  });

  it('keeps only the last history entries in memory however long an account trades, and answers every entry from the store too', async () => {
    const clock = new TestClock(TUESDAY_10);
    const name = 'Long history';
    // Four kept: one more (the slack) may be held before the oldest go, never an entry not saved yet.
    const history = { kept: 4, older: (login: string, before: number) => store.olderHistory(name, login, before) };
    const venue = SimulatedVenue.create({ clock, seed: 'long-history', name, history });
    venue.openAccount({ login: '1001', password: 'pw', balance: 10_000, leverage: 100, marginMode: 'hedging' });
    venue.setQuote('EURUSD', { bid: 1.085, ask: 1.0851 });
    const trader = await connected(venue, '1001', 'pw');
    const closed: ClosedTrade[] = [];
    const held = () => venue.snapshot().accounts[0]!;
    for (let i = 0; i < 30; i++) {
      clock.time += 60_000;
      const { orderId } = await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }, `open-${i}`);
      closed.push(await trader.closePosition(orderId, undefined, `close-${i}`));
      if (i % 3 === 0) await saveChanges(store, venue);
      // At most the kept ones, the slack and the three not saved since the last save.
      expect(held().history.length).to.be.at.most(4 + 1 + 3);
    }
    await saveChanges(store, venue);
    // The deposit and 30 trades were entries; five at most stay in memory, every one in the store.
    expect(held().history.length).to.be.at.most(5);
    expect(held().historyFrom).to.equal(31 - held().history.length);
    expect(await rowCount(db, 'sim_history', name)).to.equal(31);

    const epoch = new Date(0).toISOString();
    const end = new Date(clock.time + HOUR).toISOString();
    const every = await trader.history(epoch, end);
    expect(every.map((e) => e.kind)).to.deep.equal(['balance', ...closed.map(() => 'trade')]);
    expect(every.slice(1)).to.deep.equal(closed);
    // A range of entries only in the store, and one across the store and memory.
    expect(await trader.history(closed[10]!.closeTime, closed[20]!.closeTime)).to.deep.equal(closed.slice(10, 21));
    expect(await trader.history(closed[24]!.closeTime, end)).to.deep.equal(closed.slice(24));
    expect(await trader.history(closed[29]!.closeTime, end)).to.deep.equal(closed.slice(29));

    // A venue loaded with the bound holds the last four, answers every entry and numbers new ones on.
    const loaded = await store.load(name, 4);
    expect(loaded?.accounts[0]).to.deep.include({ historyFrom: 27, history: closed.slice(26) });
    const restored = SimulatedVenue.restore(loaded!, { clock, history });
    const again = await connected(restored, '1001', 'pw');
    expect(await again.history(epoch, end)).to.deep.equal(every);
    clock.time += 60_000;
    const { orderId } = await again.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }, 'open-after');
    const last = await again.closePosition(orderId, undefined, 'close-after');
    await saveChanges(store, restored);
    expect(await rowCount(db, 'sim_history', name)).to.equal(32);
    expect(await again.history(epoch, new Date(clock.time + HOUR).toISOString())).to.deep.equal([...every, last]);
  });

  it('keeps two venue names apart, even with the same logins', async () => {
    const clock = new TestClock(TUESDAY_10);
    const practice = SimulatedVenue.create({ clock, seed: 'practice', name: 'Practice' });
    const contest = SimulatedVenue.create({ clock, seed: 'contest', name: 'Contest' });
    practice.openAccount({ login: '1001', password: 'a', balance: 10_000, leverage: 100, marginMode: 'hedging' });
    contest.openAccount({ login: '1001', password: 'b', balance: 2_500, leverage: 30, marginMode: 'netting' });
    contest.openAccount({ login: '3003', password: 'c', balance: 1_000, leverage: 30, marginMode: 'hedging' });
    await saveChanges(store, practice);
    await saveChanges(store, contest);
    const trader = await connected(practice, '1001', 'a');
    await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 1 }, 'same-id');
    await (await connected(contest, '1001', 'b')).placeOrder({ symbol: 'XAUUSD', orderType: 'sell', volume: 0.01 }, 'same-id');
    await saveChanges(store, practice);
    await saveChanges(store, contest);

    const loadedPractice = await store.load('Practice');
    const loadedContest = await store.load('Contest');
    expect(loadedPractice).to.deep.equal(practice.snapshot());
    expect(loadedContest).to.deep.equal(contest.snapshot());
    expect(loadedPractice?.accounts.map((a) => [a.login, a.balance, a.positions.map((p) => p.symbol)])).to.deep.equal([['1001', 9993, ['EURUSD']]]);
    expect(loadedContest?.accounts.map((a) => [a.login, a.balance])).to.deep.equal([
      ['1001', 2499.93],
      ['3003', 1000],
    ]);
  });

  it('leaves out saves that only move the clock, up to CLOCK_ONLY_SAVE_STEPS; a venue loaded from the older mark walks to the same state', async () => {
    const clock = new TestClock(TUESDAY_10);
    const venue = SimulatedVenue.create({ clock, seed: 'idle', name: 'Idle' });
    venue.openAccount({ login: '1001', password: 'pw', balance: 10_000, leverage: 100, marginMode: 'hedging' });
    const trader = await connected(venue, '1001', 'pw');
    await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.1, stopLoss: 0.5, takeProfit: 5 }, 'open');
    await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buyLimit', volume: 0.1, openPrice: 0.5 }, 'limit');
    await saveChanges(store, venue);
    const saved = await writtenStep(db, 'Idle');
    for (let second = 1; second < CLOCK_ONLY_SAVE_STEPS; second += 1) {
      clock.time += 1000;
      venue.tick();
      const journal = venue.journal();
      expect(journal.accounts).to.deep.equal([]);
      expect(await store.save(venue.name, venue.catalogue(), journal)).to.equal(false);
    }
    expect(await writtenStep(db, 'Idle')).to.equal(saved);

    // A crash now: the venue loaded from the older mark catches up to the one that ran on.
    const restored = SimulatedVenue.restore((await store.load('Idle'))!, { clock });
    restored.tick();
    venue.tick();
    expect(restored.snapshot()).to.deep.equal(venue.snapshot());

    // A change is written at once; so is the clock mark once it is CLOCK_ONLY_SAVE_STEPS ahead.
    venue.setQuote('XAUUSD', { bid: 2350, ask: 2350.25 });
    expect(await store.save(venue.name, venue.catalogue(), venue.journal())).to.equal(true);
    const pinned = await writtenStep(db, 'Idle');
    expect(pinned).to.equal(saved + CLOCK_ONLY_SAVE_STEPS - 1);
    clock.time += (CLOCK_ONLY_SAVE_STEPS - 1) * 1000;
    venue.tick();
    expect(await store.save(venue.name, venue.catalogue(), venue.journal())).to.equal(false);
    clock.time += 1000;
    venue.tick();
    expect(await store.save(venue.name, venue.catalogue(), venue.journal())).to.equal(true);
    expect(await writtenStep(db, 'Idle')).to.equal(pinned + CLOCK_ONLY_SAVE_STEPS);
    expect(await store.load('Idle')).to.deep.equal(venue.snapshot());
  });
});
