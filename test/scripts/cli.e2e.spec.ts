// The commands a person runs: npm start (embedded everything, restart keeps data, clean stop), replay
// and rebuild, each as a real child process.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { exitOf, ROOT, startProcess } from '../support/process.js';
import { accountUpdate, callService, startTestService, type TestService, validAccount, accountStatus } from '../support/service.js';

const run = (script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });

describe('npm start with everything embedded', function () {
  this.timeout(180000);
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ct-start-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints where it listens and a key shown once, keeps every account across a restart, and stops cleanly on SIGTERM and SIGINT', async () => {
    const env = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' };
    const first = await startProcess(env);
    const key = /X-API-KEY: (ct_\S+)/.exec(first.out())?.[1];
    expect(key, first.out()).to.be.a('string');
    const created = await callService(first.url, key!, 'POST', '/accounts', { body: validAccount({ alias: 'survives restarts' }) });
    expect(created.status).to.equal(200);
    const started = await callService(first.url, key!, 'POST', `/accounts/${created.body.id}/actions/start`);
    expect(started.body.status.id).to.equal(2);
    first.child.kill('SIGTERM');
    expect(await exitOf(first.child)).to.equal(0);

    const second = await startProcess(env);
    expect(second.out()).not.to.include('X-API-KEY: ct_');
    const read = await callService(second.url, key!, 'GET', `/accounts/${created.body.id}`);
    expect(read.status).to.equal(200);
    expect(read.body).to.deep.include({ alias: 'survives restarts', ...accountStatus(2) });
    second.child.kill('SIGINT');
    expect(await exitOf(second.child)).to.equal(0);
  });
});

describe('replay and rebuild scripts', function () {
  this.timeout(60000);
  let t: TestService;
  let accountId: string;
  before(async () => {
    t = await startTestService();
    const created = await t.call('POST', '/accounts', { body: validAccount({ alias: 'audited' }), headers: { 'X-Correlation-Id': 'audit-42' } });
    accountId = created.body.id;
    await t.call('POST', `/accounts/${accountId}/actions/start`);
    await t.call('PUT', `/accounts/${accountId}`, { body: accountUpdate(validAccount(), { alias: 'renamed', loginAccountPassword: 'new-secret' }) });
  });
  after(() => t.stop());

  it('replay prints the account events in order, who made them, and the state they fold to, without secrets', async () => {
    const { code, out } = await run('scripts/replay.ts', ['--account', accountId], { DATABASE_URL: t.databaseUrl, DATA_DIR: t.dataDir });
    expect(code).to.equal(0);
    const order = ['#0', 'AccountCreated', '#1', 'AccountStarted', '#2', 'AccountUpdated'].map((s) => out.indexOf(s));
    expect(order.every((p, i) => p >= 0 && (i === 0 || p > order[i - 1]!))).to.equal(true);
    expect(out).to.include('correlation audit-42');
    expect(out).to.include('"alias": "renamed"');
    expect(out).to.include('"status": 2');
    expect(out).not.to.include('secret');
    expect(out).not.to.match(/v1:[A-Za-z0-9+/=]{10,}/);
  });

  it('replay --until stops at that time, and --json gives the same in JSON', async () => {
    const all = await run('scripts/replay.ts', ['--account', accountId, '--json'], { DATABASE_URL: t.databaseUrl, DATA_DIR: t.dataDir });
    const parsed = JSON.parse(all.out) as { events: { created: string; type: string }[] };
    expect(parsed.events.map((e) => e.type)).to.deep.equal(['AccountCreated', 'AccountStarted', 'AccountUpdated']);
    const until = parsed.events[1]!.created;
    const cut = await run('scripts/replay.ts', ['--account', accountId, '--until', until, '--json'], { DATABASE_URL: t.databaseUrl, DATA_DIR: t.dataDir });
    const partial = JSON.parse(cut.out) as { events: unknown[]; state: { settings: { alias: string }; status: number } };
    expect(partial.events).to.have.length(2);
    expect(partial.state.settings.alias).to.equal('audited');
    expect(partial.state.status).to.equal(2);
  });

  it('replay of an unknown account says so and exits non-zero', async () => {
    const { code, err } = await run('scripts/replay.ts', ['--account', crypto.randomUUID()], { DATABASE_URL: t.databaseUrl, DATA_DIR: t.dataDir });
    expect(code).to.equal(1);
    expect(err).to.include('no account');
  });

  it('rebuild of one read model prints a final count while the service keeps answering the same', async () => {
    const before = await t.call('GET', `/accounts/${accountId}`);
    const { code, out } = await run('scripts/rebuild.ts', ['--projection', 'accounts'], { DATABASE_URL: t.databaseUrl, DATA_DIR: t.dataDir });
    expect(code, out).to.equal(0);
    expect(out).to.match(/rebuilt accounts: \d+ events read, 1 applied|rebuilt accounts: \d+ events read, \d+ applied, generation 2/);
    const after = await t.call('GET', `/accounts/${accountId}`);
    expect(after.body).to.deep.equal(before.body);
    const write = await t.call('POST', `/accounts/${accountId}/actions/stop`);
    expect(write.body.status.id).to.equal(3);
  });

  it('rebuild refuses an unknown read model name', async () => {
    const { code, err } = await run('scripts/rebuild.ts', ['--projection', 'nope'], { DATABASE_URL: t.databaseUrl, DATA_DIR: t.dataDir });
    expect(code).to.equal(1);
    expect(err).to.include('unknown read model nope');
  });
});
