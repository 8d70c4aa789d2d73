// Early placement's rules (engine/copy/early.ts): when a venue change starts an early run, when the
// run holds back, and how the handler takes what it placed.
import { expect } from 'chai';
import type { PositionsEvent } from '../../../domain/positions/events.js';
import type { PositionData } from '../../../domain/positions/position.js';
import { type EarlyCause, EarlyCopies, type EarlyOutcomes } from '../../../engine/copy/early.js';
import type { Work } from '../../../engine/copy/work.js';
import type { Position, RecordedEvent } from '../../../store/port.js';

const AT = '2026-01-07T10:00:00.000Z';
const position = (id: string): PositionData => ({
  positionId: id,
  symbol: 'EURUSD',
  orderType: 'Buy',
  volume: 0.1,
  openPrice: 1.085,
  openTime: AT,
  stopLoss: null,
  takeProfit: null,
  swap: 0,
  commission: 0,
  comment: null,
  magicNumber: null,
  clientOrderId: null,
});
const opened = (accountId: string, id: string): PositionsEvent => ({ type: 'PositionOpened', data: { accountId, at: AT, position: position(id) } });
const closed = (accountId: string, id: string): PositionsEvent =>
  ({ type: 'PositionClosed', data: { accountId, at: AT, trade: { positionId: id, symbol: 'EURUSD' } } }) as unknown as PositionsEvent;
const balance = (accountId: string): PositionsEvent =>
  ({ type: 'BalanceChanged', data: { accountId, at: AT, operation: { operationId: '1', time: AT, amount: 1, comment: null } } }) as PositionsEvent;
const masterWork = (group: string, id: string): Work => ({
  kind: 'master',
  group,
  recorded: { id, position: { commit: 1n, prepare: 1n } } as unknown as RecordedEvent,
  trigger: { kind: 'increase', masterPositionId: '1', symbol: 'EURUSD', volume: 1 },
  masterAccountId: group,
  stateBefore: null,
  early: null,
});
const flush = () => new Promise((r) => setImmediate(r));

const setup = (options: { slaves?: readonly string[]; masters?: readonly string[]; held?: () => ReadonlySet<string> | null } = {}) => {
  const placed: EarlyCause[] = [];
  let mark: Position | null = null;
  /** State events routed, and per account the count at its latest (as Intake counts them). */
  let count = 0;
  const routedAt = new Map<string, number>();
  let now = 0;
  let release: (() => void) | null = null;
  const warmed: string[][] = [];
  const early = new EarlyCopies({
    active: () => true,
    stateMark: () => mark,
    stateCount: () => count,
    stateChangedSince: (since, accounts) => accounts.some((account) => (routedAt.get(account) ?? 0) > since),
    catchUp: async () => undefined,
    place: async (cause, ready) => {
      await new Promise<void>((resolve) => (release = resolve));
      if (!ready(options.slaves ?? [])) return null;
      placed.push(cause);
      return new Map() as EarlyOutcomes;
    },
    masters: async () => options.masters ?? ['M'],
    ...(options.held ? { heldSlaveItems: options.held } : {}),
    warm: (masters) => warmed.push([...masters]),
    now: () => now,
  });
  return {
    early,
    placed,
    warmed,
    /** Lets the run under way read its inputs and decide. */
    decide: async () => {
      await flush();
      release?.();
      await flush();
    },
    /** The intake routes a state event concerning `accounts` (a close of theirs, a copier event). */
    routeStateEvent: (...accounts: string[]) => {
      mark = { commit: BigInt(++now), prepare: 0n };
      count += 1;
      for (const account of accounts) routedAt.set(account, count);
    },
    advance: (ms: number) => (now += ms),
  };
};

/** The masters are read at the first change seen; changes from then on may start early runs. */
const started = async (s: ReturnType<typeof setup>) => {
  s.early.seen('X', 'warm-up', balance('X'));
  await flush();
  s.early.routed('warm-up');
};

describe('early placement (engine/copy/early.ts)', () => {
  it("places for a master's trade at once, and the handler takes it once", async () => {
    const s = setup();
    await started(s);
    s.early.seen('M', 'e1', opened('M', '1'));
    await s.decide();
    expect(s.placed.map((c) => c.eventId)).to.deep.equal(['e1']);
    expect(s.placed[0]!.masterEventAt).to.equal(AT);
    expect(await s.early.take('e1')).to.be.an.instanceOf(Map);
    expect(s.early.take('e1')).to.equal(null);
  });

  it('starts nothing for an account without copiers, nor for a change that is no trigger', async () => {
    const s = setup();
    await started(s);
    s.early.seen('S', 'e1', opened('S', '1'));
    s.early.seen('M', 'e2', balance('M'));
    await s.decide();
    expect(s.placed).to.deep.equal([]);
    expect(s.early.take('e1')).to.equal(null);
  });

  it("holds back while an earlier change of the master is on its way, or the master's group has work", async () => {
    const s = setup();
    await started(s);
    s.early.seen('M', 'e1', balance('M'));
    s.early.seen('M', 'e2', opened('M', '2'));
    expect(s.early.take('e2')).to.equal(null);
    s.early.routed('e1');
    s.early.routed('e2');
    const work = masterWork('M', 'e0');
    s.early.enter(work);
    s.early.seen('M', 'e3', opened('M', '3'));
    expect(s.early.take('e3')).to.equal(null);
    s.early.leave(work);
    s.early.routed('e3');
    s.early.seen('M', 'e4', opened('M', '4'));
    await s.decide();
    expect(s.placed.map((c) => c.eventId)).to.deep.equal(['e4']);
  });

  it('is not held back by its own event reaching its group first', async () => {
    const s = setup();
    await started(s);
    s.early.seen('M', 'e1', opened('M', '1'));
    s.early.enter(masterWork('M', 'e1'));
    await s.decide();
    expect(s.placed.map((c) => c.eventId)).to.deep.equal(['e1']);
  });

  it("holds back when a close of one of the master's slaves is on its way, not one of another account", async () => {
    const s = setup({ slaves: ['S1'] });
    await started(s);
    s.early.seen('S2', 'c2', closed('S2', '9'));
    s.early.seen('M', 'e1', opened('M', '1'));
    await s.decide();
    expect(s.placed.map((c) => c.eventId)).to.deep.equal(['e1']);
    s.early.routed('e1');
    s.early.seen('S1', 'c1', closed('S1', '8'));
    s.early.seen('M', 'e2', opened('M', '2'));
    await s.decide();
    expect(await s.early.take('e2')).to.equal(null);
    expect(s.placed.map((c) => c.eventId)).to.deep.equal(['e1']);
  });

  it("is not held back by a slave's close of a position the book holds no open copy of for the master", async () => {
    // What the engine's own close orders cause: the book ended those copies when their outcomes were stored.
    let held: ReadonlySet<string> | null = new Set(['8']);
    const s = setup({ slaves: ['S1'], held: () => held });
    await started(s);
    s.early.seen('S1', 'c1', closed('S1', '7'));
    s.early.seen('M', 'e1', opened('M', '1'));
    await s.decide();
    expect(s.placed.map((c) => c.eventId)).to.deep.equal(['e1']);
    s.early.routed('e1');
    // A close of a copy the book still holds open for the master: held back.
    s.early.seen('S1', 'c2', closed('S1', '8'));
    s.early.seen('M', 'e2', opened('M', '2'));
    await s.decide();
    expect(await s.early.take('e2')).to.equal(null);
    s.early.routed('e2');
    s.early.routed('c2');
    // The book does not hold the master (not loaded): every close of a slave holds back.
    held = null;
    s.early.seen('M', 'e3', opened('M', '3'));
    await s.decide();
    expect(await s.early.take('e3')).to.equal(null);
    expect(s.placed.map((c) => c.eventId)).to.deep.equal(['e1']);
  });

  it('holds back when a copy-changing event of the master or one of its slaves was routed while it read its inputs', async () => {
    const s = setup({ slaves: ['S1'] });
    await started(s);
    s.early.seen('M', 'e1', opened('M', '1'));
    s.routeStateEvent('M');
    await s.decide();
    expect(await s.early.take('e1')).to.equal(null);
    s.early.routed('e1');
    s.early.seen('M', 'e2', opened('M', '2'));
    s.routeStateEvent('S1');
    await s.decide();
    expect(await s.early.take('e2')).to.equal(null);
    expect(s.placed).to.deep.equal([]);
  });

  it("is not held back by a copy-changing event of another master's accounts routed meanwhile", async () => {
    const s = setup({ slaves: ['S1'] });
    await started(s);
    // Before the run began: its inputs include it.
    s.routeStateEvent('S1');
    s.early.seen('M', 'e1', opened('M', '1'));
    s.routeStateEvent('N', 'S2');
    await s.decide();
    expect(s.placed.map((c) => c.eventId)).to.deep.equal(['e1']);
    expect(await s.early.take('e1')).to.be.an.instanceOf(Map);
  });

  it('leaves every change to the usual way while the engine is far behind, and forgets what never came', async () => {
    const s = setup();
    await started(s);
    s.early.seen('X', 'old', balance('X'));
    s.advance(11_000);
    s.early.seen('M', 'e1', opened('M', '1'));
    expect(s.early.take('e1')).to.equal(null);
    s.advance(121_000);
    s.early.seen('M', 'e2', opened('M', '2'));
    await s.decide();
    expect(s.placed.map((c) => c.eventId)).to.deep.equal(['e2']);
  });

  it("reads the masters when the term begins: a master's first change is placed early, and their books are warmed", async () => {
    const s = setup({ masters: ['M', 'N'] });
    s.early.warm();
    await flush();
    expect(s.warmed).to.deep.equal([['M', 'N']]);
    s.early.seen('M', 'e1', opened('M', '1'));
    await s.decide();
    expect(s.placed.map((c) => c.eventId)).to.deep.equal(['e1']);
    // Once read, the masters are not read (nor warmed) again by a later warm.
    s.early.warm();
    await flush();
    expect(s.warmed).to.deep.equal([['M', 'N']]);
  });

  it("warms the book of a copier's master as the copier is created, once the masters are known", async () => {
    const s = setup({ masters: [] });
    s.early.copierCreated('P');
    expect(s.warmed).to.deep.equal([]);
    s.early.warm();
    await flush();
    s.early.copierCreated('Q');
    expect(s.warmed).to.deep.equal([[], ['Q']]);
    s.early.seen('Q', 'e1', opened('Q', '1'));
    await s.decide();
    expect(s.placed.map((c) => c.eventId)).to.deep.equal(['e1']);
  });

  it('forgets what it held when the pipeline is dropped', async () => {
    const s = setup();
    await started(s);
    s.early.seen('M', 'e1', opened('M', '1'));
    s.early.reset();
    expect(s.early.take('e1')).to.equal(null);
  });
});
