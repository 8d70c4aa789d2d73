// Audit logs end to end: GET /accounts/{accountId}/auditLogs and GET /projects/{projectId}/auditLogs
// record every change made through the API with who, from where, what and when, and the reference's
// request members (endpoint, status, duration, headers and body with every secret masked).
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import {
  accountUpdate,
  type CallOptions,
  type TestResponse,
  type TestService,
  TEST_KEY,
  createOtherProject,
  startTestService,
  validAccount,
} from '../support/service.js';

const OTHER_PROJECT_ID = '33333333-3333-4333-8333-333333333333';
const OTHER_KEY = 'audit-other-project-key-0123456789';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FIRST_PASSWORD = 'first-secret-password';
const SECOND_PASSWORD = 'second-secret-password';
/** The members of an entry a request made (the system's own entries have no request members, no key, no method). */
const AUDIT_MEMBERS = ['id', 'created', 'timestamp', 'action', 'changes', 'projectId', 'projectName', 'apiKeyUuid', 'clientIp', 'path', 'correlationId'];
const KEY_MEMBERS = ['apiKeyId', 'apiKeyAlias'];
const REQUEST_MEMBERS = [
  'method',
  'requestId',
  'endpoint',
  'statusCode',
  'success',
  'durationMs',
  'ipAddress',
  'userAgent',
  'serverHost',
  'requestHeaders',
  'requestBodySize',
  'responseBodySize',
];

interface AuditLog {
  id: string;
  created: string;
  action: string;
  changes: Record<string, unknown>;
  timestamp: string;
  accountId?: string;
  accountAlias?: string;
  projectId: string;
  projectName: string;
  apiKeyId?: number;
  apiKeyAlias?: string;
  apiKeyUuid: string | null;
  clientIp: string | null;
  method?: string;
  path: string | null;
  correlationId: string | null;
  endpoint?: string;
  statusCode?: number;
  success?: boolean;
  durationMs?: number;
  requestHeaders?: string;
  requestBody?: string;
  requestBodySize?: number;
}

const expectError = (res: TestResponse, status: number, code: string): void => {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(Object.keys(res.body).filter((k) => k !== 'details')).to.have.members(['error', 'message']);
  expect(res.body.error).to.equal(code);
  expect(res.body.message).to.be.a('string').and.not.equal('');
};

describe('audit logs end to end', () => {
  let t: TestService;
  let a: string;
  let b: string;
  let accountA: Record<string, unknown> & { type: { id: number }; region: { id: number } };
  let testKeyId: string;
  let testKeyNumber: number;

  /** Each write waits a little first, so entries never share a millisecond and date windows are exact. */
  const write = async (method: string, route: string, options?: CallOptions): Promise<TestResponse> => {
    await sleep(15);
    const res = await t.call(method, route, options);
    expect(res.status, `${method} ${route}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 204]);
    return res;
  };
  const logsOf = async (route: string, options?: CallOptions): Promise<AuditLog[]> => {
    const res = await t.call('GET', route, options);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as AuditLog[];
  };
  const accountLogs = (accountId: string, query = '') => logsOf(`/accounts/${accountId}/auditLogs${query}`);
  const projectLogs = (query = '') => logsOf(`/projects/${DEFAULT_PROJECT_ID}/auditLogs${query}`);

  before(async () => {
    t = await startTestService();
    await createOtherProject(t, OTHER_PROJECT_ID, OTHER_KEY);
    // Given: account A is created, renamed with a new password, started, stopped, started and reconnected;
    // account B is created and deleted; the other project has an account of its own.
    const created = await write('POST', '/accounts', {
      body: validAccount({ alias: 'Audit A', loginAccountPassword: FIRST_PASSWORD, loginServer: 'Audit-Server', dedicatedIp: { dedicatedProxyServerId: 44 } }),
      headers: { 'X-Correlation-Id': 'corr-create-a' },
    });
    accountA = created.body;
    a = created.body.id;
    await write('PUT', `/accounts/${a}`, {
      body: accountUpdate(accountA, { alias: 'Audit A renamed', loginAccountPassword: SECOND_PASSWORD }),
      headers: { 'X-Correlation-Id': 'corr-update-a' },
    });
    await write('POST', `/accounts/${a}/actions/start`);
    await write('POST', `/accounts/${a}/actions/stop`);
    await write('POST', `/accounts/${a}/actions/start`);
    await write('POST', `/accounts/${a}/actions/reconnect`, { headers: { 'X-Correlation-Id': 'corr-reconnect-a' } });
    b = (await write('POST', '/accounts', { body: validAccount({ alias: 'Audit B' }) })).body.id;
    await write('DELETE', `/accounts/${b}`);
    await write('POST', '/accounts', { body: validAccount({ alias: 'Elsewhere' }), key: OTHER_KEY });

    const issued = (await projectLogs('?limit=1000')).find((l) => l.action === 'ApiKeyIssued' && l.changes.name === 'bootstrap key (BOOTSTRAP_API_KEY)');
    expect(issued, 'the ApiKeyIssued entry of the test key').not.to.equal(undefined);
    testKeyId = issued!.changes.apiKeyId as string;
    testKeyNumber = (await t.call('GET', '/apiKeys/current')).body.numericId;
  });
  after(async () => {
    await t?.stop();
  });

  describe('GET /accounts/{accountId}/auditLogs', () => {
    it('lists the changes of the account newest first', async () => {
      const logs = await accountLogs(a);

      expect(logs.map((l) => l.action)).to.deep.equal([
        'AccountReconnectRequested',
        'AccountStarted',
        'AccountStopped',
        'AccountStarted',
        'AccountUpdated',
        'AccountCreated',
      ]);
      const times = logs.map((l) => Date.parse(l.created));
      expect(times).to.deep.equal([...times].sort((x, y) => y - x));
      expect(new Set(times).size).to.equal(times.length);
    });

    it('each entry is an AuditLogDTO naming the account, the project, the key, the client and the request', async () => {
      const logs = await accountLogs(a);
      const creation = logs.at(-1)!;

      for (const log of logs) {
        expect(Object.keys(log)).to.include.members([...AUDIT_MEMBERS, ...KEY_MEMBERS, ...REQUEST_MEMBERS, 'accountId', 'accountAlias']);
        expect(log.id).to.match(UUID);
        expect(new Date(log.created).toISOString()).to.equal(log.created);
        expect(log.timestamp).to.equal(log.created);
        expect(log).to.deep.include({
          accountId: a,
          accountAlias: 'Audit A renamed',
          projectId: DEFAULT_PROJECT_ID,
          projectName: 'Default project',
          apiKeyId: testKeyNumber,
          apiKeyAlias: 'bootstrap key (BOOTSTRAP_API_KEY)',
          apiKeyUuid: testKeyId,
          clientIp: '127.0.0.1',
          ipAddress: '127.0.0.1',
          serverHost: os.hostname(),
          success: true,
        });
        expect(log.statusCode).to.be.oneOf([200, 204]);
      }
      expect(testKeyId).to.match(UUID);
      expect(testKeyNumber).to.be.a('number').that.satisfies(Number.isSafeInteger);
      expect(creation).to.deep.include({ action: 'AccountCreated', method: 'POST', path: '/rest/api/v1/accounts', correlationId: 'corr-create-a' });
      expect(logs[0]).to.deep.include({
        action: 'AccountReconnectRequested',
        method: 'POST',
        path: `/rest/api/v1/accounts/${a}/actions/reconnect`,
        correlationId: 'corr-reconnect-a',
        changes: {},
      });
      expect(logs[4]).to.deep.include({ action: 'AccountUpdated', method: 'PUT', path: `/rest/api/v1/accounts/${a}`, correlationId: 'corr-update-a' });
    });

    it('carries the request that made the change: endpoint, query, status, duration, headers and body with every secret masked', async () => {
      const update = (await accountLogs(a)).find((l) => l.action === 'AccountUpdated')!;

      expect(update).to.deep.include({ endpoint: `/rest/api/v1/accounts/${a}`, method: 'PUT', statusCode: 200, success: true });
      expect(update.durationMs).to.be.a('number').at.least(0);
      const headers = JSON.parse(update.requestHeaders!) as Record<string, string>;
      expect(headers).to.deep.include({ 'x-api-key': '********', 'x-correlation-id': 'corr-update-a', 'content-type': 'application/json' });
      const sent = accountUpdate(accountA, { alias: 'Audit A renamed', loginAccountPassword: SECOND_PASSWORD });
      expect(JSON.parse(update.requestBody!)).to.deep.equal({ ...sent, loginAccountPassword: '********' });
      expect(update.requestBodySize).to.equal(Buffer.byteLength(JSON.stringify(sent)));
      const started = (await accountLogs(a)).find((l) => l.action === 'AccountStarted')!;
      expect(started).not.to.have.property('requestBody');
      expect(started).to.deep.include({ endpoint: `/rest/api/v1/accounts/${a}/actions/start`, requestBodySize: 0 });
    });

    it('the creation entry lists every member set, with the password masked as ***', async () => {
      const creation = (await accountLogs(a)).at(-1)!;

      expect(creation.changes).to.deep.equal({
        loginServer: 'Audit-Server',
        loginAccountNumber: accountA.loginAccountNumber,
        loginAccountPassword: '***',
        alias: 'Audit A',
        accountTypeId: accountA.type.id,
        regionId: accountA.region.id,
        propFirm: false,
        tradingDisabled: false,
        nativeMode: false,
        closeUnmanagedPositions: false,
        dedicatedIp: { dedicatedProxyServerId: 44 },
        myHomeIp: null,
        proxy: null,
        labels: [],
        skipCredentialCheck: false,
        ctraderClientId: null,
        ctraderClientSecret: null,
      });
    });

    it('an update entry lists only the members changed, with the new password masked as ***', async () => {
      const update = (await accountLogs(a)).find((l) => l.action === 'AccountUpdated')!;

      expect(update.changes).to.deep.equal({ alias: 'Audit A renamed', loginAccountPassword: '***' });
    });

    it('no audit entry, of the account or the project, contains a password or its ciphertext', async () => {
      const text = JSON.stringify([await accountLogs(a), await projectLogs('?limit=1000')]);

      expect(text).not.to.include(FIRST_PASSWORD);
      expect(text).not.to.include(SECOND_PASSWORD);
      expect(text).not.to.include('passwordCiphertext');
      expect(text).not.to.include('keyHash');
      expect(text).not.to.include(TEST_KEY);
    });

    it('records a status change as { accountStatusId: { from, to } }', async () => {
      const statusChanges = (await accountLogs(a)).filter((l) => ['AccountStarted', 'AccountStopped'].includes(l.action));
      const deletion = (await accountLogs(b))[0]!;

      expect(statusChanges.map((l) => l.changes)).to.deep.equal([
        { accountStatusId: { from: 3, to: 2 } },
        { accountStatusId: { from: 2, to: 3 } },
        { accountStatusId: { from: 1, to: 2 } },
      ]);
      expect(deletion).to.deep.include({ action: 'AccountDeleted', changes: { accountStatusId: { from: 1, to: 4 } } });
      expect(deletion.method).to.equal('DELETE');
    });

    it('stays readable after the account is deleted', async () => {
      const logs = await accountLogs(b);

      expect(logs.map((l) => l.action)).to.deep.equal(['AccountDeleted', 'AccountCreated']);
      expect(logs.map((l) => l.accountAlias)).to.deep.equal(['Audit B', 'Audit B']);
    });

    it('limit and offset page through the same newest-first order', async () => {
      const all = await accountLogs(a);

      expect(await accountLogs(a, '?limit=2')).to.deep.equal(all.slice(0, 2));
      expect(await accountLogs(a, '?offset=4')).to.deep.equal(all.slice(4));
      expect(await accountLogs(a, '?limit=3&offset=1')).to.deep.equal(all.slice(1, 4));
      expect(await accountLogs(a, '?offset=6')).to.deep.equal([]);
    });

    it('startDate and endDate keep the entries inside the window, both ends included', async () => {
      const all = await accountLogs(a);
      const [newest, , stopped, , updated, oldest] = all;
      const q = (start?: string, end?: string) =>
        '?' + [start && `startDate=${encodeURIComponent(start)}`, end && `endDate=${encodeURIComponent(end)}`].filter(Boolean).join('&');

      expect(await accountLogs(a, q(updated!.created, stopped!.created))).to.deep.equal(all.slice(2, 5));
      expect(await accountLogs(a, q(stopped!.created))).to.deep.equal(all.slice(0, 3));
      expect(await accountLogs(a, q(undefined, updated!.created))).to.deep.equal(all.slice(4));
      expect(await accountLogs(a, q(newest!.created, newest!.created))).to.deep.equal([newest]);
      expect(await accountLogs(a, q(oldest!.created, newest!.created))).to.deep.equal(all);
      const later = new Date(Date.parse(newest!.created) + 1).toISOString();
      expect(await accountLogs(a, q(later))).to.deep.equal([]);
    });

    it('accepts dates with an offset other than Z', async () => {
      const all = await accountLogs(a);
      const stopped = all[2]!;
      const sameInstantAtPlusOne = new Date(Date.parse(stopped.created) + 3_600_000).toISOString().replace('Z', '+01:00');

      expect(await accountLogs(a, `?startDate=${encodeURIComponent(sameInstantAtPlusOne)}&endDate=${encodeURIComponent(sameInstantAtPlusOne)}`)).to.deep.equal([
        stopped,
      ]);
    });

    it('startDate after endDate gives 400 [VALIDATION_FAILED]', async () => {
      const res = await t.call('GET', `/accounts/${a}/auditLogs?startDate=2030-01-02T00:00:00Z&endDate=2030-01-01T00:00:00Z`);

      expectError(res, 400, '[VALIDATION_FAILED]');
    });

    it('reads add no entry; refused writes are listed as requests (ApiRequestRefused), every secret masked', async () => {
      const before = await projectLogs('?limit=1000');

      await t.call('GET', `/accounts/${a}`);
      await t.call('GET', '/accounts');
      expect(await projectLogs('?limit=1000'), 'reads are not listed').to.deep.equal(before);

      await sleep(15);
      const deleted = await t.call('PUT', `/accounts/${b}`, { body: { alias: 'refused', loginAccountPassword: 'refused-secret-password' } });
      expect(deleted.status).to.be.within(400, 499);
      await sleep(15);
      const invalid = await t.call('POST', '/accounts?apiKey=query-secret-value&verbose=1', {
        body: validAccount({ region: { id: 77 }, loginAccountPassword: 'refused-secret-password' }),
      });
      expect(invalid.status).to.equal(400);

      const after = await projectLogs('?limit=1000');
      const added = after.slice(0, after.length - before.length);
      expect(after.slice(added.length), 'the earlier entries stay as they were').to.deep.equal(before);
      expect(added.map((l) => [l.action, l.method, l.statusCode, l.success, l.accountId ?? null])).to.deep.equal([
        ['ApiRequestRefused', 'POST', 400, false, null],
        ['ApiRequestRefused', 'PUT', deleted.status, false, b],
      ]);
      const [post, put] = added as (AuditLog & { errorMessage?: string; responseBody?: string; queryString?: string; requestId?: string })[];
      expect(post).to.deep.include({ endpoint: '/rest/api/v1/accounts', path: '/accounts', changes: null, queryString: 'apiKey=********&verbose=1' });
      expect(post!.id).to.equal(post!.requestId);
      expect(post!.errorMessage).to.be.a('string');
      expect(JSON.parse(post!.responseBody!)).to.deep.include({ error: '[VALIDATION_FAILED]' });
      expect(JSON.parse(post!.requestBody!)).to.deep.include({ loginAccountPassword: '********' });
      expect(JSON.parse(put!.requestBody!)).to.deep.equal({ alias: 'refused', loginAccountPassword: '********' });
      expect(JSON.parse(put!.requestHeaders!)).to.deep.include({ 'x-api-key': '********' });
      for (const secret of ['refused-secret-password', 'query-secret-value', TEST_KEY]) expect(JSON.stringify(added)).not.to.include(secret);
      // The account's own log lists the refused write on it too.
      expect((await accountLogs(b))[0]).to.deep.include({ action: 'ApiRequestRefused', method: 'PUT' });
    });
  });

  describe('GET /projects/{projectId}/auditLogs', () => {
    it('lists the changes of every account of the project and of the project itself, newest first', async () => {
      // (filtered to the accounts of the scenario, so other specs of this file may add accounts of their own)
      const logs = (await projectLogs('?limit=1000'))
        .filter((l) => [a, b, undefined].includes(l.accountId) && !l.action.startsWith('ApiRequest'))
        .map((l) => ({ ...l, accountId: l.accountId ?? null }));

      // Each account gets an account-level key; key entries belong to the project log only.
      expect(logs.map((l) => [l.action, l.accountId])).to.deep.equal([
        ['AccountDeleted', b],
        ['ApiKeyIssued', null],
        ['AccountCreated', b],
        ['AccountReconnectRequested', a],
        ['AccountStarted', a],
        ['AccountStopped', a],
        ['AccountStarted', a],
        ['AccountUpdated', a],
        ['ApiKeyIssued', null],
        ['AccountCreated', a],
        ['ApiKeyIssued', null],
        ['ProjectCreated', null],
      ]);
      expect(logs[1]!.changes).to.deep.include({ level: 'ACCOUNT', accountId: b });
      expect(logs[8]!.changes).to.deep.include({ level: 'ACCOUNT', accountId: a });
      for (const log of logs) {
        expect(Object.keys(log)).to.include.members(AUDIT_MEMBERS);
        expect(log).to.deep.include({ projectId: DEFAULT_PROJECT_ID, projectName: 'Default project' });
      }
      // The default project and its bootstrap key come from the service's start, not from a request.
      expect(Object.keys(logs.at(-1)!).filter((k) => k !== 'accountId')).to.have.members(AUDIT_MEMBERS);
      expect(Object.keys(logs[0]!)).to.include.members([...KEY_MEMBERS, ...REQUEST_MEMBERS]);
      expect(logs.at(-1)!.changes).to.deep.equal({ name: 'Default project' });
      expect(logs.at(-2)!.changes).to.deep.include({ apiKeyId: testKeyId, level: 'PROJECT', projectId: DEFAULT_PROJECT_ID });
    });

    it('limit, offset, startDate and endDate work as on the account list', async () => {
      const all = await projectLogs('?limit=1000');

      expect(await projectLogs('?limit=3')).to.deep.equal(all.slice(0, 3));
      expect(await projectLogs('?limit=2&offset=8')).to.deep.equal(all.slice(8, 10));
      const window = `?startDate=${encodeURIComponent(all[7]!.created)}&endDate=${encodeURIComponent(all[2]!.created)}`;
      expect(await projectLogs(window)).to.deep.equal(all.slice(2, 8));
    });

    it('startDate after endDate gives 400 [VALIDATION_FAILED]', async () => {
      const res = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/auditLogs?startDate=2030-01-01T00:00:01Z&endDate=2030-01-01T00:00:00Z`);

      expectError(res, 400, '[VALIDATION_FAILED]');
    });

    it('another project id gives 404 [PROJECT_NOT_FOUND], whether that project exists or not', async () => {
      const existing = await t.call('GET', `/projects/${OTHER_PROJECT_ID}/auditLogs`);
      const unknown = await t.call('GET', '/projects/44444444-4444-4444-8444-444444444444/auditLogs');
      const fromOther = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/auditLogs`, { key: OTHER_KEY });

      expectError(existing, 404, '[PROJECT_NOT_FOUND]');
      expectError(unknown, 404, '[PROJECT_NOT_FOUND]');
      expectError(fromOther, 404, '[PROJECT_NOT_FOUND]');
    });

    it("the other project's key sees only the other project's entries", async () => {
      const logs = await logsOf(`/projects/${OTHER_PROJECT_ID}/auditLogs`, { key: OTHER_KEY });

      expect(logs.map((l) => l.action)).to.deep.equal(['ApiKeyIssued', 'AccountCreated', 'ApiKeyIssued', 'ProjectCreated']);
      expect(logs.every((l) => l.projectId === OTHER_PROJECT_ID && l.projectName === 'Other project')).to.equal(true);
      expect(logs[1]!.accountAlias).to.equal('Elsewhere');
      expect(logs.map((l) => l.accountId)).not.to.include.members([a, b]);
    });
  });

  describe('correlation ids', () => {
    let c: string;
    before(async () => {
      c = (await write('POST', '/accounts', { body: validAccount({ alias: 'Audit C' }) })).body.id;
    });

    it('a request X-Correlation-Id is echoed on the response and recorded on the entry', async () => {
      const res = await write('PUT', `/accounts/${c}`, {
        body: accountUpdate(validAccount(), { tradingDisabled: true }),
        headers: { 'X-Correlation-Id': 'order-4711.retry:2' },
      });

      expect(res.headers.get('x-correlation-id')).to.equal('order-4711.retry:2');
      expect((await accountLogs(c, '?limit=1'))[0]).to.deep.include({
        action: 'AccountUpdated',
        correlationId: 'order-4711.retry:2',
        changes: { tradingDisabled: true },
      });
    });

    it('without a usable X-Correlation-Id the service makes one, echoes it and records it', async () => {
      const none = await write('PUT', `/accounts/${c}`, { body: accountUpdate(validAccount(), { nativeMode: true }) });
      const noneLog = (await accountLogs(c, '?limit=1'))[0]!;
      const unsafe = await write('PUT', `/accounts/${c}`, {
        body: accountUpdate(validAccount(), { nativeMode: false }),
        headers: { 'X-Correlation-Id': 'has spaces <and> tags' },
      });
      const unsafeLog = (await accountLogs(c, '?limit=1'))[0]!;

      expect(none.headers.get('x-correlation-id')).to.match(UUID);
      expect(noneLog.correlationId).to.equal(none.headers.get('x-correlation-id'));
      expect(unsafe.headers.get('x-correlation-id')).to.match(UUID);
      expect(unsafeLog.correlationId).to.equal(unsafe.headers.get('x-correlation-id'));
      expect(unsafeLog.correlationId).not.to.equal(noneLog.correlationId);
    });

    it('masks every header that carries a key, a token or a cookie', async () => {
      await write('PUT', `/accounts/${c}`, {
        body: accountUpdate(validAccount(), { alias: 'Audit C headers' }),
        headers: { Authorization: 'Bearer never-logged-either', 'X-Account-Api-Key': 'not-a-real-key-never-logged', Cookie: 'session=never-logged-cookie' },
      });
      const entry = (await accountLogs(c, '?limit=1'))[0]!;
      expect(JSON.parse(entry.requestHeaders!)).to.deep.include({ authorization: '********', 'x-account-api-key': '********', cookie: '********' });
      const text = JSON.stringify(await projectLogs('?limit=1000'));
      for (const secret of ['never-logged-either', 'not-a-real-key-never-logged', 'never-logged-cookie', TEST_KEY]) expect(text).not.to.include(secret);
    });
  });
});

describe('audit log date filters with whole days', () => {
  let t: Awaited<ReturnType<typeof startTestService>>;
  before(async () => {
    t = await startTestService({ clock: () => new Date('2026-03-10T23:59:30.000Z') });
    await t.call('POST', '/accounts', { body: validAccount({ alias: 'late in the day' }) });
  });
  after(() => t.stop());

  it('a date (YYYY-MM-DD) covers the whole UTC day, at both ends', async () => {
    const same = await t.call('GET', '/projects/00000000-0000-4000-8000-000000000001/auditLogs?startDate=2026-03-10&endDate=2026-03-10');
    expect(same.status).to.equal(200);
    expect(same.body.map((l: { action: string }) => l.action)).to.include('AccountCreated');
    const next = await t.call('GET', '/projects/00000000-0000-4000-8000-000000000001/auditLogs?startDate=2026-03-11');
    expect(next.body).to.deep.equal([]);
    const entry = same.body.find((l: { action: string }) => l.action === 'AccountCreated');
    expect(entry.created).to.equal('2026-03-10T23:59:30.000Z');
  });
});
