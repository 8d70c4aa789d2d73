// The engine's book of copies (engine/copy/book.ts): loaded from a snapshot of the copies read model,
// then fed the engine's own outcomes and the slaves' venue events in whatever order they come, it holds
// the open copies and martingale counts the read model holds once it has taken in the same events.
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import { CopyBook, type CopiesSnapshot, type LoadRows } from '../../../engine/copy/book.js';
import type { ReadModels } from '../../../projections/schema.js';
import type { Position, RecordedEvent } from '../../../store/port.js';

const MASTER = 'master-1';
const SLAVE = 'slave-1';
const COPIER = 'copier-1';
const AT = '2026-01-07T10:00:00.000Z';
const at = (commit: number): Position => ({ commit: BigInt(commit), prepare: BigInt(commit) });
const source = { eventId: 'e', position: '1:1', type: 'PositionOpened' };

const openedOutcome = (id: string, masterPositionId: string, slavePositionId: string, volume = 0.1, slaveAccountId = SLAVE) => ({
  id,
  type: 'CopyExecuted',
  data: {
    copierId: COPIER,
    masterAccountId: MASTER,
    slaveAccountId,
    at: AT,
    source,
    action: { type: 'open', masterPositionId, symbol: 'EURUSD', orderType: 'Buy', volume, clientOrderId: `c-${id}` },
    result: { type: 'opened', slavePositionId, kind: 'position', volume },
  },
});
const closedOutcome = (id: string, masterPositionId: string, slavePositionId: string, result: number) => ({
  id,
  type: 'CopyExecuted',
  data: {
    copierId: COPIER,
    masterAccountId: MASTER,
    slaveAccountId: SLAVE,
    at: AT,
    source,
    action: { type: 'close', masterPositionId, slavePositionId, volume: 0.1, clientOrderId: `c-${id}` },
    result: { type: 'closed', result, closePrice: 1.1 },
  },
});
const slaveClosed = (id: string, slavePositionId: string, profit: number, position: Position, accountId = SLAVE, when = AT): RecordedEvent =>
  ({
    id,
    type: 'PositionClosed',
    position,
    data: {
      accountId,
      at: when,
      trade: { positionId: slavePositionId, symbol: 'EURUSD', profit, swap: 0, commission: 0, closeTime: when, closePrice: 1.1 },
    },
  }) as unknown as RecordedEvent;
const slavePartlyClosed = (id: string, slavePositionId: string, left: number, position: Position): RecordedEvent =>
  ({
    id,
    type: 'PositionPartiallyClosed',
    position,
    data: {
      accountId: SLAVE,
      at: AT,
      position: { positionId: slavePositionId, volume: left },
      trade: { positionId: slavePositionId, volume: 0.1 - left, profit: 1, swap: 0, commission: 0, closeTime: AT },
    },
  }) as unknown as RecordedEvent;

const EMPTY: LoadRows = { copies: [], martingale: [], closures: [], partials: [] };

/** A book whose snapshot is `snapshot` (answered when `release` is called, if `hold`). */
const bookWith = (snapshot: CopiesSnapshot, hold = false) => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const waited: Position[] = [];
  const book = new CopyBook({
    db: {} as Kysely<ReadModels>,
    waitForReadModels: async (position) => {
      waited.push(position);
    },
    snapshot: async () => {
      if (hold) await released;
      return snapshot;
    },
  });
  return { book, release, waited };
};

const openIds = (book: CopyBook) => (book.copiesOf(MASTER).get(COPIER) ?? []).map((c) => `${c.masterPositionId}>${c.slavePositionId}:${c.volume}`);
const losses = (book: CopyBook) => book.martingaleOf([COPIER]).get(COPIER)!.consecutiveLosses;

describe('engine/copy/book: the engine keeps its copies', () => {
  it('holds nothing for a master until it is loaded, then what the snapshot holds', async () => {
    const copy = { copier_id: COPIER, master_position_id: 'm1', part: 0, slave_account_id: SLAVE, slave_position_id: 's1' };
    const row = { ...copy, kind: 'position' as const, symbol: 'EURUSD', order_type: 'Buy', volume: 0.2 };
    const { book } = bookWith({ rows: { ...EMPTY, copies: [row], martingale: [{ copier_id: COPIER, consecutive_losses: 2 }] }, checkpoint: at(5) });
    book.stored([openedOutcome('o0', 'm0', 's0')], at(6));
    expect(book.has(MASTER)).to.equal(false);
    await book.load(MASTER);
    expect(book.has(MASTER)).to.equal(true);
    expect(openIds(book)).to.deep.equal(['m1>s1:0.2']);
    expect(losses(book)).to.equal(2);
  });

  it('a copy opened and closed by the slave steps the martingale once, in either order', async () => {
    for (const order of ['open first', 'close first']) {
      const { book } = bookWith({ rows: EMPTY, checkpoint: at(1) });
      await book.load(MASTER);
      const open = () => book.stored([openedOutcome('o1', 'm1', 's1')], at(3));
      const close = () => book.routed(slaveClosed('v1', 's1', -5, at(2)));
      if (order === 'open first') {
        open();
        expect(openIds(book), order).to.deep.equal(['m1>s1:0.1']);
        close();
      } else {
        close();
        open();
      }
      expect(openIds(book), order).to.deep.equal([]);
      expect(losses(book), order).to.equal(1);
    }
  });

  it("a copy closed by the copier and then by the slave's venue is one step; an event is applied once", async () => {
    const { book } = bookWith({ rows: EMPTY, checkpoint: at(1) });
    await book.load(MASTER);
    book.stored([openedOutcome('o1', 'm1', 's1')], at(2));
    book.stored([closedOutcome('c1', 'm1', 's1', -3)], at(3));
    book.routed(slaveClosed('v1', 's1', -3, at(4)));
    book.routed(slaveClosed('v1', 's1', -3, at(4)));
    expect(openIds(book)).to.deep.equal([]);
    expect(losses(book)).to.equal(1);
    book.stored([openedOutcome('o2', 'm2', 's2')], at(5));
    book.stored([closedOutcome('c2', 'm2', 's2', 4)], at(6));
    expect(losses(book)).to.equal(0);
  });

  it('a part the venue closed before the copy was recorded is the copy’s', async () => {
    const { book } = bookWith({ rows: EMPTY, checkpoint: at(1) });
    await book.load(MASTER);
    book.routed(slavePartlyClosed('p1', 's1', 0.04, at(2)));
    book.stored([openedOutcome('o1', 'm1', 's1')], at(3));
    expect(openIds(book)).to.deep.equal(['m1>s1:0.04']);
  });

  it("a slave's close before its copy is kept a day: a later close of that account forgets it, another account's stays", async () => {
    const { book } = bookWith({ rows: EMPTY, checkpoint: at(1) });
    await book.load(MASTER);
    const dayLater = new Date(Date.parse(AT) + 25 * 3_600_000).toISOString();
    book.routed(slaveClosed('v1', 's1', -1, at(2)));
    book.routed(slaveClosed('v9', 's9', -1, at(3), 'slave-2'));
    book.routed(slaveClosed('v2', 's2', -1, at(4), SLAVE, dayLater));
    book.stored([openedOutcome('o1', 'm1', 's1'), openedOutcome('o9', 'm9', 's9', 0.1, 'slave-2'), openedOutcome('o2', 'm2', 's2')], at(5));
    // s1's close went with the next close of its account a day on; s9's (another account) and s2's stay and close their copies.
    expect(openIds(book)).to.deep.equal(['m1>s1:0.1']);
    expect(losses(book)).to.equal(2);
  });

  it('what is applied while the snapshot is read counts only when the snapshot does not hold it', async () => {
    const { book, release, waited } = bookWith({ rows: EMPTY, checkpoint: at(10) }, true);
    book.stored([openedOutcome('o0', 'm0', 's0')], at(4));
    const loading = book.load(MASTER);
    // Before the snapshot, the read models were waited for up to everything applied so far.
    await new Promise((r) => setImmediate(r));
    expect(waited).to.deep.equal([at(4)]);
    book.stored([openedOutcome('o1', 'm1', 's1')], at(9));
    book.stored([openedOutcome('o2', 'm2', 's2')], at(11));
    release();
    await loading;
    expect(openIds(book)).to.deep.equal(['m2>s2:0.1']);
  });

  it('warms masters ahead of their first change, two at a time, each once; a failed load is left to the next ask', async () => {
    const asked: string[] = [];
    const holds = new Map<string, () => void>();
    const book = new CopyBook({
      db: {} as Kysely<ReadModels>,
      waitForReadModels: async () => undefined,
      snapshot: async (_db, master) => {
        asked.push(master);
        await new Promise<void>((resolve) => holds.set(master, resolve));
        if (master === 'bad') throw new Error('the snapshot failed');
        return { rows: EMPTY, checkpoint: at(1) };
      },
    });
    const settle = () => new Promise((r) => setImmediate(r));
    book.warm(['a', 'bad', 'c', 'a']);
    await settle();
    expect(asked).to.deep.equal(['a', 'bad']);
    holds.get('a')!();
    await settle();
    expect(book.has('a')).to.equal(true);
    expect(asked).to.deep.equal(['a', 'bad', 'c']);
    holds.get('bad')!();
    holds.get('c')!();
    await settle();
    expect(['a', 'bad', 'c'].map((m) => book.has(m))).to.deep.equal([true, false, true]);
    // Warming a loaded master reads nothing; the failed one is read again when asked.
    book.warm(['a', 'c']);
    const loading = book.load('bad');
    await settle();
    expect(asked).to.deep.equal(['a', 'bad', 'c', 'bad']);
    holds.get('bad')!();
    await loading.catch(() => undefined);
  });

  it('forgets everything on reset, and a load under way keeps nothing', async () => {
    const { book, release } = bookWith({ rows: EMPTY, checkpoint: null }, true);
    const loading = book.load(MASTER);
    book.reset();
    release();
    let failed = false;
    await loading.catch(() => (failed = true));
    expect(failed).to.equal(true);
    expect(book.has(MASTER)).to.equal(false);
  });
});
