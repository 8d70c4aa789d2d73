// Issue 13: staying up when the database blinks. The service runs as a real child process (npm start's
// script), so a crash is an exit we see, and its log is what an operator would read.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../store/postgres/embedded.js';
import { adminConnection, freshDatabase } from '../support/postgres.js';
import { exitOf, startProcess, type ServiceProcess } from '../support/process.js';
import { callService, TEST_KEY, type TestResponse, validAccount } from '../support/service.js';
import { eventually, positionRequest } from '../support/trading.js';

const SLAVES = 5;

interface Position {
  readonly id: string;
  readonly comment: string | null;
}

const stopProcess = async (service: ServiceProcess | null): Promise<void> => {
  if (!service || service.child.exitCode !== null || service.child.signalCode !== null) return;
  service.child.kill('SIGKILL');
  await exitOf(service.child);
};

/** Calls the service, trying again while it answers 503 or the connection drops (what a careful client does). */
const patiently = async (service: ServiceProcess, method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse> => {
  for (let attempt = 0; ; attempt++) {
    const res = await callService(service.url, TEST_KEY, method, route, {
      ...(body === undefined ? {} : { body }),
      ...(headers ? { headers } : {}),
      checkContract: false,
    }).catch(() => null);
    if (res && res.status !== 503) return res;
    if (attempt > 400) throw new Error(`${method} ${route} still unavailable`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** A started master and `SLAVES` started slaves copying it, over HTTP. */
const copyNetwork = async (service: ServiceProcess, name: string) => {
  const account = async (alias: string) => {
    const created = await patiently(service, 'POST', '/accounts', validAccount({ alias, loginServer: 'Fault-Demo', loginAccountNumber: `${name}-${alias}` }));
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    expect((await patiently(service, 'POST', `/accounts/${created.body.id}/actions/start`)).status).to.equal(200);
    return created.body.id as string;
  };
  const master = await account('master');
  const slaves: string[] = [];
  for (let i = 0; i < SLAVES; i++) {
    const slave = await account(`slave-${i}`);
    expect((await patiently(service, 'POST', `/accounts/${slave}/copiers`, { fromAccountId: master, copyOriginalComment: true })).status).to.equal(200);
    slaves.push(slave);
  }
  return { master, slaves };
};

const positionsOf = async (service: ServiceProcess, accountId: string): Promise<Position[]> => {
  const res = await patiently(service, 'GET', `/accounts/${accountId}/positions`);
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Position[];
};

/** Every slave holds exactly one copy of every open master position, and nothing else. */
const expectExactCopies = async (service: ServiceProcess, master: string, slaves: readonly string[], timeoutMs: number): Promise<number> => {
  const expected = (await positionsOf(service, master)).map((p) => p.comment).sort();
  expect(new Set(expected).size).to.equal(expected.length);
  for (const [i, slave] of slaves.entries()) {
    await eventually(
      async () => ((await positionsOf(service, slave)).length >= expected.length ? true : undefined),
      timeoutMs,
      `slave ${i} to hold ${expected.length} copies`,
    );
    // A late duplicate would show within this.
    await new Promise((r) => setTimeout(r, 300));
    expect((await positionsOf(service, slave)).map((p) => p.comment).sort(), `slave ${i}`).to.deep.equal(expected);
  }
  return expected.length;
};

const query = async (connectionString: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> => {
  const client = new pg.Client({ connectionString });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end().catch(() => undefined);
  }
};

describe('database faults', function () {
  this.timeout(240_000);
  const dirs: string[] = [];
  let service: ServiceProcess | null = null;
  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };

  afterEach(async () => {
    await stopProcess(service);
    service = null;
  });
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('survives backends terminated every 200 ms for 10 s during a burst of master trades, and every slave ends with exactly one copy of each open master position (regression: an unheard pg client error ended the process; one dropped read of $all stopped the copy engine for good)', async () => {
    const databaseUrl = await freshDatabase();
    const database = new URL(databaseUrl).pathname.slice(1);
    const admin = await adminConnection();
    service = await startProcess({
      DATABASE_URL: databaseUrl,
      DATA_DIR: tempDir('ct-fault-'),
      PORT: '0',
      HOST: '127.0.0.1',
      BOOTSTRAP_API_KEY: TEST_KEY,
      LOG_LEVEL: 'info',
    });
    const running = service;
    const { master, slaves } = await copyNetwork(running, 'terminate');

    let terminated = 0;
    let terminating = true;
    const terminator = (async () => {
      const until = Date.now() + 10_000;
      while (Date.now() < until) {
        const res = await query(admin, 'SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [
          database,
        ]);
        terminated += Number(res.rows[0].n);
        await new Promise((r) => setTimeout(r, 200));
      }
      terminating = false;
    })();
    // The burst: master opens and closes, each retried with its Idempotency-Key until answered.
    let trades = 0;
    while (terminating) {
      const key = `fault-open-${trades}`;
      const opened = await patiently(
        running,
        'POST',
        `/accounts/${master}/positions`,
        positionRequest({ symbol: 'BTCUSD', orderType: trades % 2 ? 'Sell' : 'Buy', volume: 0.01, comment: `fault-${trades}` }),
        { 'Idempotency-Key': key },
      );
      expect(opened.status, JSON.stringify(opened.body)).to.equal(204);
      trades += 1;
      if (trades % 3 === 0 && opened.status === 204) {
        const id = opened.headers.get('x-position-id');
        await patiently(running, 'DELETE', `/accounts/${master}/positions/${id}`);
      }
    }
    await terminator;
    console.log(`      ${terminated} backends terminated during ${trades} master trades`);
    expect(terminated, 'backends terminated').to.be.greaterThan(20);
    expect(running.child.exitCode, running.out()).to.equal(null);

    const open = await expectExactCopies(running, master, slaves, 60_000);
    expect(open).to.be.greaterThan(0);
    // The consumers said what they did, once per outage rather than once per attempt.
    expect(running.out()).to.match(/resubscribes from|resumed after/);
    running.child.kill('SIGTERM');
    expect(await exitOf(running.child)).to.equal(0);
  });

  describe('with its own PostgreSQL server', () => {
    let server: EmbeddedDatabase | null = null;
    let serverDir: string;
    afterEach(async () => {
      await server?.stop();
      server = null;
    });

    it('answers 503 [DATABASE_UNAVAILABLE] with Retry-After while PostgreSQL is stopped, says so once, and copies again within 10 s of its return', async () => {
      serverDir = tempDir('ct-fault-pg-');
      server = await startEmbeddedPostgres(serverDir);
      const port = server.port;
      service = await startProcess({
        DATABASE_URL: server.connectionString,
        DATA_DIR: tempDir('ct-fault-'),
        PORT: '0',
        HOST: '127.0.0.1',
        BOOTSTRAP_API_KEY: TEST_KEY,
        LOG_LEVEL: 'info',
      });
      const running = service;
      const { master, slaves } = await copyNetwork(running, 'restart');
      await patiently(
        running,
        'POST',
        `/accounts/${master}/positions`,
        positionRequest({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01, comment: 'before' }),
      );
      await expectExactCopies(running, master, slaves, 10_000);

      await server.stop();
      server = null;
      const refused = await eventually(
        async () => {
          const res = await callService(running.url, TEST_KEY, 'GET', '/accounts', { checkContract: false });
          return res.status === 503 ? res : undefined;
        },
        15_000,
        'a 503 while the database is down',
      );
      expect(refused.body.error).to.equal('[DATABASE_UNAVAILABLE]');
      expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
      // Many requests while down, one line in the log.
      for (let i = 0; i < 20; i++)
        expect((await callService(running.url, TEST_KEY, 'GET', `/accounts/${master}`, { checkContract: false })).status).to.equal(503);
      await new Promise((r) => setTimeout(r, 3000));
      expect(running.out().match(/the database is unreachable/g) ?? []).to.have.length(1);
      expect(running.child.exitCode, running.out()).to.equal(null);

      server = await startEmbeddedPostgres(serverDir, { port });
      const back = Date.now();
      await eventually(
        async () => ((await callService(running.url, TEST_KEY, 'GET', '/accounts', { checkContract: false })).status === 200 ? true : undefined),
        10_000,
        'the API to answer again',
      );
      const opened = await patiently(
        running,
        'POST',
        `/accounts/${master}/positions`,
        positionRequest({ symbol: 'BTCUSD', orderType: 'Sell', volume: 0.01, comment: 'after' }),
      );
      expect(opened.status, JSON.stringify(opened.body)).to.equal(204);
      await expectExactCopies(running, master, slaves, Math.max(1000, 10_000 - (Date.now() - back)));
      expect(running.out()).to.match(/the database is reachable again/);
      running.child.kill('SIGTERM');
      expect(await exitOf(running.child)).to.equal(0);
    });
  });

  describe('the embedded PostgreSQL', () => {
    const postmasterOf = async (dataDir: string): Promise<number> => {
      return Number.parseInt(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]!, 10);
    };
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };

    it('is started again when its postmaster dies, and copying goes on', async () => {
      const dataDir = tempDir('ct-fault-embedded-');
      service = await startProcess({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_API_KEY: TEST_KEY, LOG_LEVEL: 'info' });
      const running = service;
      const { master, slaves } = await copyNetwork(running, 'postmaster');
      const first = await postmasterOf(dataDir);
      process.kill(first, 'SIGKILL');
      await eventually(async () => (/the embedded PostgreSQL is running again/.test(running.out()) ? true : undefined), 60_000, 'the restart of PostgreSQL');
      expect(await postmasterOf(dataDir)).to.not.equal(first);
      const opened = await patiently(
        running,
        'POST',
        `/accounts/${master}/positions`,
        positionRequest({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01, comment: 'after-restart' }),
      );
      expect(opened.status, JSON.stringify(opened.body)).to.equal(204);
      await expectExactCopies(running, master, slaves, 15_000);
      running.child.kill('SIGTERM');
      expect(await exitOf(running.child)).to.equal(0);
    });

    it('left running by a service killed with SIGKILL is stopped at the next start, which then succeeds (regression: "the service could not start: undefined")', async () => {
      const dataDir = tempDir('ct-fault-orphan-');
      const env = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_API_KEY: TEST_KEY };
      service = await startProcess(env);
      const orphan = await postmasterOf(dataDir);
      service.child.kill('SIGKILL');
      await exitOf(service.child);
      expect(alive(orphan), 'the postmaster outlives its service').to.equal(true);

      service = await startProcess(env);
      expect(alive(orphan)).to.equal(false);
      expect((await callService(service.url, TEST_KEY, 'GET', '/accounts', { checkContract: false })).status).to.equal(200);
      service.child.kill('SIGTERM');
      expect(await exitOf(service.child)).to.equal(0);
      // Stopped with it: a clean shutdown removes the lock file.
      expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).to.equal(false);
    });
  });
});
