// Account creation while the read models lag behind its write (READ_MODEL_WAIT_MS passed, as under heavy
// load): the answer (POST /accounts, its callback, GET /accounts/async/{requestId}) carries the account
// created, never 404 [ACCOUNT_NOT_FOUND] or no account (a client told so would create it again), and
// reads show the same account once the read models catch up.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { eventually } from '../support/trading.js';
import { startTestService, type TestService, validAccount } from '../support/service.js';

describe('account creation while the read models lag behind the write', function () {
  this.timeout(180_000);
  let t: TestService;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- callback bodies, read freely
  const callbacks: any[] = [];
  let receiver: http.Server;

  before(async () => {
    receiver = http.createServer((req, res) => {
      let data = '';
      req.on('data', (chunk: Buffer) => (data += chunk.toString()));
      req.on('end', () => {
        callbacks.push(JSON.parse(data));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    t = await startTestService({ env: { READ_MODEL_WAIT_MS: '300', ALLOW_PRIVATE_OUTBOUND: 'true' } });
  });
  after(async () => {
    await t?.stop();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  /**
   * Runs `work` while the accounts read model's registry row is locked, as a rebuild's switch locks it:
   * the runner cannot apply a batch to that read model until `work` is done.
   */
  const whileAccountsLag = async <T>(work: () => Promise<T>): Promise<T> => {
    const pg = (await import('pg')).default;
    const holder = new pg.Client({ connectionString: t.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM projection_registry WHERE name = 'accounts' FOR UPDATE`);
      return await work();
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  };

  /** The account as GET /accounts/{accountId} reads it once the accounts read model includes every write so far. */
  const readOnceCaughtUp = async (accountId: string) => {
    const { store, runner } = t.service.services;
    const head = await store.lastCommittedPosition();
    expect(await runner.waitFor(head!, 120_000, ['accounts']), 'the accounts read model catches up').to.equal(true);
    const read = await t.call('GET', `/accounts/${accountId}`);
    expect(read.status, JSON.stringify(read.body)).to.equal(200);
    return read.body;
  };

  it('POST /accounts answers the account it created; reads give the same account once the read models reach the write', async () => {
    const created = await whileAccountsLag(async () => {
      const res = await t.call('POST', '/accounts', {
        body: validAccount({ loginServer: 'Lag-Server', loginAccountNumber: '700001', labels: ['lagging'], proxy: { host: 'proxy.example', port: 3128 } }),
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      // The lag was real: the read model has no such account yet.
      expect((await t.call('GET', `/accounts/${res.body.id}`)).status).to.equal(404);
      return res;
    });
    expect(created.body).to.deep.include({ loginServer: 'Lag-Server', loginAccountNumber: '700001', alias: 'Main account', labels: ['lagging'] });
    expect(created.body.status).to.deep.equal({ id: 1, name: 'New' });
    expect(created.body.proxy).to.deep.include({ host: 'proxy.example', port: 3128 });
    expect(created.body).to.deep.equal(await readOnceCaughtUp(created.body.id));
    // The account-level key answered with the creation works.
    const own = await t.call('GET', `/accounts/${created.body.id}`, { key: created.headers.get('X-Account-Api-Key') });
    expect(own.status).to.equal(200);
  });

  it('failIfAccountExistsInProject is not judged on a lagging read model: 503 [READ_MODELS_BEHIND], nothing created; then 409', async () => {
    const body = validAccount({ loginServer: 'Lag-Server', loginAccountNumber: '700003', failIfAccountExistsInProject: true });
    const { first, duplicate } = await whileAccountsLag(async () => {
      const first = await t.call('POST', '/accounts', { body });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      const beyondReference = 'a 503 the reference does not list: the duplicate check waits for the read models';
      return { first, duplicate: await t.call('POST', '/accounts', { body, beyondReference }) };
    });
    expect(duplicate.status, JSON.stringify(duplicate.body)).to.equal(503);
    expect(duplicate.body.error).to.equal('[READ_MODELS_BEHIND]');
    expect(duplicate.headers.get('Retry-After')).to.equal('5');
    await readOnceCaughtUp(first.body.id);
    const again = await t.call('POST', '/accounts', { body });
    expect(again.status, JSON.stringify(again.body)).to.equal(409);
    expect(again.body.error).to.equal('[ACCOUNT_ALREADY_EXISTS]');
    const accounts = (await t.call('GET', '/accounts?loginServer=Lag-Server')).body as { loginAccountNumber: string }[];
    expect(accounts.filter((a) => a.loginAccountNumber === '700003')).to.have.length(1);
  });

  it('an asynchronous creation completes with the account in its callback and its status', async () => {
    const port = (receiver.address() as AddressInfo).port;
    const { completed, callback } = await whileAccountsLag(async () => {
      const accepted = await t.call('POST', '/accounts', {
        body: validAccount({ loginServer: 'Lag-Server', loginAccountNumber: '700002', callbackUrl: `http://127.0.0.1:${port}/cb` }),
      });
      expect(accepted.status, JSON.stringify(accepted.body)).to.equal(202);
      const { requestId } = accepted.body;
      const callback = await eventually(async () => callbacks.find((c) => c.requestId === requestId), 60_000, 'the callback');
      const completed = (await t.call('GET', `/accounts/async/${requestId}`)).body;
      expect((await t.call('GET', `/accounts/${completed.account?.id}`)).status, 'the lag was real').to.equal(404);
      return { completed, callback };
    });
    expect(completed.status).to.equal('COMPLETED');
    expect(completed.account).to.deep.include({ loginServer: 'Lag-Server', loginAccountNumber: '700002' });
    expect(callback.status).to.equal('COMPLETED');
    expect(callback.account).to.deep.include({ id: completed.account.id, loginServer: 'Lag-Server', loginAccountNumber: '700002' });
    expect(callback.accountApiKey).to.be.an('object');
    const read = await readOnceCaughtUp(completed.account.id);
    expect(completed.account).to.deep.equal(read);
  });
});
