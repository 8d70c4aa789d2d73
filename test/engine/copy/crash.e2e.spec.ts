// Nothing is lost, nothing is doubled: the service process is killed (SIGKILL) in the middle of a burst
// of master trades and started again on the same database. Afterwards every slave holds exactly one
// copy of each position the master holds, and none of a position it does not.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { exitOf, startProcess, type ServiceProcess } from '../../support/process.js';
import { freshDatabase } from '../../support/postgres.js';
import { callService, TEST_KEY, validAccount } from '../../support/service.js';
import { eventually, positionRequest } from '../../support/trading.js';

const BURST = 24;
const KILL_AFTER_ACKNOWLEDGED = 8;
/** Three ways to size and side a copy; every copy is 0.01 lot, so 24 of them fit a 10,000 USD demo account. */
const COPIERS = [{ multiplier: 1 }, { scaleType: { id: 3 }, fixedLotSize: 0.01 }, { reverse: true }] as const;

interface Position {
  readonly id: string;
  readonly comment: string | null;
  readonly volume: number;
  readonly orderType: string;
}

describe('a crash during a burst of master trades', function () {
  this.timeout(240_000);
  let dataDir: string;
  let env: Record<string, string>;
  let service: ServiceProcess | null = null;

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ct-crash-'));
    env = { DATABASE_URL: await freshDatabase(), DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_API_KEY: TEST_KEY };
  });
  after(async () => {
    if (service && service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGKILL');
      await exitOf(service.child);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = (method: string, route: string, body?: unknown) => callService(service!.url, TEST_KEY, method, route, body === undefined ? {} : { body });
  const positions = async (accountId: string): Promise<Position[]> => {
    const res = await call('GET', `/accounts/${accountId}/positions`);
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Position[];
  };

  it('leaves every slave with exactly one copy of each master position, none missing', async () => {
    service = await startProcess(env);
    const account = async (alias: string) => {
      const created = await call('POST', '/accounts', validAccount({ alias, loginServer: 'Crash-Demo', loginAccountNumber: alias }));
      expect(created.status, JSON.stringify(created.body)).to.equal(200);
      expect((await call('POST', `/accounts/${created.body.id}/actions/start`)).status).to.equal(200);
      return created.body.id as string;
    };
    const master = await account('crash-master');
    const slaves: string[] = [];
    for (const [i, settings] of COPIERS.entries()) {
      const slave = await account(`crash-slave-${i}`);
      expect((await call('POST', `/accounts/${slave}/copiers`, { fromAccountId: master, copyOriginalComment: true, ...settings })).status).to.equal(200);
      slaves.push(slave);
    }

    // The burst: BTCUSD trades around the clock. Kill the process once some opens were acknowledged,
    // while the others are in flight.
    let acknowledged = 0;
    const killed = new Promise<void>((resolve) => {
      const burst = Array.from({ length: BURST }, (_, i) =>
        call(
          'POST',
          `/accounts/${master}/positions`,
          positionRequest({ symbol: 'BTCUSD', orderType: i % 2 ? 'Sell' : 'Buy', volume: 0.01, comment: `burst-${i}` }),
        )
          .then((res) => {
            if (res.status === 204) acknowledged += 1;
            if (acknowledged === KILL_AFTER_ACKNOWLEDGED) {
              service!.child.kill('SIGKILL');
              resolve();
            }
          })
          .catch(() => undefined),
      );
      void Promise.all(burst).then(() => resolve());
    });
    await killed;
    await exitOf(service.child);
    expect(acknowledged).to.be.at.least(KILL_AFTER_ACKNOWLEDGED);

    service = await startProcess(env);
    // The master holds what the venue saved; every acknowledged open is among it.
    const held = await positions(master);
    expect(held.length).to.be.at.least(KILL_AFTER_ACKNOWLEDGED);
    const expected = held.map((p) => p.comment).sort();
    expect(new Set(expected).size).to.equal(expected.length);
    const sideOf = new Map(held.map((p) => [p.comment, p.orderType]));

    for (const [i, slave] of slaves.entries()) {
      const book = await eventually(
        async () => {
          const current = await positions(slave);
          return current.length >= expected.length ? current : undefined;
        },
        60_000,
        `slave ${i} to catch up`,
      );
      // Give a late duplicate the chance to show before judging.
      await new Promise((r) => setTimeout(r, 500));
      const final = await positions(slave);
      expect(final.map((p) => p.comment).sort(), `slave ${i}`).to.deep.equal(expected);
      expect(
        final.every((p) => p.volume === 0.01),
        `slave ${i} volumes`,
      ).to.equal(true);
      const reversed = 'reverse' in COPIERS[i]!;
      for (const p of final) {
        const masterSide = sideOf.get(p.comment);
        expect(p.orderType, `slave ${i} ${p.comment}`).to.equal(reversed ? (masterSide === 'Buy' ? 'Sell' : 'Buy') : masterSide);
      }
      expect(book.length).to.equal(expected.length);
    }

    // And the engine goes on from there: a close after the restart is copied.
    expect((await call('POST', `/accounts/${master}/actions/closeAllPositions`)).status).to.equal(204);
    for (const slave of slaves) {
      await eventually(async () => ((await positions(slave)).length === 0 ? true : undefined), 30_000, 'the slaves to close');
    }
    service.child.kill('SIGTERM');
    expect(await exitOf(service.child)).to.equal(0);
  });
});
