// Leases on partitions of background work (store/postgres/leases.ts) against a real PostgreSQL: one
// holder at a time, a standby that takes over when the holder lets go or its session dies.
import { expect } from 'chai';
import pg from 'pg';
import { Leases, preferredOwner } from '../../store/postgres/leases.js';
import { adminConnection, freshDatabase } from '../support/postgres.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

const eventually = async (check: () => boolean, ms: number, what: string): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** Work that runs until its lease ends, counting its terms. */
const worker = () => {
  const state = { terms: 0, running: false };
  const work = async (signal: AbortSignal): Promise<void> => {
    state.terms += 1;
    state.running = true;
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    state.running = false;
  };
  return { state, work };
};

describe('leases', () => {
  let url: string;
  before(async () => {
    url = await freshDatabase();
  });

  it('gives a partition to one instance at a time, and to the standby once the holder lets go', async () => {
    const a = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    const b = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    const wa = worker();
    const wb = worker();
    try {
      const ha = a.hold('partition', wa.work);
      await eventually(() => wa.state.running, 5000, 'the first holder');
      b.hold('partition', wb.work);
      await new Promise((r) => setTimeout(r, 300));
      expect(wb.state.terms, 'the standby works while the holder holds').to.equal(0);
      expect(b.holds('partition')).to.equal(false);
      await ha.release();
      expect(wa.state.running).to.equal(false);
      await eventually(() => wb.state.running, 5000, 'the standby to take over');
      expect(b.holds('partition')).to.equal(true);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('ends the work when the holding session dies, and a standby takes the partition over', async () => {
    const a = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    const b = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    const wa = worker();
    const wb = worker();
    try {
      a.hold('dies', wa.work);
      await eventually(() => wa.state.running, 5000, 'the first holder');
      b.hold('dies', wb.work);
      // The holder's backend is terminated, as when its machine or network goes.
      const admin = new pg.Client({ connectionString: await adminConnection(new URL(url).pathname.slice(1)) });
      await admin.connect();
      try {
        await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        );
      } finally {
        await admin.end();
      }
      await eventually(() => !wa.state.running, 5000, 'the holder to stop working');
      await eventually(() => (wa.state.running ? 1 : 0) + (wb.state.running ? 1 : 0) === 1, 5000, 'one instance to work the partition again');
      expect(a.holds('dies') && b.holds('dies')).to.equal(false);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('keeps partitions apart: each name has its own holder', async () => {
    const a = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    const b = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    const w1 = worker();
    const w2 = worker();
    try {
      a.hold('one', w1.work);
      b.hold('two', w2.work);
      await eventually(() => w1.state.running && w2.state.running, 5000, 'both partitions to be worked');
    } finally {
      await a.stop();
      await b.stop();
    }
  });
  it("spreads a set of partitions fairly over the live instances, gives surplus to a newcomer, and takes a dead instance's share", async () => {
    const names = Array.from({ length: 6 }, (_, i) => `share/${i}`);
    const working = new Map<string, string>();
    const shareOf = (leases: Leases, who: string) =>
      leases.holdShare(names, async (name, signal) => {
        expect(working.has(name), `${name} worked twice at once`).to.equal(false);
        working.set(name, who);
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        working.delete(name);
      });
    const count = (who: string) => [...working.values()].filter((w) => w === who).length;
    const a = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    const b = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    const c = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    try {
      const first = shareOf(a, 'a');
      await first.decided;
      expect(count('a'), 'alone, an instance takes every partition in its first round').to.equal(6);
      shareOf(b, 'b');
      shareOf(c, 'c');
      await eventually(() => count('a') === 2 && count('b') === 2 && count('c') === 2, 5000, 'two partitions each');
      // c's session ends as when its process is killed: a and b take its partitions.
      const admin = new pg.Client({ connectionString: await adminConnection(new URL(url).pathname.slice(1)) });
      await admin.connect();
      try {
        await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [`ct-leases:${c.instanceId}`]);
      } finally {
        await admin.end();
      }
      await c.stop();
      await eventually(() => count('a') === 3 && count('b') === 3, 5000, 'the survivors to hold three each');
    } finally {
      await a.stop();
      await b.stop();
      await c.stop();
    }
  });

  it('checks the session with one statement a heartbeat: the live read, no SELECT 1 beside it', async () => {
    // Every statement the lease session sends, by text.
    const sent: string[] = [];
    const leases = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50, instanceId: 'one-statement' });
    const original = pg.Client.prototype.query;
    const spy = function (this: pg.Client, ...args: unknown[]) {
      if ((this as unknown as { connectionParameters: { application_name?: string } }).connectionParameters.application_name === 'ct-leases:one-statement')
        sent.push(String(typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string }).text));
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
    pg.Client.prototype.query = spy as typeof original;
    const w = worker();
    try {
      leases.hold('beats', w.work);
      const share = leases.holdShare(['beats/0'], async (_name, signal) => {
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      });
      await share.decided;
      await eventually(() => w.state.running, 5000, 'the lease');
      const start = sent.length;
      await eventually(() => sent.slice(start).filter((text) => text.includes('pg_stat_activity')).length >= 10, 10_000, 'ten live reads');
      expect(
        sent.slice(start).filter((text) => /^\s*SELECT 1\s*$/.test(text)),
        'no SELECT 1 heartbeat',
      ).to.deep.equal([]);
      expect(leases.sessionFresh, 'the live reads confirm the session').to.equal(true);
      await share.release();
    } finally {
      pg.Client.prototype.query = original;
      await leases.stop();
    }
  });

  it("takes a dead instance's partitions at its next heartbeat, not only after its round's pause", async () => {
    // A database of its own: the live instances are every lease session of the database.
    const own = await freshDatabase();
    const names = ['beat/0', 'beat/1'];
    const working = new Map<string, string>();
    const shareOf = (leases: Leases, who: string) =>
      leases.holdShare(names, async (name, signal) => {
        working.set(name, who);
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        if (working.get(name) === who) working.delete(name);
      });
    const count = (who: string) => [...working.values()].filter((w) => w === who).length;
    // Rounds a minute apart: only a heartbeat that saw the live instances change ends their pause.
    const a = new Leases(own, quiet, { retryMs: 60_000, heartbeatMs: 50, instanceId: 'beat-a' });
    const b = new Leases(own, quiet, { retryMs: 60_000, heartbeatMs: 50, instanceId: 'beat-b' });
    const wb = worker();
    try {
      await shareOf(a, 'a').decided;
      expect(count('a')).to.equal(2);
      // b holds a lease of its own (so it beats) and offers to share; its first round finds both taken.
      b.hold('beat-b-own', wb.work);
      await eventually(() => wb.state.running, 5000, "b's own lease");
      await shareOf(b, 'b').decided;
      // a's heartbeat sees b come and a gives one partition back at once (its round would wait a minute).
      await eventually(() => count('a') === 1, 20_000, 'a to give one partition back');
      const admin = new pg.Client({ connectionString: await adminConnection(new URL(own).pathname.slice(1)) });
      await admin.connect();
      try {
        await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'ct-leases:beat-a'`);
      } finally {
        await admin.end();
      }
      await eventually(() => count('b') === 2, 20_000, "b to take a's partitions");
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it("spreads the spread leases over the live instances, each at the one preferred for it, and moves a dead instance's to the survivors", async () => {
    const names = ['spread-a', 'spread-b', 'spread-c', 'spread-d', 'spread-e', 'spread-f'];
    const ids = ['x', 'y', 'z'];
    const working = new Map<string, string>();
    // A database of its own: the live instances are every lease session of the database.
    const own = await freshDatabase();
    const instances = ids.map((id) => new Leases(own, quiet, { retryMs: 50, heartbeatMs: 50, instanceId: `spread-${id}`, spread: names }));
    const holding = () => new Map(names.map((name) => [name, working.get(name)]));
    const expectedWith = (live: readonly string[]) => new Map(names.map((name) => [name, preferredOwner(name, live)]));
    try {
      for (const leases of instances) {
        for (const name of names) {
          leases.hold(name, async (signal) => {
            expect(working.has(name), `${name} worked twice at once`).to.equal(false);
            working.set(name, leases.instanceId);
            await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
            working.delete(name);
          });
        }
      }
      const all = ids.map((id) => `spread-${id}`);
      await eventually(() => JSON.stringify([...holding()]) === JSON.stringify([...expectedWith(all)]), 10_000, 'each lease at its preferred instance').catch(
        async (error: unknown) => {
          throw new Error(`${String(error)}: held ${JSON.stringify([...holding()])}, live ${JSON.stringify(await instances[0]!.liveIds())}`);
        },
      );
      expect(new Set(working.values()).size, 'the leases are not all at one instance').to.be.greaterThan(1);
      await instances[2]!.stop();
      const survivors = all.slice(0, 2);
      await eventually(() => JSON.stringify([...holding()]) === JSON.stringify([...expectedWith(survivors)]), 10_000, 'the survivors to hold every lease');
    } finally {
      for (const leases of instances) await leases.stop();
    }
  });
});
