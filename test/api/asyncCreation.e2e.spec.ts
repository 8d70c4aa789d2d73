// Asynchronous account creation end to end (spec "Asynchronous account creation request", "Events" 1,
// "Errors", "Limits"): 202 and the background creation, one creation at a time per project in the order
// accepted (across two instances), the callback with its retries 2 s and 4 s apart, a restart with work
// queued and a callback pending, the 1-hour retention, and the synchronous refusals. Callbacks go to a
// receiver on 127.0.0.1, which ALLOW_PRIVATE_OUTBOUND lets the service reach.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { sql } from 'kysely';
import { eventually } from '../support/trading.js';
import { startTestService, type TestResponse, type TestService, validAccount, accountStatus } from '../support/service.js';

interface Received {
  readonly path: string;
  readonly requestId: string | undefined;
  readonly contentType: string | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a callback body, read freely
  readonly body: any;
  readonly at: number;
}

/** A callback receiver: records every request; a path can be told to fail its first N requests. */
const startReceiver = async () => {
  const received: Received[] = [];
  const failures = new Map<string, number>();
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (chunk: Buffer) => (data += chunk.toString()));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({
        path,
        requestId: req.headers['x-request-id'] as string | undefined,
        contentType: req.headers['content-type'],
        body: data ? JSON.parse(data) : undefined,
        at: Date.now(),
      });
      const left = failures.get(path) ?? 0;
      if (left > 0) {
        failures.set(path, left - 1);
        res.writeHead(500).end('not now');
      } else {
        res.writeHead(204).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    to: (path: string) => received.filter((r) => r.path === path),
    failFirst: (path: string, n: number) => failures.set(path, n),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const PRIVATE_OK = { ALLOW_PRIVATE_OUTBOUND: 'true' };

const expectError = (res: TestResponse, status: number, code: string): void => {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body.error).to.equal(code);
};

const settled = (t: TestService, requestId: string, timeoutMs = 10000) =>
  eventually(
    async () => {
      const res = await t.call('GET', `/accounts/async/${requestId}`);
      return ['COMPLETED', 'FAILED'].includes(res.body.status) ? res.body : undefined;
    },
    timeoutMs,
    `request ${requestId} to complete`,
  );

describe('asynchronous account creation end to end', function () {
  this.timeout(60000);
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver?.close());

  describe('with one service and a second instance on the same database', () => {
    let t: TestService;
    let t2: TestService;
    before(async () => {
      t = await startTestService({ env: PRIVATE_OK });
      t2 = await startTestService({ databaseUrl: t.databaseUrl, dataDir: t.dataDir, env: PRIVATE_OK });
    });
    after(async () => {
      await t2?.stop();
      await t?.stop();
    });

    it('answers 202 with a requestId, creates the account, and POSTs the outcome once with Content-Type and X-Request-Id', async () => {
      const path = '/cb/single';
      const accepted = await t.call('POST', '/accounts', {
        body: validAccount({ alias: 'Async one', loginAccountNumber: '7000001', callbackUrl: receiver.url(path) }),
      });

      expect(accepted.status).to.equal(202);
      expect(accepted.body).to.deep.include({ status: 'QUEUED', startedAt: null, completedAt: null });
      expect(accepted.body).not.to.have.any.keys('account', 'error');
      const { requestId } = accepted.body;
      const done = await settled(t, requestId);
      expect(done).to.deep.include({ requestId, status: 'COMPLETED' });
      expect(done.account).to.deep.include({ alias: 'Async one', loginAccountNumber: '7000001', ...accountStatus(1) });
      const [callback] = await eventually(async () => (receiver.to(path).length ? receiver.to(path) : undefined), 5000, 'the callback');
      expect(callback!.requestId).to.equal(requestId);
      expect(callback!.contentType).to.match(/^application\/json/);
      expect(callback!.body).to.deep.include({ requestId, status: 'COMPLETED' });
      expect(callback!.body.account).to.deep.equal(done.account);
      // the account-level key: its value in the callback only, stored nowhere in clear
      const { id: keyId, key } = callback!.body.accountApiKey;
      expect((await t.call('GET', '/accounts', { key })).body.map((a: { id: string }) => a.id)).to.deep.equal([done.account.id]);
      expect((await t.call('GET', `/accounts/${done.account.id}/apiKeys`)).body[0].id).to.equal(keyId);
      const outbox = await sql<{
        body: string;
        sealed: string | null;
        status: string;
        attempts: number;
      }>`SELECT body, sealed, status, attempts FROM delivery_outbox WHERE id = ${requestId}`.execute(t.service.services.db);
      expect(outbox.rows[0]).to.deep.include({ sealed: null, status: 'DELIVERED', attempts: 1 });
      expect(outbox.rows[0]!.body).not.to.include(key.slice(7));
      expect(JSON.stringify(await t.call('GET', '/accounts/async'))).not.to.include(key.slice(7));
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.to(path)).to.have.length(1);
    });

    it('runs the creations of a project one at a time, in the order accepted, when requests reach two instances at once', async () => {
      // the same login with failIfAccountExistsInProject: the first in order is created, every later one FAILS
      const login = { loginServer: 'Race-Server', loginAccountNumber: '7100001', failIfAccountExistsInProject: true };
      const answers = await Promise.all(
        [0, 1, 2, 3, 4, 5].map((i) =>
          (i % 2 === 0 ? t : t2).call('POST', '/accounts', {
            body: validAccount({ ...login, alias: `racer ${i}`, callbackUrl: receiver.url(`/cb/race/${i}`) }),
          }),
        ),
      );
      expect(answers.map((a) => a.status)).to.deep.equal([202, 202, 202, 202, 202, 202]);
      const ids = new Set(answers.map((a) => a.body.requestId as string));
      for (const id of ids) await settled(t, id);

      const inOrder = (
        (await t2.call('GET', '/accounts/async')).body as {
          requestId: string;
          status: string;
          startedAt: string;
          completedAt: string;
          error?: { error: string };
        }[]
      ).filter((r) => ids.has(r.requestId));
      expect(inOrder).to.have.length(6);
      expect(inOrder.map((r) => r.status)).to.deep.equal(['COMPLETED', 'FAILED', 'FAILED', 'FAILED', 'FAILED', 'FAILED']);
      expect(inOrder.slice(1).map((r) => r.error!.error)).to.deep.equal(Array(5).fill('[ACCOUNT_ALREADY_EXISTS]'));
      for (let i = 1; i < inOrder.length; i++) {
        expect(Date.parse(inOrder[i]!.startedAt), `request ${i} started after ${i - 1} completed`).to.be.at.least(Date.parse(inOrder[i - 1]!.completedAt));
      }
      expect((await t.call('GET', '/accounts?loginServer=Race-Server')).body).to.have.length(1);
      const failed = await eventually(async () => receiver.received.find((r) => r.requestId === inOrder[3]!.requestId), 5000, 'a FAILED callback');
      expect(failed.body).to.deep.equal({ requestId: inOrder[3]!.requestId, status: 'FAILED', error: inOrder[3]!.error });
    });

    it('15 synchronous and 3 asynchronous creations at once all succeed (regression: waiters for the creation lock held every pooled connection and the service hung)', async () => {
      // A hang shows as this spec's timeout; no figure of time is asserted (the machine's speed is not the rule).
      const sync = Array.from({ length: 15 }, (_, i) =>
        t.call('POST', '/accounts', { body: validAccount({ alias: `burst ${i}`, loginAccountNumber: `72000${i}` }) }),
      );
      const queued = [0, 1, 2].map((i) =>
        t2.call('POST', '/accounts', { body: validAccount({ alias: `queued burst ${i}`, callbackUrl: receiver.url(`/cb/burst/${i}`) }) }),
      );
      const answers = await Promise.all([...sync, ...queued]);
      expect(answers.map((a) => a.status)).to.deep.equal([...Array(15).fill(200), 202, 202, 202]);
      for (const a of answers.slice(15)) expect((await settled(t, a.body.requestId)).status).to.equal('COMPLETED');
      // The pool is free again: a read that needs a connection answers.
      expect((await t.call('GET', '/accounts?loginServer=Race-Server')).status).to.equal(200);
    });

    it("refuses bad input synchronously, before any 202, in the spec's order, and queues nothing", async () => {
      const before = (await t.call('GET', '/accounts/async')).body.length;
      const post = (overrides: Record<string, unknown>) => t.call('POST', '/accounts', { body: validAccount(overrides) });

      expectError(await post({ callbackUrl: '' }), 400, '[CALLBACK_URL_REQUIRED]');
      expectError(await post({ callbackUrl: 'not a url' }), 400, '[CALLBACK_URL_INVALID]');
      expectError(await post({ callbackUrl: 'ftp://127.0.0.1/cb' }), 400, '[CALLBACK_URL_INVALID_PROTOCOL]');
      expectError(await post({ callbackUrl: 'not a url', region: { id: 77 } }), 400, '[CALLBACK_URL_INVALID]');
      expectError(await post({ callbackUrl: receiver.url('/cb/never'), region: { id: 77 } }), 404, '[REGION_NOT_FOUND]');
      expectError(await post({ callbackUrl: receiver.url('/cb/never'), type: { id: 99 } }), 404, '[ACCOUNT_TYPE_NOT_FOUND]');
      const accountKey = (await t.call('POST', '/accounts', { body: validAccount() })).headers.get('x-account-api-key')!;
      expectError(
        await t.call('POST', '/accounts', { key: accountKey, body: validAccount({ callbackUrl: receiver.url('/cb/never') }) }),
        403,
        '[ACCOUNT_LEVEL_API_KEY_CANNOT_CREATE_ACCOUNTS]',
      );
      expectError(await t.call('GET', '/accounts/async', { key: accountKey }), 403, '[PROJECT_LEVEL_API_KEY_REQUIRED]');
      expectError(await t.call('GET', '/accounts/async/no-such-request'), 404, '[ASYNC_REQUEST_NOT_FOUND]');

      expect((await t.call('GET', '/accounts/async')).body.length).to.equal(before);
      expect(receiver.to('/cb/never')).to.deep.equal([]);
    });

    it('a callback that fails twice is attempted three times, 2 s and 4 s apart, and acknowledged by the third', async () => {
      const path = '/cb/flaky';
      receiver.failFirst(path, 2);
      const accepted = await t.call('POST', '/accounts', { body: validAccount({ alias: 'Flaky receiver', callbackUrl: receiver.url(path) }) });
      expect(accepted.status).to.equal(202);

      const attempts = await eventually(async () => (receiver.to(path).length >= 3 ? receiver.to(path) : undefined), 12000, 'three attempts');

      const waits = [attempts[1]!.at - attempts[0]!.at, attempts[2]!.at - attempts[1]!.at];
      expect(waits[0], `wait after attempt 1: ${waits[0]} ms`).to.be.within(1800, 3000);
      expect(waits[1], `wait after attempt 2: ${waits[1]} ms`).to.be.within(3800, 5500);
      expect(new Set(attempts.map((a) => a.requestId))).to.deep.equal(new Set([accepted.body.requestId]));
      expect(attempts.map((a) => a.body.status)).to.deep.equal(['COMPLETED', 'COMPLETED', 'COMPLETED']);
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.to(path)).to.have.length(3);
    });
  });

  describe('across a restart, and 1 hour after completion', () => {
    let frozen: number | null = null;
    const clock = () => new Date(frozen ?? Date.now());
    let t: TestService;
    after(() => t?.stop());

    it('work queued and a callback pending when the service stops are both done by the next start', async () => {
      t = await startTestService({ env: PRIVATE_OK, clock, venueTicker: false });
      const pendingPath = '/cb/restart/pending';
      receiver.failFirst(pendingPath, 1);
      const first = await t.call('POST', '/accounts', { body: validAccount({ alias: 'Before restart', callbackUrl: receiver.url(pendingPath) }) });
      await eventually(async () => (receiver.to(pendingPath).length === 1 ? true : undefined), 5000, 'the first attempt');
      // no worker takes the next request: it stays QUEUED until the service is back
      await t.service.services.accountCreations.stop();
      const queuedPath = '/cb/restart/queued';
      const second = await t.call('POST', '/accounts', { body: validAccount({ alias: 'Queued at restart', callbackUrl: receiver.url(queuedPath) }) });
      await new Promise((r) => setTimeout(r, 200));
      expect((await t.call('GET', `/accounts/async/${second.body.requestId}`)).body.status).to.equal('QUEUED');
      await t.stop();

      t = await startTestService({ databaseUrl: t.databaseUrl, dataDir: t.dataDir, env: PRIVATE_OK, clock, venueTicker: false });

      const retried = await eventually(async () => (receiver.to(pendingPath).length === 2 ? receiver.to(pendingPath) : undefined), 8000, 'the second attempt');
      expect(retried.map((r) => r.requestId)).to.deep.equal([first.body.requestId, first.body.requestId]);
      expect(retried[1]!.body.accountApiKey.key).to.match(/^ct_/);
      const queued = await eventually(async () => (receiver.to(queuedPath).length ? receiver.to(queuedPath) : undefined), 8000, 'the queued creation');
      expect(queued).to.have.length(1);
      expect(queued[0]!.body).to.deep.include({ requestId: second.body.requestId, status: 'COMPLETED' });
      expect(queued[0]!.body.account.alias).to.equal('Queued at restart');
      expect((await t.call('GET', '/accounts?alias=restart')).body).to.have.length(2);
    });

    it('a completed request is kept for 1 hour after completion, then no longer retrievable', async () => {
      const accepted = await t.call('POST', '/accounts', { body: validAccount({ alias: 'Short-lived status', callbackUrl: receiver.url('/cb/retention') }) });
      const done = await settled(t, accepted.body.requestId);
      const completedAt = Date.parse(done.completedAt);

      frozen = completedAt + 3600_000 - 1;
      expect((await t.call('GET', `/accounts/async/${accepted.body.requestId}`)).status).to.equal(200);
      frozen = completedAt + 3600_000;
      expectError(await t.call('GET', `/accounts/async/${accepted.body.requestId}`), 404, '[ASYNC_REQUEST_NOT_FOUND]');
      expect((await t.call('GET', '/accounts/async')).body.map((r: { requestId: string }) => r.requestId)).not.to.include(accepted.body.requestId);
      // the account itself stays
      expect((await t.call('GET', `/accounts/${done.account.id}`)).status).to.equal(200);
    });
  });

  describe('outbound safety (ALLOW_PRIVATE_OUTBOUND not set)', () => {
    let t: TestService;
    before(async () => {
      t = await startTestService();
    });
    after(() => t?.stop());

    it('refuses callback URLs that are or resolve to loopback, private, link-local or metadata addresses: 400 [CALLBACK_URL_NOT_ALLOWED]', async () => {
      for (const callbackUrl of [
        receiver.url('/cb/refused'),
        'http://2130706433/cb',
        'http://0177.0.0.1/cb',
        'http://0x7f.1/cb',
        'http://127.1/cb',
        'http://[::1]/cb',
        'http://[::ffff:127.0.0.1]/cb',
        'http://[::ffff:7f00:1]/cb',
        'http://localhost/cb',
        'http://169.254.169.254/latest/meta-data/',
        'http://10.1.2.3/cb',
        'http://100.64.0.1/cb',
        'http://[fd00::1]/cb',
        'http://user:pw@example.com/cb',
      ]) {
        expectError(await t.call('POST', '/accounts', { body: validAccount({ callbackUrl }) }), 400, '[CALLBACK_URL_NOT_ALLOWED]');
      }
      // the region and type codes come first (spec "Errors" 1)
      expectError(
        await t.call('POST', '/accounts', { body: validAccount({ callbackUrl: 'http://127.0.0.1/cb', region: { id: 77 } }) }),
        404,
        '[REGION_NOT_FOUND]',
      );
      expect((await t.call('GET', '/accounts/async')).body).to.deep.equal([]);
      expect(receiver.to('/cb/refused')).to.deep.equal([]);
    });
  });
});
