// The pool every connection of the service comes from (store/postgres/pool.ts): an idle connection
// stays open across the gaps between background rounds (pg's own default closed it after 10 s).
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPool, POOL_IDLE_TIMEOUT_MS } from '../../store/postgres/pool.js';
import { freshDatabase } from '../support/postgres.js';

describe('the service pool', function () {
  this.timeout(180_000);

  it('keeps an idle connection open past pg’s 10 s default, for POOL_IDLE_TIMEOUT_MS', async () => {
    expect(POOL_IDLE_TIMEOUT_MS).to.equal(60_000);
    const pool = createPool(await freshDatabase(), 2);
    try {
      const pid = async (): Promise<number> => (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const first = await pid();
      await sleep(11_000);
      expect(pool.totalCount).to.equal(1);
      expect(await pid()).to.equal(first);
    } finally {
      await pool.end();
    }
  });
});
