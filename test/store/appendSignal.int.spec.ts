// The append signal's fallback (store/postgres/subscription.ts): one probe of the committed head per
// process wakes every waiting subscriber when it moved; an idle subscriber reads nothing meanwhile; and
// an append whose NOTIFY never came (its process died between the commit and the NOTIFY) still
// reaches the subscribers of another store.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { PostgresEventStore } from '../../store/postgres/postgresEventStore.js';
import { AppendSignal, type PageReader, PostgresSubscription } from '../../store/postgres/subscription.js';
import type { Position, RecordedEvent, ResolvedEvent, Subscription } from '../../store/port.js';
import { freshEventStoreDatabase } from '../support/postgres.js';

/** Resolves once `check` holds, polling every 20 ms; fails after `ms`. */
const until = async (check: () => boolean, what: string, ms = 20_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** The first event of a subscription (it is ended afterwards). */
const first = async (subscription: Subscription): Promise<RecordedEvent> => {
  for await (const { event } of subscription) return event;
  throw new Error('the subscription ended without an event');
};

describe('append signal: one probe per process instead of a poll per subscriber', () => {
  it('wakes idle subscribers only when the committed head moved', async () => {
    const events: ResolvedEvent[] = [];
    const reads = new Map<string, number>();
    let probes = 0;
    let head = 'h0';
    const reader = (name: string): PageReader => ({
      readPageLooking: async (after: Position | null) => {
        reads.set(name, (reads.get(name) ?? 0) + 1);
        return { events: events.filter((e) => after === null || e.event.position.prepare > after.prepare), heldBack: false };
      },
      headPosition: async () => null,
    });
    // Not started (no LISTEN): the probe runs at its shorter, unheard interval.
    const signal = new AppendSignal('postgres://unused', undefined, async () => {
      probes += 1;
      return head;
    });
    const a = new PostgresSubscription(reader('a'), signal, { fromPosition: 'start' });
    const b = new PostgresSubscription(reader('b'), signal, { fromPosition: 'start' });
    try {
      await until(() => probes >= 4, 'four probes');
      // The first read, and one more after the first probe (it has no head to compare with); nothing since.
      expect(reads.get('a')).to.be.within(1, 2);
      expect(reads.get('b')).to.be.within(1, 2);
      const before = probes;
      const event: RecordedEvent = {
        streamId: 's-1',
        id: randomUUID(),
        revision: 0n,
        type: 'Thing',
        data: {},
        metadata: {},
        created: new Date(),
        position: { commit: 1n, prepare: 1n },
      };
      events.push({ event });
      head = 'h1';
      const [gotA, gotB] = await Promise.all([first(a), first(b)]);
      expect(gotA.streamId).to.equal('s-1');
      expect(gotB.streamId).to.equal('s-1');
      expect(probes).to.be.greaterThan(before);
    } finally {
      await a.unsubscribe();
      await b.unsubscribe();
      await signal.stop();
    }
  });

  describe('on PostgreSQL', () => {
    let url: string;
    let store: PostgresEventStore;
    before(async function () {
      // A fresh database and its migration: slow on a loaded machine.
      this.timeout(120_000);
      url = await freshEventStoreDatabase();
      store = await PostgresEventStore.connect(url);
    });
    after(async () => store?.dispose());

    it('delivers an append whose NOTIFY never came', async () => {
      const subscription = store.subscribeToAll({ fromPosition: 'end' });
      const caughtUp = new Promise((resolve) => (subscription as PostgresSubscription).once('caughtUp', resolve));
      const received = first(subscription);
      await caughtUp;
      // es_append commits without notifying (the store sends its NOTIFY after the commit): appended on a
      // connection of its own, no NOTIFY ever goes out, as when the appending process died right after its commit.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const stream = `lost-notify-${randomUUID()}`;
      try {
        await client.query(`SELECT * FROM es_append($1, 'any', NULL, ARRAY[$2::uuid], ARRAY['Thing'], ARRAY['{}'::jsonb], ARRAY['{}'::jsonb])`, [
          stream,
          randomUUID(),
        ]);
      } finally {
        await client.end();
      }
      expect((await received).streamId).to.equal(stream);
    });
  });
});
