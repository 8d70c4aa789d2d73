// Leases on partitions of background work (store/postgres/leases.ts) against a real PostgreSQL: one
// holder at a time, a standby that takes over when the holder lets go or its session dies.
import { expect } from 'chai';
import pg from 'pg';
import { Leases } from '../../store/postgres/leases.js';
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
});
