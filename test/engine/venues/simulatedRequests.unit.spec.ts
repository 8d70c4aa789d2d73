import { expect } from 'chai';
import type { OpenPosition, PlaceOrderResult, VenueConnection } from '../../../engine/venues/port.js';
import { REQUESTS_KEPT } from '../../../engine/venues/simulated/book.js';
import { type Clock, SimulatedVenue } from '../../../engine/venues/simulated/simulatedVenue.js';
import { refusal } from '../../support/venueRefusal.js';

const TUESDAY_10 = Date.parse('2026-01-06T10:00:00.000Z');
const clock: Clock = { now: () => TUESDAY_10 };

/** A venue keeping `kept` requests per account, with one connected account on a pinned EURUSD. */
const given = async (kept: number): Promise<{ venue: SimulatedVenue; trader: VenueConnection }> => {
  const venue = SimulatedVenue.create({ clock, seed: 'requests', requestsKept: kept });
  venue.openAccount({ login: '1001', password: 'secret', balance: 100_000, leverage: 100, marginMode: 'hedging' });
  venue.setQuote('EURUSD', { bid: 1.085, ask: 1.0851 });
  const trader = venue.connection({ login: '1001', password: 'secret' });
  await trader.connect();
  return { venue, trader };
};

const placeAll = async (trader: VenueConnection, ids: readonly string[]): Promise<PlaceOrderResult[]> => {
  const results: PlaceOrderResult[] = [];
  for (const id of ids) results.push(await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }, id));
  return results;
};

const openIds = async (trader: VenueConnection): Promise<string[]> =>
  (await trader.positions()).filter((p): p is OpenPosition => p.kind === 'position').map((p) => p.clientOrderId ?? '');

const names = (n: number, prefix = 'r'): string[] => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe('simulated venue: how long a repeated request is answered the same', () => {
  it('keeps the last 1,000 requests of an account by default', () => {
    expect(REQUESTS_KEPT).to.equal(1_000);
  });

  it('answers a repeat of any of the last kept requests with its first result and places nothing', async () => {
    const { venue, trader } = await given(4);
    const ids = names(23);
    const results = await placeAll(trader, ids);
    const before = venue.snapshot().accounts[0]!;
    for (let i = ids.length - 4; i < ids.length; i++) {
      expect(await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }, ids[i]!)).to.deep.equal(results[i]);
    }
    expect(await openIds(trader)).to.deep.equal(ids);
    expect(venue.snapshot().accounts[0]).to.deep.equal(before);
  });

  it('keeps at most a quarter more than the bound in memory and forgets the oldest first', async () => {
    const { venue, trader } = await given(4);
    await placeAll(trader, names(23));
    const account = venue.snapshot().accounts[0]!;
    // 4 kept + 1 of slack: the log is cut back to 4 whenever it reaches 6.
    expect(account.requests.map((r) => r.id)).to.deep.equal(['r-18', 'r-19', 'r-20', 'r-21', 'r-22']);
    expect(account.requestsFrom).to.equal(18);
  });

  it('never places twice a repeat of a forgotten place whose position is still open: refused', async () => {
    const { trader } = await given(4);
    const ids = names(10);
    await placeAll(trader, ids);
    expect(await refusal(trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }, 'r-0'))).to.equal('[INVALID_REQUEST]');
    expect(await openIds(trader)).to.deep.equal(ids);
  });

  it('answers close, modify and cancel repeats inside the bound the same, changing nothing', async () => {
    const { venue, trader } = await given(3);
    const [a, b] = await placeAll(trader, ['a', 'b']);
    const pending = await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buyLimit', volume: 0.01, openPrice: 1.08 }, 'limit');
    const closed = await trader.closePosition(a!.orderId, undefined, 'close-a');
    const modified = await trader.modifyPosition(b!.orderId, { stopLoss: 1.07 }, 'modify-b');
    const cancelled = await trader.cancelOrder(pending.orderId, 'cancel-limit');
    const before = venue.snapshot().accounts[0]!;
    expect(await trader.closePosition(a!.orderId, undefined, 'close-a')).to.deep.equal(closed);
    expect(await trader.modifyPosition(b!.orderId, { stopLoss: 1.06 }, 'modify-b')).to.deep.equal(modified);
    expect(await trader.cancelOrder(pending.orderId, 'cancel-limit')).to.deep.equal(cancelled);
    expect(venue.snapshot().accounts[0]).to.deep.equal(before);
  });

  it('a restored venue keeps answering the kept requests the same and keeps counting them', async () => {
    const { venue, trader } = await given(4);
    const ids = names(9);
    const results = await placeAll(trader, ids);
    const restored = SimulatedVenue.restore(venue.snapshot(), { clock, requestsKept: 4 });
    expect(restored.snapshot()).to.deep.equal(venue.snapshot());
    const again = restored.connection({ login: '1001', password: 'secret' });
    await again.connect();
    expect(await again.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }, 'r-8')).to.deep.equal(results[8]);
    expect(await refusal(again.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }, 'r-0'))).to.equal('[INVALID_REQUEST]');
    await placeAll(again, ['r-9']);
    await placeAll(trader, ['r-9']);
    expect(restored.snapshot().accounts[0]?.requests).to.deep.equal(venue.snapshot().accounts[0]?.requests);
    expect(restored.snapshot().accounts[0]).to.deep.include({ requestsFrom: 6 });
    expect(await openIds(again)).to.deep.equal([...ids, 'r-9']);
  });

  it('writes each request once in the journal and says which ones the store may forget', async () => {
    const { venue, trader } = await given(4);
    venue.markSaved(venue.journal());
    await placeAll(trader, names(3));
    const first = venue.journal();
    expect(first.accounts[0]).to.deep.include({ requestsFrom: 0, forgetRequestsBefore: null });
    expect(first.accounts[0]?.newRequests.map((r) => r.id)).to.deep.equal(['r-0', 'r-1', 'r-2']);
    venue.markSaved(first);
    await placeAll(trader, names(4, 's'));
    const second = venue.journal();
    // The sixth request (s-2) cut the log back to the last four: r-0 and r-1 are forgotten.
    expect(second.accounts[0]).to.deep.include({ requestsFrom: 3, forgetRequestsBefore: 2 });
    expect(second.accounts[0]?.newRequests.map((r) => r.id)).to.deep.equal(['s-0', 's-1', 's-2', 's-3']);
    venue.markSaved(second);
    await placeAll(trader, ['t-0']);
    expect(venue.journal().accounts[0]).to.deep.include({ requestsFrom: 7, forgetRequestsBefore: 4 });
    venue.markSaved(venue.journal());
    await placeAll(trader, ['t-1']);
    expect(venue.journal().accounts[0]).to.deep.include({ requestsFrom: 8, forgetRequestsBefore: null });
  });

  it('never journals requests forgotten before they were saved', async () => {
    const { venue, trader } = await given(2);
    venue.markSaved(venue.journal());
    await placeAll(trader, names(8));
    const [entry] = venue.journal().accounts;
    expect(entry).to.deep.include({ requestsFrom: 6, forgetRequestsBefore: 6 });
    expect(entry?.newRequests.map((r) => r.id)).to.deep.equal(['r-6', 'r-7']);
  });
});
