// The analyst's view (issue 20): GET /readModels lists each read model's checkpoint, lag and last
// rebuild; POST /readModels/{readModel}/rebuilds starts a blue-green rebuild of one read model, for a
// project-level key whose access policy allows it explicitly; a second start while it runs is 409;
// GET .../rebuilds/{id} follows it until it has switched; the read model still answers throughout.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';
import { eventually } from '../support/trading.js';

const OTHER_PROJECT = '77777777-7777-4777-8777-777777777777';
const OTHER_KEY = 'read-models-other-project-key-0123456789';
const GRANT = { enabled: true, endpointAccess: { mode: 'ALLOW_LIST', rules: [{ pathPattern: '/readModels/**', method: 'ALL' }] } };

describe('console: the read models, their lag and a blue-green rebuild of one', function () {
  this.timeout(90_000);
  let t: TestService;
  let granted: string;
  let accountKey: string;
  let account: string;

  const keyWith = async (accessPolicy?: Record<string, unknown>) => {
    const res = await t.call('POST', `/projects/${DEFAULT_PROJECT_ID}/apiKeys`, {
      body: { name: 'read models key', ...(accessPolicy ? { accessPolicy } : {}) },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.key as string;
  };

  before(async () => {
    t = await startTestService();
    await createOtherProject(t, OTHER_PROJECT, OTHER_KEY);
    const res = await t.call('POST', '/accounts', { body: validAccount({ alias: 'read models account', loginAccountNumber: `${process.pid}61` }) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    account = res.body.id;
    accountKey = res.headers.get('x-account-api-key')!;
    granted = await keyWith(GRANT);
  });
  after(() => t?.stop());

  it('lists every read model with its generation, checkpoint and lag', async () => {
    const res = await t.call('GET', '/readModels');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const names = res.body.map((m: { name: string }) => m.name);
    expect(names).to.include.members(['accounts', 'copiers', 'positions']);
    expect([...names].sort()).to.deep.equal(names);
    const accounts = res.body.find((m: { name: string }) => m.name === 'accounts');
    expect(accounts.generation).to.be.a('number');
    expect(accounts.checkpoint).to.match(/^\d+:\d+$/);
    expect(accounts.lagSeconds).to.be.a('number');
    expect(accounts.lagEvents).to.be.a('number');
    // Another project's key sees the same machinery and nothing of this project's data.
    const other = await t.call('GET', '/readModels', { key: OTHER_KEY });
    expect(other.status).to.equal(200);
    expect(JSON.stringify(other.body)).to.not.include(account);
  });

  it('refuses account-level keys, keys without an explicit grant, and unknown read models', async () => {
    const expectError = (res: { status: number; body: { error: string; message: string } }, status: number, code: string) => {
      expect(res.status, JSON.stringify(res.body)).to.equal(status);
      expect(res.body.error).to.equal(code);
      expect(res.body.message).to.be.a('string');
    };
    expectError(await t.call('GET', '/readModels', { key: accountKey }), 403, '[PROJECT_LEVEL_API_KEY_REQUIRED]');
    expectError(await t.call('POST', '/readModels/accounts/rebuilds', { key: accountKey }), 403, '[PROJECT_LEVEL_API_KEY_REQUIRED]');
    // The project's key without an access policy has full access elsewhere, not to a shared rebuild.
    expectError(await t.call('POST', '/readModels/accounts/rebuilds'), 403, '[FORBIDDEN_ENDPOINT_NOT_ALLOWED]');
    const denyList = await keyWith({ enabled: true, endpointAccess: { mode: 'DENY_LIST', rules: [{ pathPattern: '/apiKeys/**', method: 'ALL' }] } });
    expectError(await t.call('POST', '/readModels/accounts/rebuilds', { key: denyList }), 403, '[FORBIDDEN_ENDPOINT_NOT_ALLOWED]');
    const readOnly = await keyWith({ enabled: true, endpointAccess: { mode: 'ALLOW_LIST', rules: [{ pathPattern: '/readModels', method: 'GET' }] } });
    expect((await t.call('GET', '/readModels', { key: readOnly })).status).to.equal(200);
    expectError(await t.call('POST', '/readModels/accounts/rebuilds', { key: readOnly }), 403, '[FORBIDDEN_ENDPOINT_NOT_ALLOWED]');
    expectError(await t.call('POST', '/readModels/nonesuch/rebuilds', { key: granted }), 404, '[READ_MODEL_NOT_FOUND]');
    const none = await t.call('GET', '/readModels/accounts/rebuilds/00000000-0000-4000-8000-000000000000', { key: granted });
    expectError(none, 404, '[REBUILD_NOT_FOUND]');
  });

  it('never runs a rebuild twice: while another session (another instance, npm run rebuild) holds the lease, 409', async () => {
    const pg = (await import('pg')).default;
    const other = new pg.Client({ connectionString: t.databaseUrl });
    await other.connect();
    try {
      await other.query(`SELECT pg_advisory_lock(hashtext('projection:copiers'))`);
      const busy = await t.call('POST', '/readModels/copiers/rebuilds', { key: granted });
      expect(busy.status, JSON.stringify(busy.body)).to.equal(409);
      expect(busy.body.error).to.equal('[REBUILD_RUNNING]');
      const list = (await t.call('GET', '/readModels')).body.find((m: { name: string }) => m.name === 'copiers');
      expect(list.lastRebuild).to.equal(null);
    } finally {
      await other.end();
    }
  });

  it('rebuilds one read model blue-green: one at a time, followed to the switch, the read model answering throughout', async () => {
    const before = (await t.call('GET', '/readModels')).body.find((m: { name: string }) => m.name === 'accounts');
    const started = await t.call('POST', '/readModels/accounts/rebuilds', { key: granted });
    expect(started.status, JSON.stringify(started.body)).to.equal(202);
    expect(started.body).to.deep.include({ readModel: 'accounts', state: 'RUNNING', startedByThisProject: true });
    expect(started.body.total).to.be.above(0);
    const again = await t.call('POST', '/readModels/accounts/rebuilds', { key: granted });
    // Either still running (409), or so quick it has switched already: never two at once.
    if (again.status === 409) expect(again.body.error).to.equal('[REBUILD_RUNNING]');
    else {
      expect(again.status).to.equal(202);
      await eventually(
        async () => ((await t.call('GET', `/readModels/accounts/rebuilds/${again.body.id}`, { key: granted })).body.state !== 'RUNNING' ? true : undefined),
        30_000,
        'the second rebuild',
      );
    }
    expect((await t.call('GET', `/accounts/${account}`)).status).to.equal(200);
    const done = await eventually(
      async () => {
        const res = await t.call('GET', `/readModels/accounts/rebuilds/${started.body.id}`, { key: granted });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return res.body.state === 'RUNNING' ? undefined : res.body;
      },
      30_000,
      'the rebuild to switch',
    );
    expect(done).to.deep.include({ state: 'SWITCHED', percent: 100, error: null });
    expect(done.generation).to.be.above(before.generation);
    expect(done.processed).to.be.at.least(done.total);
    const after = (await t.call('GET', '/readModels')).body.find((m: { name: string }) => m.name === 'accounts');
    expect(after.generation).to.be.at.least(done.generation);
    expect(after.lastRebuild.state).to.equal('SWITCHED');
    // The same account, from the new generation.
    expect((await t.call('GET', `/accounts/${account}`)).body.id).to.equal(account);
    // Another project sees the rebuild's progress, not who started it.
    const seen = await t.call('GET', `/readModels/accounts/rebuilds/${started.body.id}`, { key: OTHER_KEY });
    expect(seen.body).to.deep.include({ startedByThisProject: false, startedByApiKeyId: null });
  });
});
