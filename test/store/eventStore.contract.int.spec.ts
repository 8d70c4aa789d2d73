// The event store contract: one suite, run against every adapter. The PostgreSQL run always happens;
// the EventStoreDB run happens when EVENTSTORE_CONNECTION_STRING is set.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { StreamNotFoundError, WrongExpectedVersionError } from '../../store/errors.js';
import { PostgresEventStore } from '../../store/postgres/postgresEventStore.js';
import {
  type AppendExpectedRevision,
  comparePositions,
  type EventData,
  type EventStore,
  type Position,
  type RecordedEvent,
  type Subscription,
} from '../../store/port.js';
import { freshEventStoreDatabase } from '../support/postgres.js';

const event = (type = 'Thing', data: unknown = { n: 1 }): EventData => ({ id: randomUUID(), type, data, metadata: { by: 'test' } });
const streamName = (prefix = 'contract') => `${prefix}-${randomUUID()}`;

const readAllOf = async (store: EventStore, stream: string): Promise<RecordedEvent[]> => {
  const out: RecordedEvent[] = [];
  for await (const { event: e } of store.readStream(stream)) out.push(e);
  return out;
};

/** Collects events of a subscription until `count` arrived (or the deadline passes). */
const take = async (subscription: Subscription, count: number, ms = 10000): Promise<RecordedEvent[]> => {
  const got: RecordedEvent[] = [];
  const deadline = setTimeout(() => void subscription.unsubscribe(), ms);
  for await (const { event: e } of subscription) {
    got.push(e);
    if (got.length >= count) break;
  }
  clearTimeout(deadline);
  await subscription.unsubscribe();
  return got;
};

const rejectsWrongVersion = async (promise: Promise<unknown>): Promise<WrongExpectedVersionError> => {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(WrongExpectedVersionError);
    return error as WrongExpectedVersionError;
  }
  throw new Error('expected WrongExpectedVersionError');
};

/** What an adapter promises beyond the common contract. */
interface Traits {
  /** appendToStreams is one transaction (PostgreSQL); otherwise one append per entry in order (EventStoreDB). */
  readonly atomicMultiStream: boolean;
}

export const eventStoreContract = (name: string, open: () => Promise<EventStore | null>, traits: Traits): void => {
  describe(`event store contract: ${name}`, function () {
    let store: EventStore;

    before(async function () {
      const opened = await open();
      if (!opened) this.skip();
      store = opened!;
    });
    after(async () => {
      await store?.dispose();
    });

    describe('expected revision', () => {
      const cases: { name: string; existing: number; expected: AppendExpectedRevision; ok: boolean }[] = [
        { name: 'no_stream on a new stream appends', existing: 0, expected: 'no_stream', ok: true },
        { name: 'no_stream on an existing stream is refused', existing: 1, expected: 'no_stream', ok: false },
        { name: 'stream_exists on a new stream is refused', existing: 0, expected: 'stream_exists', ok: false },
        { name: 'stream_exists on an existing stream appends', existing: 2, expected: 'stream_exists', ok: true },
        { name: 'any on a new stream appends', existing: 0, expected: 'any', ok: true },
        { name: 'any on an existing stream appends', existing: 3, expected: 'any', ok: true },
        { name: 'the exact current revision appends', existing: 2, expected: 1n, ok: true },
        { name: 'an older exact revision is refused', existing: 3, expected: 1n, ok: false },
        { name: 'a newer exact revision is refused', existing: 1, expected: 4n, ok: false },
        { name: 'an exact revision on a new stream is refused', existing: 0, expected: 0n, ok: false },
      ];
      for (const c of cases) {
        it(c.name, async () => {
          const stream = streamName();
          for (let i = 0; i < c.existing; i++) await store.appendToStream(stream, event());
          const attempt = store.appendToStream(stream, event('Next'), { expectedRevision: c.expected });
          if (c.ok) {
            const result = await attempt;
            expect(result.nextExpectedRevision).to.equal(BigInt(c.existing));
            expect((await readAllOf(store, stream)).map((e) => e.type).at(-1)).to.equal('Next');
          } else {
            const error = await rejectsWrongVersion(attempt);
            expect(error.actualVersion).to.equal(c.existing === 0 ? 'no_stream' : BigInt(c.existing - 1));
            expect(await readAllOf(store, stream).catch(() => [])).to.have.length(c.existing);
          }
        });
      }
    });

    describe('idempotent appends', () => {
      it('re-appending the same event ids with the same expected revision is a no-op', async () => {
        const stream = streamName();
        const batch = [event('A'), event('B')];
        const first = await store.appendToStream(stream, batch, { expectedRevision: 'no_stream' });
        const again = await store.appendToStream(stream, batch, { expectedRevision: 'no_stream' });
        expect(again.nextExpectedRevision).to.equal(first.nextExpectedRevision);
        expect(await readAllOf(store, stream)).to.have.length(2);
      });

      it('re-appending the same event ids with any is a no-op', async () => {
        const stream = streamName();
        const one = event('A');
        await store.appendToStream(stream, one);
        await store.appendToStream(stream, event('B'));
        await store.appendToStream(stream, one, { expectedRevision: 'any' });
        expect((await readAllOf(store, stream)).map((e) => e.type)).to.deep.equal(['A', 'B']);
      });

      it('re-appending after the stream moved on, with the old exact revision, is a no-op', async () => {
        const stream = streamName();
        const a = event('A');
        await store.appendToStream(stream, a, { expectedRevision: 'no_stream' });
        await store.appendToStream(stream, event('B'), { expectedRevision: 0n });
        const replay = await store.appendToStream(stream, a, { expectedRevision: 'no_stream' });
        expect(replay.nextExpectedRevision).to.equal(0n);
        expect(await readAllOf(store, stream)).to.have.length(2);
      });

      it('a batch of which only some ids were appended is refused', async () => {
        const stream = streamName();
        const a = event('A');
        await store.appendToStream(stream, a);
        await rejectsWrongVersion(store.appendToStream(stream, [a, event('New')], { expectedRevision: 'any' }));
        expect(await readAllOf(store, stream)).to.have.length(1);
      });

      it('the same event id may be used in another stream', async () => {
        const e = event('A');
        await store.appendToStream(streamName(), e);
        const other = streamName();
        await store.appendToStream(other, e);
        expect(await readAllOf(store, other)).to.have.length(1);
      });
    });

    it('of N concurrent appenders with the same expected revision exactly one wins', async () => {
      const stream = streamName();
      await store.appendToStream(stream, event('Seed'));
      const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => store.appendToStream(stream, event(`W${i}`), { expectedRevision: 0n })));
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      expect(won).to.have.length(1);
      for (const r of lost) expect((r as PromiseRejectedResult).reason).to.be.instanceOf(WrongExpectedVersionError);
      expect(await readAllOf(store, stream)).to.have.length(2);
    });

    describe('appending to several streams (appendToStreams)', () => {
      const typesOf = async (stream: string): Promise<string[]> => {
        try {
          return (await readAllOf(store, stream)).map((e) => e.type);
        } catch (error) {
          if (error instanceof StreamNotFoundError) return [];
          throw error;
        }
      };

      it('answers one result per entry, in order, with positions that rise in $all order', async () => {
        const [a, b, c] = [streamName(), streamName(), streamName()];
        await store.appendToStream(b, [event('B0'), event('B1')]);
        const head = await store.headPosition();
        const results = await store.appendToStreams([
          { streamName: a, events: [event('A0')], expectedRevision: 'no_stream' },
          { streamName: b, events: [event('B2'), event('B3')], expectedRevision: 1n },
          { streamName: c, events: [event('C0')] },
          { streamName: a, events: [event('A1')], expectedRevision: 0n },
        ]);
        expect(results.map((r) => r.nextExpectedRevision)).to.deep.equal([0n, 3n, 0n, 1n]);
        for (let i = 1; i < results.length; i++) expect(comparePositions(results[i - 1]!.position, results[i]!.position)).to.be.lessThan(0);
        expect(await typesOf(a)).to.deep.equal(['A0', 'A1']);
        expect(await typesOf(b)).to.deep.equal(['B0', 'B1', 'B2', 'B3']);
        expect(await typesOf(c)).to.deep.equal(['C0']);
        const inAll: string[] = [];
        for await (const { event: e } of store.readAll({ fromPosition: head ?? 'start' })) {
          if ([a, b, c].includes(e.streamId) && (!head || comparePositions(e.position, head) > 0)) inAll.push(e.type);
        }
        expect(inAll).to.deep.equal(['A0', 'B2', 'B3', 'C0', 'A1']);
      });

      it('an empty list appends nothing and answers an empty list', async () => {
        expect(await store.appendToStreams([])).to.deep.equal([]);
      });

      it('calling again with the same event ids is a no-op that answers the same revisions', async () => {
        const [a, b] = [streamName(), streamName()];
        const call = [
          { streamName: a, events: [event('A0'), event('A1')], expectedRevision: 'no_stream' as const },
          { streamName: b, events: [event('B0')], expectedRevision: 'any' as const },
        ];
        const first = await store.appendToStreams(call);
        const again = await store.appendToStreams(call);
        expect(again.map((r) => r.nextExpectedRevision)).to.deep.equal(first.map((r) => r.nextExpectedRevision));
        expect(await typesOf(a)).to.deep.equal(['A0', 'A1']);
        expect(await typesOf(b)).to.deep.equal(['B0']);
      });

      it(
        traits.atomicMultiStream
          ? 'a failed expectation on the second entry refuses the whole call, naming that stream, and leaves nothing appended'
          : 'a failed expectation on the second entry names that stream and leaves only the first entry appended',
        async () => {
          const [a, b, c] = [streamName(), streamName(), streamName()];
          await store.appendToStream(b, event('B0'));
          const error = await rejectsWrongVersion(
            store.appendToStreams([
              { streamName: a, events: [event('A0')] },
              { streamName: b, events: [event('B1')], expectedRevision: 'no_stream' },
              { streamName: c, events: [event('C0')] },
            ]),
          );
          expect(error.streamName).to.equal(b);
          expect(error.actualVersion).to.equal(0n);
          expect(await typesOf(a)).to.deep.equal(traits.atomicMultiStream ? [] : ['A0']);
          expect(await typesOf(b)).to.deep.equal(['B0']);
          expect(await typesOf(c)).to.deep.equal([]);
        },
      );

      it('after a refused call, calling again with the same ids and a met expectation appends every entry exactly once', async () => {
        const [a, b] = [streamName(), streamName()];
        await store.appendToStream(b, event('B0'));
        const a0 = event('A0');
        const b1 = event('B1');
        await rejectsWrongVersion(
          store.appendToStreams([
            { streamName: a, events: [a0] },
            { streamName: b, events: [b1], expectedRevision: 5n },
          ]),
        );
        const results = await store.appendToStreams([
          { streamName: a, events: [a0] },
          { streamName: b, events: [b1], expectedRevision: 0n },
        ]);
        expect(results.map((r) => r.nextExpectedRevision)).to.deep.equal([0n, 1n]);
        expect(await typesOf(a)).to.deep.equal(['A0']);
        expect(await typesOf(b)).to.deep.equal(['B0', 'B1']);
      });

      it('a subscriber sees the events of every entry, in entry order', async () => {
        const prefix = `many${randomUUID().slice(0, 8)}`;
        const subscription = store.subscribeToAll({ fromPosition: 'end', filter: { streamNamePrefixes: [prefix] } });
        const received = take(subscription, 4);
        await new Promise((r) => setTimeout(r, 300));
        await store.appendToStreams([
          { streamName: streamName(prefix), events: [event('M0'), event('M1')] },
          { streamName: streamName(prefix), events: [event('M2')] },
          { streamName: streamName(prefix), events: [event('M3')] },
        ]);
        expect((await received).map((e) => e.type)).to.deep.equal(['M0', 'M1', 'M2', 'M3']);
      });

      it('concurrent calls over the same streams all complete, each with its own events in order', async () => {
        const streams = [streamName(), streamName(), streamName()];
        const calls = Array.from({ length: 6 }, (_, i) =>
          store.appendToStreams((i % 2 === 0 ? streams : [...streams].reverse()).map((s) => ({ streamName: s, events: [event(`C${i}`)] }))),
        );
        await Promise.all(calls);
        for (const s of streams) expect((await typesOf(s)).sort()).to.deep.equal(['C0', 'C1', 'C2', 'C3', 'C4', 'C5']);
      });
    });

    describe('reading', () => {
      it('reads a stream forwards, backwards, from a revision and with a maximum count', async () => {
        const stream = streamName();
        await store.appendToStream(
          stream,
          ['A', 'B', 'C', 'D'].map((t) => event(t)),
        );
        const types = async (opts: Parameters<EventStore['readStream']>[1]) => {
          const out: string[] = [];
          for await (const { event: e } of store.readStream(stream, opts)) out.push(e.type);
          return out;
        };
        expect(await types({})).to.deep.equal(['A', 'B', 'C', 'D']);
        expect(await types({ direction: 'backwards' })).to.deep.equal(['D', 'C', 'B', 'A']);
        expect(await types({ fromRevision: 2n })).to.deep.equal(['C', 'D']);
        expect(await types({ maxCount: 2 })).to.deep.equal(['A', 'B']);
      });

      it('keeps data, metadata, revision and creation time', async () => {
        const stream = streamName();
        const e = event('Shaped', { nested: { list: [1, 'two'], flag: true } });
        await store.appendToStream(stream, e);
        const [read] = await readAllOf(store, stream);
        expect(read!.id).to.equal(e.id);
        expect(read!.data).to.deep.equal({ nested: { list: [1, 'two'], flag: true } });
        expect(read!.metadata).to.deep.include({ by: 'test' });
        expect(read!.revision).to.equal(0n);
        expect(read!.created).to.be.instanceOf(Date);
      });

      it('gives the same metadata through every read and every copy of an event, {} if none was given', async () => {
        const stream = streamName();
        await store.appendToStream(stream, [event('WithMetadata'), { id: randomUUID(), type: 'WithoutMetadata', data: {} }]);
        const [given, none] = await readAllOf(store, stream);
        expect({ ...given! }.metadata).to.deep.equal(given!.metadata);
        expect(structuredClone(given!).metadata).to.deep.include({ by: 'test' });
        expect(none!.metadata).to.deep.equal({});
        const fromAll: RecordedEvent[] = [];
        for await (const { event: e } of store.readAll({ fromPosition: given!.position, maxCount: 2 })) fromAll.push(e);
        expect(fromAll.map((e) => e.metadata)).to.deep.equal([given!.metadata, {}]);
      });

      it('reading a missing stream throws StreamNotFoundError', async () => {
        let caught: unknown;
        try {
          await readAllOf(store, streamName());
        } catch (error) {
          caught = error;
        }
        expect(caught).to.be.instanceOf(StreamNotFoundError);
      });

      it('readAll returns appended events in $all order, from an inclusive position', async () => {
        const stream = streamName();
        await store.appendToStream(stream, [event('A'), event('B'), event('C')]);
        const [, second] = await readAllOf(store, stream);
        const types: string[] = [];
        for await (const { event: e } of store.readAll({ fromPosition: second!.position, maxCount: 2 })) types.push(e.type);
        expect(types).to.deep.equal(['B', 'C']);
      });
    });

    describe('soft delete', () => {
      it('a deleted stream reads as not found, and a later append continues its numbering', async () => {
        const stream = streamName();
        await store.appendToStream(stream, [event('A'), event('B')]);
        await store.deleteStream(stream);
        let caught: unknown;
        try {
          await readAllOf(store, stream);
        } catch (error) {
          caught = error;
        }
        expect(caught).to.be.instanceOf(StreamNotFoundError);
        const result = await store.appendToStream(stream, event('C'));
        expect(result.nextExpectedRevision).to.equal(2n);
        const after = await readAllOf(store, stream);
        expect(after.map((e) => [e.type, e.revision])).to.deep.equal([['C', 2n]]);
      });
    });

    describe('subscriptions', () => {
      it('delivers past and live events after the start position, and signals when caught up', async () => {
        const prefix = `sub${randomUUID().slice(0, 8)}`;
        const stream = streamName(prefix);
        await store.appendToStream(stream, [event('Past1'), event('Past2')]);
        const subscription = store.subscribeToAll({ fromPosition: 'start', filter: { streamNamePrefixes: [prefix] } });
        let caughtUp = false;
        subscription.on('caughtUp', () => (caughtUp = true));
        const received = take(subscription, 3);
        await new Promise((r) => setTimeout(r, 300));
        await store.appendToStream(stream, event('Live'));
        expect((await received).map((e) => e.type)).to.deep.equal(['Past1', 'Past2', 'Live']);
        expect(caughtUp).to.equal(true);
      });

      it('a subscriber resumed from a checkpoint sees every later event exactly once', async () => {
        const prefix = `res${randomUUID().slice(0, 8)}`;
        const stream = streamName(prefix);
        const filter = { streamNamePrefixes: [prefix] };
        await store.appendToStream(
          stream,
          ['E0', 'E1', 'E2', 'E3', 'E4'].map((t) => event(t)),
        );
        const first = await take(store.subscribeToAll({ fromPosition: 'start', filter }), 3);
        const checkpoint: Position = first[2]!.position;
        await store.appendToStream(
          stream,
          ['E5', 'E6'].map((t) => event(t)),
        );
        const resumed = await take(store.subscribeToAll({ fromPosition: checkpoint, filter }), 4);
        expect(resumed.map((e) => e.type)).to.deep.equal(['E3', 'E4', 'E5', 'E6']);
        for (let i = 1; i < resumed.length; i++) {
          expect(comparePositions(resumed[i - 1]!.position, resumed[i]!.position)).to.be.lessThan(0);
        }
      });
    });
  });
};

// PostgreSQL: always.
let postgresUrl = '';
eventStoreContract(
  'PostgreSQL',
  async () => {
    postgresUrl = await freshEventStoreDatabase();
    return PostgresEventStore.connect(postgresUrl);
  },
  { atomicMultiStream: true },
);

// EventStoreDB: when a server is configured.
eventStoreContract(
  'EventStoreDB',
  async () => {
    const connection = process.env.EVENTSTORE_CONNECTION_STRING;
    if (!connection) {
      console.log('    EventStoreDB contract run skipped: EVENTSTORE_CONNECTION_STRING is not set (no EventStoreDB server here)');
      return null;
    }
    const { createEventStoreDbStore } = await import('../../store/esdb/eventStoreDb.js');
    return createEventStoreDbStore(connection);
  },
  { atomicMultiStream: false },
);

describe('PostgreSQL event store: ordering of $all across transactions', () => {
  let url: string;
  let store: PostgresEventStore;
  before(async () => {
    url = await freshEventStoreDatabase();
    store = await PostgresEventStore.connect(url);
  });
  after(async () => store?.dispose());

  /** Appends inside an open transaction on its own connection; returns the commit function. */
  const openAppend = async (stream: string, type: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('BEGIN');
    await client.query(`SELECT * FROM es_append($1, 'any', NULL, ARRAY[$2::uuid], ARRAY[$3::text], ARRAY['{}'::jsonb], ARRAY['{}'::jsonb])`, [
      stream,
      randomUUID(),
      type,
    ]);
    return {
      commit: async () => {
        await client.query('COMMIT');
        await client.end();
      },
    };
  };

  it("readAllPages gives readAll's events in pages of the size asked, from an inclusive position, the same events", async () => {
    const stream = streamName();
    await store.appendToStream(stream, [event('A'), event('B', { n: 2 }), event('C'), event('D'), event('E')]);
    const [, second] = await readAllOf(store, stream);
    const all: RecordedEvent[] = [];
    for await (const { event: e } of store.readAll({ fromPosition: second!.position })) all.push(e);
    const pages: (readonly RecordedEvent[])[] = [];
    for await (const page of store.readAllPages({ fromPosition: second!.position, pageSize: 2 })) pages.push(page);
    expect(pages.slice(0, -1).every((page) => page.length === 2)).to.equal(true);
    expect(pages.at(-1)!.length).to.be.within(1, 2);
    const paged = pages.flat();
    const shape = (e: RecordedEvent) => ({ ...e });
    expect(paged.map(shape)).to.deep.equal(all.map(shape));
    expect(paged.filter((e) => e.streamId === stream).map((e) => e.type)).to.deep.equal(['B', 'C', 'D', 'E']);
    expect(paged[0]!.data).to.deep.equal({ n: 2 });
    expect(paged[0]!.metadata).to.deep.include({ by: 'test' });
    expect(paged[0]!.created).to.be.instanceOf(Date);
    const fromStart: (readonly RecordedEvent[])[] = [];
    for await (const page of store.readAllPages({ pageSize: 1000 })) fromStart.push(page);
    expect(fromStart.flat().map((e) => e.id)).to.include.members(paged.map((e) => e.id));
  });

  it('readAllPages does not expose a newer commit while an older transaction is still open', async () => {
    const prefix = `xidp${randomUUID().slice(0, 8)}`;
    const slow = await openAppend(`${prefix}-a`, 'Slow');
    const fast = await openAppend(`${prefix}-b`, 'Fast');
    await fast.commit();
    const seen = async (): Promise<string[]> => {
      const types: string[] = [];
      for await (const page of store.readAllPages({ pageSize: 3 })) for (const e of page) if (e.streamId.startsWith(prefix)) types.push(e.type);
      return types;
    };
    expect(await seen()).to.deep.equal([]);
    await slow.commit();
    expect(await seen()).to.deep.equal(['Slow', 'Fast']);
  });

  it('delivers both of two transactions that commit out of sequence order to a live subscriber', async () => {
    const prefix = `xid${randomUUID().slice(0, 8)}`;
    const subscription = store.subscribeToAll({ fromPosition: 'end', filter: { streamNamePrefixes: [prefix] } });
    const received = take(subscription, 2);
    await new Promise((r) => setTimeout(r, 200));
    const slow = await openAppend(`${prefix}-a`, 'Slow'); // takes the lower sequence value and xid
    const fast = await openAppend(`${prefix}-b`, 'Fast');
    await fast.commit(); // commits first, with the higher position
    await new Promise((r) => setTimeout(r, 700));
    await slow.commit();
    expect((await received).map((e) => e.type)).to.deep.equal(['Slow', 'Fast']);
  });

  it('does not expose a newer commit while an older transaction is still open', async () => {
    const prefix = `hold${randomUUID().slice(0, 8)}`;
    const slow = await openAppend(`${prefix}-a`, 'Slow');
    const fast = await openAppend(`${prefix}-b`, 'Fast');
    await fast.commit();
    const visible: string[] = [];
    for await (const { event: e } of store.readAll({ fromPosition: 'start' })) {
      if (e.streamId.startsWith(prefix)) visible.push(e.type);
    }
    expect(visible).to.deep.equal([]);
    await slow.commit();
    for await (const { event: e } of store.readAll({ fromPosition: 'start' })) {
      if (e.streamId.startsWith(prefix)) visible.push(e.type);
    }
    expect(visible).to.deep.equal(['Slow', 'Fast']);
  });

  it('orders $all by transaction id as a number, across changes in its number of digits (9 before 10, 99 before 100)', async () => {
    // Regression: ORDER BY transaction_id resolved to the text column of the select list, so once
    // transaction ids grew a digit, readers received 1000 before 999 and a resumed subscriber skipped
    // events. Rows with chosen transaction ids (long committed, so visible) pin the order.
    const prefix = `digits${randomUUID().slice(0, 8)}`;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    // Ids below any live transaction's, so readers see them as committed long ago.
    for (const [xid, type] of [
      [100, 'Xid100'],
      [9, 'Xid9'],
      [99, 'Xid99'],
      [10, 'Xid10'],
    ] as const) {
      await client.query(
        `INSERT INTO es_events (transaction_id, stream_name, revision, event_id, event_type, data) VALUES ($1::text::xid8, $2, 0, $3, $4, '{}')`,
        [String(xid), `${prefix}-${xid}`, randomUUID(), type],
      );
    }
    await client.end();
    const mine = (events: { streamId: string; type: string }[]) => events.filter((e) => e.streamId.startsWith(prefix)).map((e) => e.type);
    const all: { streamId: string; type: string }[] = [];
    for await (const { event: e } of store.readAll({ fromPosition: 'start' })) all.push(e);
    expect(mine(all)).to.deep.equal(['Xid9', 'Xid10', 'Xid99', 'Xid100']);
    const backwards: { streamId: string; type: string }[] = [];
    for await (const { event: e } of store.readAll({ fromPosition: 'end', direction: 'backwards' })) backwards.push(e);
    expect(mine(backwards)).to.deep.equal(['Xid100', 'Xid99', 'Xid10', 'Xid9']);
    const subscription = store.subscribeToAll({ fromPosition: 'start', filter: { streamNamePrefixes: [prefix] } });
    expect((await take(subscription, 4)).map((e) => e.type)).to.deep.equal(['Xid9', 'Xid10', 'Xid99', 'Xid100']);
  });

  it('keeps the revision order of one stream when its writers began out of order', async () => {
    const stream = `inv-${randomUUID()}`;
    await store.appendToStream(stream, event('R0'));
    // A transaction that took its xid early, then appends after a later transaction did.
    const early = new pg.Client({ connectionString: url });
    await early.connect();
    await early.query('BEGIN');
    await early.query('SELECT pg_current_xact_id()');
    await store.appendToStream(stream, event('R1'));
    const { rows } = await early.query(`SELECT result FROM es_append($1, 'any', NULL, ARRAY[$2::uuid], ARRAY['R2'], ARRAY['{}'::jsonb], ARRAY['{}'::jsonb])`, [
      stream,
      randomUUID(),
    ]);
    await early.query('ROLLBACK');
    await early.end();
    // The early writer is told to retry rather than appending a revision that $all would order first.
    expect(rows[0].result).to.equal('xid_inversion');
    expect((await readAllOf(store, stream)).map((e) => e.type)).to.deep.equal(['R0', 'R1']);
  });
});

describe('PostgreSQL event store: group commit of concurrent appends', () => {
  let url: string;
  let store: PostgresEventStore;
  before(async () => {
    url = await freshEventStoreDatabase();
    store = await PostgresEventStore.connect(url);
    // One transaction in flight: every append made while it runs joins the next group, in call order.
    store.groupCommitsInFlight = 1;
  });
  after(async () => store?.dispose());

  const transactionsOf = async (prefix: string): Promise<number> => {
    const { rows } = await store.pool.query<{ n: string }>('SELECT count(DISTINCT transaction_id) AS n FROM es_events WHERE stream_name LIKE $1', [
      `${prefix}%`,
    ]);
    return Number(rows[0]!.n);
  };

  it('appends to different streams share transactions, and a refused one fails only its own caller', async () => {
    const prefix = `gc${randomUUID().slice(0, 8)}`;
    const streams = Array.from({ length: 20 }, (_, i) => `${prefix}-${i}`);
    await store.appendToStream(streams[7]!, event('Seed'));
    const results = await Promise.allSettled(streams.map((s) => store.appendToStream(s, event('One'), { expectedRevision: 'no_stream' })));
    expect(results.map((r) => r.status)).to.deep.equal(streams.map((_, i) => (i === 7 ? 'rejected' : 'fulfilled')));
    const refused = (results[7] as PromiseRejectedResult).reason as WrongExpectedVersionError;
    expect(refused).to.be.instanceOf(WrongExpectedVersionError);
    expect(refused.streamName).to.equal(streams[7]);
    for (const [i, s] of streams.entries()) {
      expect((await readAllOf(store, s)).map((e) => e.type)).to.deep.equal(i === 7 ? ['Seed'] : ['One']);
      if (i !== 7) expect((results[i] as PromiseFulfilledResult<{ nextExpectedRevision: bigint }>).value.nextExpectedRevision).to.equal(0n);
    }
    expect(await transactionsOf(prefix)).to.be.lessThan(streams.length);
  });

  it('answers each caller with the position of its own event, in $all order', async () => {
    const prefix = `gcpos${randomUUID().slice(0, 8)}`;
    const streams = Array.from({ length: 12 }, (_, i) => `${prefix}-${i}`);
    const results = await Promise.all(streams.map((s) => store.appendToStream(s, [event('A'), event('B')])));
    for (const [i, s] of streams.entries()) {
      const read = await readAllOf(store, s);
      expect(read.map((e) => e.revision)).to.deep.equal([0n, 1n]);
      expect(results[i]!.position).to.deep.equal(read[1]!.position);
      expect(results[i]!.nextExpectedRevision).to.equal(1n);
    }
  });

  it('groups holding a replay or one stream twice keep the answers of appends one by one', async () => {
    const prefix = `gcseq${randomUUID().slice(0, 8)}`;
    const replayed = event('Replayed');
    await store.appendToStream(`${prefix}-r`, replayed, { expectedRevision: 'no_stream' });
    const same = `${prefix}-same`;
    const results = await Promise.allSettled([
      store.appendToStream(`${prefix}-0`, event('X')),
      store.appendToStream(`${prefix}-1`, event('X')),
      store.appendToStream(`${prefix}-r`, replayed, { expectedRevision: 'no_stream' }),
      store.appendToStream(same, event('S0'), { expectedRevision: 'no_stream' }),
      store.appendToStream(same, event('S1'), { expectedRevision: 0n }),
      store.appendToStream(same, event('Late'), { expectedRevision: 'no_stream' }),
      store.appendToStream(`${prefix}-2`, event('X')),
    ]);
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseFulfilledResult<{ nextExpectedRevision: bigint }>).value.nextExpectedRevision).to.equal(0n);
    expect((await readAllOf(store, `${prefix}-r`)).map((e) => e.type)).to.deep.equal(['Replayed']);
    expect((await readAllOf(store, same)).map((e) => e.type)).to.deep.equal(['S0', 'S1']);
  });

  it('an append the database refuses fails only its own caller', async () => {
    const prefix = `gcbad${randomUUID().slice(0, 8)}`;
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => store.appendToStream(`${prefix}-${i}`, event('T', i === 5 ? { text: 'nul \u0000 inside' } : { i }))),
    );
    expect(results.map((r) => r.status)).to.deep.equal(Array.from({ length: 8 }, (_, i) => (i === 5 ? 'rejected' : 'fulfilled')));
    for (let i = 0; i < 8; i++) if (i !== 5) expect(await readAllOf(store, `${prefix}-${i}`)).to.have.length(1);
  });
});
