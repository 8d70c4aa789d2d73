// The account area end to end: real HTTP against a started service on a fresh database.
// Conventions inside this file, so list filters can expect exact results: accounts made outside the
// "GET /accounts" block use account types 1 to 14 and regions 1 and 2; that block alone uses types 15 to
// 17, regions 3 and 4, and login servers starting with "FLT".
import { expect } from 'chai';
import { declareRoutes } from '../../api/app.js';
import {
  type TestResponse,
  type TestService,
  accountUpdate,
  createOtherProject,
  startTestService,
  validAccount,
  accountStatus,
  withStatus,
} from '../support/service.js';
import { dataCollectorBody } from '../support/trading.js';

interface AuditEntry {
  readonly action: string;
}
/** The audit entries that are changes: requests that changed nothing or were refused are listed too (ApiRequest*). */
const changesOf = (entries: unknown): AuditEntry[] => (entries as AuditEntry[]).filter((entry) => !entry.action.startsWith('ApiRequest'));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PASSWORD = 'secret-password';
const OTHER_PROJECT_ID = '22222222-2222-4222-8222-222222222222';
const OTHER_KEY = 'accounts-other-project-key-0123456789';
const ACCOUNT_MEMBERS = [
  'id',
  'created',
  'loginServer',
  'loginAccountNumber',
  'loginAccountPassword',
  'alias',
  'type',
  'region',
  'status',
  'statusMessage',
  'labels',
  'skipCredentialCheck',
  'propFirm',
  'tradingDisabled',
  'hasActiveCopiers',
  'hasMonitorOnlyCopiers',
  'hasDisabledCopiers',
  'nativeMode',
  'closeUnmanagedPositions',
  'proxy',
  'accountInformation',
  // the applied-template markers (PUT /accounts/{accountId}/appliedTemplate), null when the account follows no template
  'accountTemplate1',
  'appliedTemplateRevision',
  'appliedTemplateMeta',
];
/** Left out when the account has none. */
const OPTIONAL_ACCOUNT_MEMBERS = ['deleted', 'dedicatedIp', 'myHomeIp', 'ctraderClientId', 'ctraderClientSecret'];
const MASK = '********';

const expectError = (res: TestResponse, status: number, code: string): void => {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  expect(res.body.error).to.equal(code);
  expect(res.body.message).to.be.a('string').and.not.equal('');
  expect(Object.keys(res.body).filter((k) => k !== 'details')).to.have.members(['error', 'message']);
};

/** No response of the account area may carry the password, in any member: loginAccountPassword is the mask. */
const expectNoPassword = (res: TestResponse): void => {
  const text = JSON.stringify(res.body ?? null);
  expect(text).not.to.include(PASSWORD);
  expect(text).not.to.include('passwordCiphertext');
  for (const account of [res.body].flat()) expect(account.loginAccountPassword).to.equal(MASK);
};

const ids = (res: TestResponse): string[] => (res.body as { id: string }[]).map((a) => a.id);

describe('accounts API end to end', () => {
  let t: TestService;

  const create = async (overrides: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/accounts', { body: validAccount(overrides) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as Record<string, unknown> & { id: string; status: { id: number } };
  };
  const action = (id: string, name: 'start' | 'stop' | 'reconnect') => t.call('POST', `/accounts/${id}/actions/${name}`);
  const allAccountIds = async (): Promise<string[]> => {
    const live = await t.call('GET', '/accounts?limit=1000');
    const deleted = await t.call('GET', '/accounts?accountStatusId=4&limit=1000');
    return [...ids(live), ...ids(deleted)].sort();
  };

  before(async () => {
    t = await startTestService();
  });
  after(async () => {
    await t?.stop();
  });

  describe('POST /accounts', () => {
    it('answers 200 with every AccountDTO member, the values sent, status New and a new id', async () => {
      const before = Date.now();
      const body = {
        loginServer: 'Full-Server-01',
        loginAccountNumber: '8800001',
        loginAccountPassword: PASSWORD,
        type: { id: 2 },
        region: { id: 1 },
        alias: 'Fully specified',
        propFirm: true,
        tradingDisabled: true,
        nativeMode: true,
        closeUnmanagedPositions: true,
        skipCredentialCheck: true,
        labels: ['vip', 'eu', 'vip'],
        dedicatedIp: { dedicatedProxyServerId: 7 },
        myHomeIp: { host: 'home.example.net', httpPort: 8080, socksPort: 1080, username: 'me', password: 'home-secret' },
        proxy: { host: 'proxy.example.com', port: 3128, username: 'proxy-user' },
        ctraderClientId: 'client-id-1',
        ctraderClientSecret: 'client-secret-1',
      };

      const res = await t.call('POST', '/accounts', { body });

      expect(res.status).to.equal(200);
      expect(Object.keys(res.body)).to.have.members([...ACCOUNT_MEMBERS, ...OPTIONAL_ACCOUNT_MEMBERS.filter((m) => m !== 'deleted')]);
      expect(res.body.id).to.match(UUID);
      expect(new Date(res.body.created).toISOString()).to.equal(res.body.created);
      expect(Date.parse(res.body.created)).to.be.within(before - 1000, Date.now() + 1000);
      expect(res.body).to.deep.include({
        loginServer: 'Full-Server-01',
        loginAccountNumber: '8800001',
        alias: 'Fully specified',
        loginAccountPassword: MASK,
        type: { id: 2, name: 'FX terminal, current generation' },
        region: { id: 1, name: 'New York' },
        ...accountStatus(1),
        labels: ['vip', 'eu'],
        skipCredentialCheck: true,
        propFirm: true,
        tradingDisabled: true,
        hasActiveCopiers: false,
        hasMonitorOnlyCopiers: false,
        hasDisabledCopiers: false,
        nativeMode: true,
        closeUnmanagedPositions: true,
        dedicatedIp: { dedicatedProxyServerId: 7 },
        myHomeIp: { host: 'home.example.net', httpPort: 8080, socksPort: 1080, username: 'me', password: MASK },
        proxy: { host: 'proxy.example.com', port: 3128, username: 'proxy-user' },
        ctraderClientId: 'client-id-1',
        ctraderClientSecret: MASK,
      });
      expectNoPassword(res);
      expect(JSON.stringify(res.body)).not.to.include('secret-1').and.not.to.include('home-secret');
    });

    it('fills the members left out with false, [] or null, and leaves out the optional objects and strings', async () => {
      const res = await t.call('POST', '/accounts', {
        body: { loginServer: 'Minimal-Server', loginAccountPassword: PASSWORD, type: { id: 3 }, region: { id: 2 } },
      });

      expect(res.status).to.equal(200);
      expect(Object.keys(res.body)).to.have.members(ACCOUNT_MEMBERS.filter((m) => m !== 'alias'));
      expect(res.body).to.deep.include({
        loginAccountNumber: '',
        labels: [],
        skipCredentialCheck: false,
        hasActiveCopiers: false,
        ...accountStatus(1),
        propFirm: false,
        tradingDisabled: false,
        hasMonitorOnlyCopiers: false,
        hasDisabledCopiers: false,
        nativeMode: false,
        closeUnmanagedPositions: false,
        proxy: null,
      });
    });

    it('refuses an empty password at creation with 400 [VALIDATION_FAILED]', async () => {
      const before = await allAccountIds();
      expectError(await t.call('POST', '/accounts', { body: validAccount({ loginAccountPassword: '' }) }), 400, '[VALIDATION_FAILED]');
      expect(await allAccountIds()).to.deep.equal(before);
    });

    it('stores a proxy sent without a username with username null', async () => {
      const account = await create({ proxy: { host: '10.1.2.3', port: 1080 } });

      expect(account.proxy).to.deep.equal({ host: '10.1.2.3', port: 1080, username: null });
    });

    it('refuses an unknown region with 404 [REGION_NOT_FOUND] and creates nothing', async () => {
      const before = await allAccountIds();

      for (const regionId of [0, 5, 99]) {
        expectError(await t.call('POST', '/accounts', { body: validAccount({ region: { id: regionId } }) }), 404, '[REGION_NOT_FOUND]');
      }

      expect(await allAccountIds()).to.deep.equal(before);
    });

    it('refuses an unknown account type with 404 [ACCOUNT_TYPE_NOT_FOUND] and creates nothing', async () => {
      const before = await allAccountIds();

      for (const accountTypeId of [0, 18, -1]) {
        expectError(await t.call('POST', '/accounts', { body: validAccount({ type: { id: accountTypeId } }) }), 404, '[ACCOUNT_TYPE_NOT_FOUND]');
      }

      expect(await allAccountIds()).to.deep.equal(before);
    });

    describe('with failIfAccountExistsInProject', () => {
      const login = { loginServer: 'Dup-Server', loginAccountNumber: '900001', type: { id: 4 } };

      it('refuses a second account with the same type, server and login with 409 [ACCOUNT_ALREADY_EXISTS]', async () => {
        const first = await create(login);
        const before = await allAccountIds();

        const same = await t.call('POST', '/accounts', { body: validAccount({ ...login, failIfAccountExistsInProject: true }) });
        const otherCase = await t.call('POST', '/accounts', {
          body: validAccount({ ...login, loginServer: 'DUP-server', failIfAccountExistsInProject: true }),
        });

        expectError(same, 409, '[ACCOUNT_ALREADY_EXISTS]');
        expectError(otherCase, 409, '[ACCOUNT_ALREADY_EXISTS]');
        expect(await allAccountIds()).to.deep.equal(before);
        expect(before).to.include(first.id);
      });

      it('creates the account when the type or the login differs', async () => {
        const otherType = await t.call('POST', '/accounts', {
          body: validAccount({ ...login, type: { id: 5 }, failIfAccountExistsInProject: true }),
        });
        const otherLogin = await t.call('POST', '/accounts', {
          body: validAccount({ ...login, loginAccountNumber: '900002', failIfAccountExistsInProject: true }),
        });

        expect(otherType.status).to.equal(200);
        expect(otherType.body).to.deep.include({ ...login, type: { id: 5, name: 'ECN desktop platform' } });
        expect(otherLogin.status).to.equal(200);
        expect(otherLogin.body).to.deep.include({ ...login, type: { id: 4, name: 'Broker web terminal' }, loginAccountNumber: '900002' });
      });

      it('a deleted account, or an account of another project, with the same login does not block creation', async () => {
        const other = { loginServer: 'Reuse-Server', loginAccountNumber: '930001', type: { id: 9 } };
        const gone = await create(other);
        await t.call('DELETE', `/accounts/${gone.id}`);
        await createOtherProject(t, OTHER_PROJECT_ID, OTHER_KEY);
        const elsewhere = await t.call('POST', '/accounts', { body: validAccount(other), key: OTHER_KEY });
        expect(elsewhere.status).to.equal(200);

        const res = await t.call('POST', '/accounts', { body: validAccount({ ...other, failIfAccountExistsInProject: true }) });

        expect(res.status).to.equal(200);
        expect(res.body).to.deep.include({ ...other, type: { id: 9, name: 'Options platform' }, ...accountStatus(1) });
        expect(res.body.id).not.to.be.oneOf([gone.id, elsewhere.body.id]);
      });

      // Regression: the duplicate check read the read model, then appended, with nothing in between to stop
      // a concurrent request; five racing requests created five accounts. Creation is now one at a time.
      it('concurrent creations of the same login with the flag create exactly one account', async () => {
        const race = { loginServer: 'Race-Server', loginAccountNumber: '920001', type: { id: 8 } };

        const results = await Promise.all(
          Array.from({ length: 5 }, () => t.call('POST', '/accounts', { body: validAccount({ ...race, failIfAccountExistsInProject: true }) })),
        );

        expect(results.map((r) => r.status).sort()).to.deep.equal([200, 409, 409, 409, 409]);
        for (const refused of results.filter((r) => r.status === 409)) expectError(refused, 409, '[ACCOUNT_ALREADY_EXISTS]');
        expect(ids(await t.call('GET', '/accounts?loginServer=Race-Server'))).to.have.length(1);
      });

      it('does not return the flag as a member of the account', async () => {
        const res = await t.call('POST', '/accounts', {
          body: validAccount({ loginServer: 'Flag-Server', loginAccountNumber: '900003', failIfAccountExistsInProject: true }),
        });

        expect(res.status).to.equal(200);
        expect(Object.keys(res.body)).to.have.members(ACCOUNT_MEMBERS);
      });
    });

    it('without failIfAccountExistsInProject allows a duplicate login as a second account', async () => {
      const login = { loginServer: 'Twin-Server', loginAccountNumber: '910001', type: { id: 6 } };
      const first = await create(login);

      const second = await t.call('POST', '/accounts', { body: validAccount(login) });
      const explicitFalse = await t.call('POST', '/accounts', { body: validAccount({ ...login, failIfAccountExistsInProject: false }) });

      expect(second.status).to.equal(200);
      expect(explicitFalse.status).to.equal(200);
      expect(new Set([first.id, second.body.id, explicitFalse.body.id]).size).to.equal(3);
      const listed = await t.call('GET', '/accounts?loginServer=Twin-Server');
      expect(ids(listed).sort()).to.deep.equal([first.id, second.body.id, explicitFalse.body.id].sort());
    });

    describe('callbackUrl validation', () => {
      const cases: [string, string][] = [
        ['', '[CALLBACK_URL_REQUIRED]'],
        ['   ', '[CALLBACK_URL_REQUIRED]'],
        ['not a url', '[CALLBACK_URL_INVALID]'],
        ['//missing-scheme.example.com/cb', '[CALLBACK_URL_INVALID]'],
        ['ftp://example.com/callback', '[CALLBACK_URL_INVALID_PROTOCOL]'],
        ['javascript:alert(1)', '[CALLBACK_URL_INVALID_PROTOCOL]'],
      ];
      for (const [callbackUrl, code] of cases) {
        it(`refuses callbackUrl ${JSON.stringify(callbackUrl)} with 400 ${code} and creates nothing`, async () => {
          const before = await allAccountIds();

          const res = await t.call('POST', '/accounts', { body: validAccount({ callbackUrl }) });

          expectError(res, 400, code);
          expect(await allAccountIds()).to.deep.equal(before);
        });
      }
    });
  });

  describe('GET /accounts/{accountId}', () => {
    it('answers the same account the creation answered, without the password', async () => {
      const created = await create({ alias: 'Readable' });

      const res = await t.call('GET', `/accounts/${created.id}`);

      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(created);
      expectNoPassword(res);
    });
  });

  describe('accountInformation (AccountInformationDTO embedded in every account answer)', () => {
    it("is the account's state as GET .../information tells it, without the broker figures, results and protections", async () => {
      const created = await create({ alias: 'Embedded', loginServer: 'Embedded-Server', loginAccountNumber: 'embedded-1' });
      expect(created.accountInformation).to.deep.include({ connected: false, status: 'New', openPositionsCount: 0, pendingApprovals: [] });
      await action(created.id, 'start');

      const one = (await t.call('GET', `/accounts/${created.id}`)).body;
      const listed = (await t.call('GET', '/accounts?loginServer=Embedded-Server')).body;
      const information = (await t.call('GET', `/accounts/${created.id}/information`)).body;

      expect(listed.map((a: { accountInformation: unknown }) => a.accountInformation)).to.deep.equal([one.accountInformation]);
      expect(one.accountInformation).to.deep.include({
        connected: true,
        status: 'Active',
        isNative: false,
        openPositions: false,
        openPositionsCount: 0,
        pendingOrders: false,
        pendingOrdersCount: 0,
        accountDuplicationInProjectDetected: false,
        pendingApprovals: [],
        positionMismatch: false,
        wrongCredentials: false,
      });
      for (const member of [
        'balance',
        'equity',
        'currency',
        'leverage',
        'profitToday',
        'maxDrawdown',
        'isHyperactive',
        'riskLimitsStatus',
        'profitTargetsStatus',
      ]) {
        expect(one.accountInformation, member).not.to.have.property(member);
      }
      expect(information).to.include.keys('balance', 'equity', 'profitToday', 'maxDrawdown', 'riskLimitsStatus');
      expect(information).to.deep.include(one.accountInformation);
    });

    it('tells every account of a list that shares its login with another account of the project', async () => {
      const first = await create({ loginServer: 'Shared-Login-Server', loginAccountNumber: 'twin-1' });
      const second = await create({ loginServer: 'SHARED-login-server', loginAccountNumber: 'twin-1' });
      const alone = await create({ loginServer: 'Shared-Login-Server', loginAccountNumber: 'twin-2' });

      const listed = (await t.call('GET', '/accounts?loginServer=shared-login-server')).body as { id: string; accountInformation: Record<string, unknown> }[];
      const duplicated = Object.fromEntries(listed.map((a) => [a.id, a.accountInformation.accountDuplicationInProjectDetected]));

      expect(duplicated).to.deep.equal({ [first.id]: true, [second.id]: true, [alone.id]: false });
    });
  });

  describe('PUT /accounts/{accountId}', () => {
    it('changes the members sent and keeps every member left out', async () => {
      const created = await create({ alias: 'Before rename', propFirm: false, dedicatedIp: { dedicatedProxyServerId: 3 }, labels: ['keep'] });

      const res = await t.call('PUT', `/accounts/${created.id}`, { body: accountUpdate(validAccount(), { alias: 'After rename', propFirm: true }) });

      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ ...created, alias: 'After rename', propFirm: true });
      const read = await t.call('GET', `/accounts/${created.id}`);
      expect(read.body).to.deep.equal({ ...created, alias: 'After rename', propFirm: true });
    });

    it('changes login, type, region, flags, addresses and proxy together', async () => {
      const created = await create();
      const changes = {
        loginServer: 'Moved-Server',
        loginAccountNumber: '5009999',
        type: { id: 7 },
        region: { id: 1 },
        tradingDisabled: true,
        nativeMode: true,
        closeUnmanagedPositions: true,
        skipCredentialCheck: true,
        labels: ['moved'],
        dedicatedIp: { dedicatedProxyServerId: 10 },
        myHomeIp: { host: '192.0.2.11', username: 'me', password: 'home-pass' },
        proxy: { host: 'p.example.net', port: 8080, username: 'u' },
        ctraderClientId: 'moved-client',
      };

      const res = await t.call('PUT', `/accounts/${created.id}`, { body: { ...changes, ctraderClientSecret: 'moved-secret', loginAccountPassword: '' } });

      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        ...created,
        ...changes,
        ctraderClientSecret: MASK,
        type: { id: 7, name: 'Broker REST platform' },
        region: { id: 1, name: 'New York' },
        myHomeIp: { host: '192.0.2.11', username: 'me', password: MASK },
        // Its state follows: native mode, and a login no other account of the project has.
        accountInformation: { ...(created.accountInformation as object), isNative: true, accountDuplicationInProjectDetected: false },
      });
    });

    it('keeps the stored secrets when they come back as "" or masked, and replaces them when new', async () => {
      const created = await create({
        ctraderClientId: 'client-with-secret',
        ctraderClientSecret: 'first-client-secret',
        myHomeIp: { host: 'home.example.org', username: 'me', password: 'first-home-pass' },
      });
      // The changes only: requests that changed nothing are listed too (ApiRequestWithoutChange).
      const audit = async () => changesOf((await t.call('GET', `/accounts/${created.id}/auditLogs`)).body);
      const entriesBefore = (await audit()).length;

      const echoed = await t.call('PUT', `/accounts/${created.id}`, { body: { ...created, loginAccountPassword: '' } });
      const masked = await t.call('PUT', `/accounts/${created.id}`, { body: { ...created } });

      expect(echoed.status).to.equal(200);
      expect(echoed.body).to.deep.equal(created);
      expect(masked.body).to.deep.equal(created);
      expect((await audit()).length, 'nothing changed').to.equal(entriesBefore);

      const changed = await t.call('PUT', `/accounts/${created.id}`, {
        body: accountUpdate(validAccount(), {
          ctraderClientSecret: 'second-client-secret',
          myHomeIp: { ...(created.myHomeIp as object), password: 'second-home-pass' },
        }),
      });
      expect(changed.body).to.deep.equal(created);
      expect((await audit()).length).to.equal(entriesBefore + 1);
      expect(JSON.stringify(await audit()))
        .not.to.include('second-')
        .and.not.to.include('first-');
    });

    it('a new home proxy without its password is refused with 400 and changes nothing', async () => {
      const created = await create();
      const res = await t.call('PUT', `/accounts/${created.id}`, {
        body: accountUpdate(validAccount(), { myHomeIp: { host: 'h.example', username: 'u', password: '' } }),
      });
      expectError(res, 400, '[VALIDATION_FAILED]');
      expect((await t.call('GET', `/accounts/${created.id}`)).body).to.deep.equal(created);
    });

    it('half a cTrader application is refused with 400 naming the member left out, at creation and update, and changes nothing', async () => {
      const before = await allAccountIds();
      const onlyId = await t.call('POST', '/accounts', { body: validAccount({ ctraderClientId: 'lonely-app' }) });
      expectError(onlyId, 400, '[VALIDATION_FAILED]');
      expect(onlyId.body.message).to.match(/^ctraderClientSecret: /);
      const onlySecret = await t.call('POST', '/accounts', { body: validAccount({ ctraderClientSecret: 'lonely-secret' }) });
      expectError(onlySecret, 400, '[VALIDATION_FAILED]');
      expect(onlySecret.body.message).to.match(/^ctraderClientId: /);
      expect(await allAccountIds()).to.deep.equal(before);

      const created = await create({ ctraderClientId: 'paired-app', ctraderClientSecret: 'paired-secret' });
      const dropped = await t.call('PUT', `/accounts/${created.id}`, { body: accountUpdate(validAccount(), { ctraderClientId: null }) });
      expectError(dropped, 400, '[VALIDATION_FAILED]');
      expect(dropped.body.message).to.match(/^ctraderClientId: /);
      const plain = await create();
      const halfAdded = await t.call('PUT', `/accounts/${plain.id}`, { body: accountUpdate(validAccount(), { ctraderClientSecret: 'half-secret' }) });
      expectError(halfAdded, 400, '[VALIDATION_FAILED]');
      expect(halfAdded.body.message).to.match(/^ctraderClientId: /);
      expect((await t.call('GET', `/accounts/${created.id}`)).body).to.deep.equal(created);
      expect((await t.call('GET', `/accounts/${plain.id}`)).body).to.deep.equal(plain);
    });

    it('labels: null keeps them, [] removes them, a list replaces them', async () => {
      const created = await create({ labels: ['a', 'b'] });
      const put = (labels: unknown, beyondReference?: string) =>
        t.call('PUT', `/accounts/${created.id}`, { body: accountUpdate(validAccount(), { labels }), ...(beyondReference ? { beyondReference } : {}) });
      // The reference's description names null ("will not add, update, or delete anything"), its schema does not.
      expect((await put(null, 'labels: null, as the reference describes it')).body.labels).to.deep.equal(['a', 'b']);
      expect((await put(['c', 'c'])).body.labels).to.deep.equal(['c']);
      expect((await put([])).body.labels).to.deep.equal([]);
    });

    it('clears nullable members sent as null', async () => {
      const created = await create({
        alias: 'To clear',
        dedicatedIp: { dedicatedProxyServerId: 1 },
        myHomeIp: { host: 'h.example', username: 'u', password: 'p' },
        proxy: { host: 'h', port: 1 },
        ctraderClientId: 'id',
        ctraderClientSecret: 'secret',
      });

      const res = await t.call('PUT', `/accounts/${created.id}`, {
        body: accountUpdate(validAccount(), { alias: null, dedicatedIp: null, myHomeIp: null, proxy: null, ctraderClientId: null, ctraderClientSecret: null }),
        beyondReference: 'ours: null removes a member (the reference types none of them nullable and says nothing of removing them)',
      });

      expect(res.status).to.equal(200);
      const { alias: _a, dedicatedIp: _d, myHomeIp: _m, ctraderClientId: _i, ctraderClientSecret: _s, ...rest } = created;
      expect(res.body).to.deep.equal({ ...rest, proxy: null });
    });

    it('accepts a password change and returns the account without the password', async () => {
      const created = await create();

      const res = await t.call('PUT', `/accounts/${created.id}`, { body: accountUpdate(validAccount(), { loginAccountPassword: 'a-brand-new-password' }) });

      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(created);
      expect(JSON.stringify(res.body)).not.to.include('a-brand-new-password');
      expectNoPassword(res);
    });

    it('accepts a GET response sent back unchanged, read-only members included, and changes nothing', async () => {
      const created = await create({ alias: 'Round trip' });

      const res = await t.call('PUT', `/accounts/${created.id}`, { body: { ...created, ...accountStatus(4), deleted: '2020-01-01T00:00:00.000Z' } });

      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(created);
    });

    it('refuses an unknown region or account type with 404 and keeps the account as it was', async () => {
      const created = await create();

      const region = await t.call('PUT', `/accounts/${created.id}`, { body: { region: { id: 9 }, alias: 'never' } });
      const type = await t.call('PUT', `/accounts/${created.id}`, { body: { type: { id: 99 }, alias: 'never' } });

      expectError(region, 404, '[REGION_NOT_FOUND]');
      expectError(type, 404, '[ACCOUNT_TYPE_NOT_FOUND]');
      expect((await t.call('GET', `/accounts/${created.id}`)).body).to.deep.equal(created);
    });
  });

  describe('DELETE /accounts/{accountId}', () => {
    it('answers 200 without a body, and GET still shows the account with status Deleted (4) and the time it was deleted', async () => {
      const created = await create({ alias: 'To delete' });

      const before = Date.now();
      const res = await t.call('DELETE', `/accounts/${created.id}`);

      expect(res.status).to.equal(200);
      expect(res.body).to.equal(undefined);
      const read = (await t.call('GET', `/accounts/${created.id}`)).body;
      expect(read).to.deep.equal({ ...withStatus(created, 4), deleted: read.deleted });
      expect(Date.parse(read.deleted)).to.be.within(before - 1000, Date.now() + 1000);
    });

    it('leaves the deleted account out of GET /accounts unless accountStatusId=4 asks for it', async () => {
      const created = await create({ loginServer: 'Gone-Server' });
      await t.call('DELETE', `/accounts/${created.id}`);

      const plain = await t.call('GET', '/accounts?loginServer=Gone-Server');
      const deleted = await t.call('GET', '/accounts?loginServer=Gone-Server&accountStatusId=4');

      expect(ids(plain)).to.deep.equal([]);
      expect(ids(deleted)).to.deep.equal([created.id]);
    });

    it('makes later PUT, start, stop and reconnect fail with 409 [ACCOUNT_DELETED] and change nothing', async () => {
      const created = await create();
      await action(created.id, 'start');
      await t.call('DELETE', `/accounts/${created.id}`);
      const deleted = (await t.call('GET', `/accounts/${created.id}`)).body;

      expectError(await t.call('PUT', `/accounts/${created.id}`, { body: { alias: 'revived' } }), 409, '[ACCOUNT_DELETED]');
      expectError(await action(created.id, 'start'), 409, '[ACCOUNT_DELETED]');
      expectError(await action(created.id, 'stop'), 409, '[ACCOUNT_DELETED]');
      expectError(await action(created.id, 'reconnect'), 409, '[ACCOUNT_DELETED]');

      expect((await t.call('GET', `/accounts/${created.id}`)).body).to.deep.equal(deleted);
      expect(deleted.status.id).to.equal(4);
    });

    it('a second delete is a no-op that answers 200 and writes no audit entry', async () => {
      const created = await create();
      await t.call('DELETE', `/accounts/${created.id}`);
      const first = await t.call('GET', `/accounts/${created.id}`);
      const logsBefore = await t.call('GET', `/accounts/${created.id}/auditLogs`);

      const second = await t.call('DELETE', `/accounts/${created.id}`);

      expect(second.status).to.equal(200);
      expect((await t.call('GET', `/accounts/${created.id}`)).body).to.deep.equal(first.body);
      expect(first.body.status.id).to.equal(4);
      const logsAfter = (await t.call('GET', `/accounts/${created.id}/auditLogs`)).body as AuditEntry[];
      expect(changesOf(logsAfter)).to.deep.equal(changesOf(logsBefore.body));
      expect(logsAfter[0], 'the no-op is listed as a request that changed nothing').to.deep.include({ action: 'ApiRequestWithoutChange' });
    });
  });

  describe('actions/start and actions/stop', () => {
    it('start moves New to Active, stop moves Active to Stopped, start moves Stopped back to Active', async () => {
      const created = await create();
      expect(created.status.id).to.equal(1);

      const started = await action(created.id, 'start');
      expect(started.status).to.equal(200);
      expect(started.body).to.deep.equal(withStatus(created, 2));

      const stopped = await action(created.id, 'stop');
      expect(stopped.status).to.equal(200);
      expect(stopped.body).to.deep.equal(withStatus(created, 3));

      const restarted = await action(created.id, 'start');
      expect(restarted.status).to.equal(200);
      expect(restarted.body).to.deep.equal(withStatus(created, 2));
      expect((await t.call('GET', `/accounts/${created.id}`)).body.status.id).to.equal(2);
    });

    it('start on an Active account is a no-op: 200, still Active, no audit entry', async () => {
      const created = await create();
      await action(created.id, 'start');
      const logsBefore = await t.call('GET', `/accounts/${created.id}/auditLogs`);

      const again = await action(created.id, 'start');

      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(withStatus(created, 2));
      const logsAfter = (await t.call('GET', `/accounts/${created.id}/auditLogs`)).body as AuditEntry[];
      expect(changesOf(logsAfter)).to.deep.equal(changesOf(logsBefore.body));
      expect(logsAfter[0], 'the no-op is listed as a request that changed nothing').to.deep.include({ action: 'ApiRequestWithoutChange' });
    });

    it('stop on a New account moves it to Stopped, and stop on a Stopped account is a no-op', async () => {
      const created = await create();

      const stopped = await action(created.id, 'stop');
      const again = await action(created.id, 'stop');

      expect(stopped.status).to.equal(200);
      expect(stopped.body.status.id).to.equal(3);
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(stopped.body);
      expectNoPassword(again);
    });
  });

  describe('actions/reconnect', () => {
    it('answers 204 with no body for an Active account', async () => {
      const created = await create();
      await action(created.id, 'start');

      const res = await action(created.id, 'reconnect');

      expect(res.status).to.equal(204);
      expect(res.body).to.equal(undefined);
    });

    it('refuses a New account and a Stopped account with 409 [ACCOUNT_NOT_ACTIVE]', async () => {
      const fresh = await create();
      const stopped = await create();
      await action(stopped.id, 'start');
      await action(stopped.id, 'stop');

      expectError(await action(fresh.id, 'reconnect'), 409, '[ACCOUNT_NOT_ACTIVE]');
      expectError(await action(stopped.id, 'reconnect'), 409, '[ACCOUNT_NOT_ACTIVE]');
    });

    it('refuses a second reconnect within 30 minutes with 429 [RECONNECT_TOO_FREQUENT] and a Retry-After header', async () => {
      const created = await create();
      await action(created.id, 'start');
      const firstAt = Date.now();
      expect((await action(created.id, 'reconnect')).status).to.equal(204);

      const second = await action(created.id, 'reconnect');

      expectError(second, 429, '[RECONNECT_TOO_FREQUENT]');
      const retryAfter = Number(second.headers.get('retry-after'));
      expect(retryAfter).to.be.within(1790, 1800);
      expect(second.body.details.retryAfterSeconds).to.equal(retryAfter);
      expect(Date.parse(second.body.details.nextAllowedAt)).to.be.within(firstAt + 30 * 60_000 - 10_000, Date.now() + 30 * 60_000);
    });

    describe('with a clock the spec can move', () => {
      let clocked: TestService;
      let now = new Date('2031-03-01T09:00:00.000Z');

      before(async () => {
        clocked = await startTestService({ clock: () => now });
      });
      after(async () => {
        await clocked?.stop();
      });

      it('allows the next reconnect once 30 minutes have passed', async () => {
        const created = await clocked.call('POST', '/accounts', { body: validAccount() });
        const id = created.body.id as string;
        await clocked.call('POST', `/accounts/${id}/actions/start`);
        expect((await clocked.call('POST', `/accounts/${id}/actions/reconnect`)).status).to.equal(204);

        const tooSoon = await clocked.call('POST', `/accounts/${id}/actions/reconnect`);
        expectError(tooSoon, 429, '[RECONNECT_TOO_FREQUENT]');
        expect(tooSoon.headers.get('retry-after')).to.equal('1800');
        expect(tooSoon.body.details).to.deep.equal({ retryAfterSeconds: 1800, nextAllowedAt: '2031-03-01T09:30:00.000Z' });

        now = new Date('2031-03-01T09:29:00.000Z');
        const stillTooSoon = await clocked.call('POST', `/accounts/${id}/actions/reconnect`);
        expectError(stillTooSoon, 429, '[RECONNECT_TOO_FREQUENT]');
        expect(stillTooSoon.headers.get('retry-after')).to.equal('60');

        now = new Date('2031-03-01T09:31:00.000Z');
        const allowed = await clocked.call('POST', `/accounts/${id}/actions/reconnect`);
        expect(allowed.status).to.equal(204);

        const afterAllowed = await clocked.call('POST', `/accounts/${id}/actions/reconnect`);
        expectError(afterAllowed, 429, '[RECONNECT_TOO_FREQUENT]');
        expect(afterAllowed.body.details.nextAllowedAt).to.equal('2031-03-01T10:01:00.000Z');
      });
    });
  });

  describe('GET /accounts', () => {
    // s1..s5 below, in creation order; s4 ends Deleted.
    const seeds = [
      { loginServer: 'FLT-100%-Live', loginAccountNumber: 'ACC-A1', alias: 'Alpha Growth 2050', type: { id: 15 }, region: { id: 3 } },
      { loginServer: 'FLT-1000-Live', loginAccountNumber: 'acc_b2', alias: 'Beta Income', type: { id: 16 }, region: { id: 4 } },
      { loginServer: 'FLT_Demo', loginAccountNumber: 'ACCXB2', alias: 'gamma growth', type: { id: 16 }, region: { id: 3 } },
      { loginServer: 'FLT-Gone', loginAccountNumber: 'ACC-D4', alias: 'Delta gone', type: { id: 17 }, region: { id: 4 } },
      { loginServer: 'FLTXDemo', loginAccountNumber: 'acc-e5', alias: '50% Hedge', type: { id: 15 }, region: { id: 3 } },
    ];
    let s: string[] = [];
    const list = async (query: string): Promise<string[]> => {
      const res = await t.call('GET', `/accounts?${query}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expectNoPassword(res);
      return ids(res);
    };
    const sorted = (values: (string | undefined)[]) => [...values].sort();

    before(async () => {
      s = [];
      for (const seed of seeds) s.push((await create(seed)).id);
      await action(s[1]!, 'start');
      await action(s[2]!, 'start');
      await action(s[2]!, 'stop');
      await action(s[3]!, 'start');
      await t.call('DELETE', `/accounts/${s[3]}`);
    });

    it('without filters lists every account that is not deleted, oldest first, as full AccountDTOs', async () => {
      const res = await t.call('GET', '/accounts');

      expect(res.status).to.equal(200);
      const all = res.body as { id: string; created: string; status: { id: number } }[];
      expect(all.map((a) => a.id)).to.include.members([s[0], s[1], s[2], s[4]]);
      expect(all.map((a) => a.id)).not.to.include(s[3]);
      expect(all.every((a) => a.status.id !== 4)).to.equal(true);
      for (const a of all) expect(Object.keys(a)).to.include.members(ACCOUNT_MEMBERS.filter((m) => m !== 'alias'));
      const created = all.map((a) => Date.parse(a.created));
      expect(created).to.deep.equal([...created].sort((x, y) => x - y));
      expectNoPassword(res);
    });

    it('accountTypeId keeps only accounts of that type (type.id)', async () => {
      expect(sorted(await list('accountTypeId=16'))).to.deep.equal(sorted([s[1], s[2]]));
      expect(sorted(await list('accountTypeId=15'))).to.deep.equal(sorted([s[0], s[4]]));
      expect(await list('accountTypeId=17')).to.deep.equal([]);
    });

    it('regionId keeps only accounts of that region (region.id)', async () => {
      expect(sorted(await list('regionId=3'))).to.deep.equal(sorted([s[0], s[2], s[4]]));
      expect(await list('regionId=4')).to.deep.equal([s[1]]);
    });

    it('loginServer is a case-insensitive partial match', async () => {
      expect(sorted(await list('loginServer=flt-100'))).to.deep.equal(sorted([s[0], s[1]]));
      expect(await list('loginServer=flt-1000-LIVE')).to.deep.equal([s[1]]);
      expect(await list('loginServer=fltxDEMO')).to.deep.equal([s[4]]);
    });

    it('loginServer takes % and _ literally, not as wildcards', async () => {
      expect(await list(`loginServer=${encodeURIComponent('100%')}`)).to.deep.equal([s[0]]);
      expect(await list('loginServer=T_D')).to.deep.equal([s[2]]);
      expect(await list(`loginServer=${encodeURIComponent('%')}`)).to.deep.equal([s[0]]);
    });

    it('loginAccountNumber is a case-insensitive partial match that takes _ literally', async () => {
      expect(sorted(await list('loginAccountNumber=ACC-'))).to.deep.equal(sorted([s[0], s[4]]));
      expect(await list('loginAccountNumber=C_B')).to.deep.equal([s[1]]);
      expect(await list('loginAccountNumber=accxb')).to.deep.equal([s[2]]);
    });

    it('alias is a case-insensitive partial match that takes % literally', async () => {
      expect(sorted(await list('alias=GROWTH'))).to.deep.equal(sorted([s[0], s[2]]));
      expect(await list(`alias=${encodeURIComponent('0%')}`)).to.deep.equal([s[4]]);
      expect(await list('alias=delta')).to.deep.equal([]);
    });

    it('accountStatusId keeps only that status, and 4 lists the deleted accounts', async () => {
      expect(sorted(await list('loginServer=FLT&accountStatusId=1'))).to.deep.equal(sorted([s[0], s[4]]));
      expect(await list('loginServer=FLT&accountStatusId=2')).to.deep.equal([s[1]]);
      expect(await list('loginServer=FLT&accountStatusId=3')).to.deep.equal([s[2]]);
      expect(await list('loginServer=FLT&accountStatusId=4')).to.deep.equal([s[3]]);
      expect(sorted(await list('loginServer=FLT'))).to.deep.equal(sorted([s[0], s[1], s[2], s[4]]));
    });

    it('combines filters with AND', async () => {
      expect(sorted(await list('regionId=3&accountTypeId=15'))).to.deep.equal(sorted([s[0], s[4]]));
      expect(await list('regionId=3&accountTypeId=16&alias=growth')).to.deep.equal([s[2]]);
      expect(await list('regionId=4&accountTypeId=15')).to.deep.equal([]);
    });

    it('limit returns at most that many, offset skips, both over the same order', async () => {
      const full = await list('loginServer=FLT');
      expect(full).to.have.length(4);

      expect(await list('loginServer=FLT&limit=2')).to.deep.equal(full.slice(0, 2));
      expect(await list('loginServer=FLT&offset=1')).to.deep.equal(full.slice(1));
      expect(await list('loginServer=FLT&limit=2&offset=2')).to.deep.equal(full.slice(2, 4));
      expect(await list('loginServer=FLT&limit=1&offset=3')).to.deep.equal(full.slice(3, 4));
      expect(await list('loginServer=FLT&offset=10')).to.deep.equal([]);
      expect(await list('limit=1')).to.have.length(1);
    });
  });

  describe('GET /accounts/configurationSummary', () => {
    it('answers the accounts with their copiers, risk limits and account features, and only there', async () => {
      const master = await create({ alias: 'summary master', loginAccountNumber: 'summary-m' });
      const slave = await create({ alias: 'summary slave', loginAccountNumber: 'summary-s' });
      const copier = await t.call('POST', `/accounts/${slave.id}/copiers`, { body: { fromAccountId: master.id, multiplier: 2 } });
      expect(copier.status, JSON.stringify(copier.body)).to.equal(200);
      const limit = await t.call('POST', `/accounts/${slave.id}/riskLimits`, { body: { riskType: { id: 1 }, riskLimit: 0, absoluteRiskLimit: 250 } });
      expect(limit.status, JSON.stringify(limit.body)).to.equal(200);
      const feature = await t.call('POST', `/accounts/${slave.id}/features`, {
        body: dataCollectorBody({ collectionIntervalSeconds: 60 }),
      });
      expect(feature.status, JSON.stringify(feature.body)).to.equal(200);

      const res = await t.call('GET', '/accounts/configurationSummary?alias=summary');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const byId = new Map(
        (res.body as (Record<string, unknown> & { id: string; copiers: Record<string, unknown>[]; riskLimits: Record<string, unknown>[] })[]).map((a) => [
          a.id,
          a,
        ]),
      );
      expect([...byId.keys()].sort()).to.deep.equal([master.id, slave.id].sort());
      expect(byId.get(master.id)).to.deep.include({ copiers: [], riskLimits: [], features: [] });
      const summary = byId.get(slave.id)!;
      expect(summary).to.deep.include({ alias: 'summary slave', ...accountStatus(1) });
      expect(summary.copiers).to.have.length(1);
      expect(summary.copiers[0]).to.deep.include({ id: copier.body.id, fromAccountId: master.id, multiplier: 2 });
      expect(summary.riskLimits).to.have.length(1);
      expect(summary.riskLimits[0]).to.deep.include({ id: limit.body.id, absoluteRiskLimit: 250, status: 'ARMED' });
      expect(summary.riskLimits[0]!.riskType).to.deep.include({ id: 1 });
      expect(summary.features).to.deep.equal([feature.body]);
      expectNoPassword(res);

      // Every other AccountDTO leaves the collections out.
      const one = await t.call('GET', `/accounts/${slave.id}`);
      expect(Object.keys(one.body)).to.have.members(ACCOUNT_MEMBERS);
      const bad = await t.call('GET', '/accounts/configurationSummary?limit=0');
      expectError(bad, 400, '[VALIDATION_FAILED]');
    });
  });

  describe('GET /types', () => {
    it('/types/accountTypes lists the 17 platform types; only 1 and 2 support pending-order expiry', async () => {
      const res = await t.call('GET', '/types/accountTypes');

      expect(res.status).to.equal(200);
      expect(res.body).to.have.length(17);
      expect(res.body.map((x: { id: number }) => x.id)).to.deep.equal(Array.from({ length: 17 }, (_, i) => i + 1));
      for (const type of res.body as { id: number; name: string; supportsPendingExpiry: boolean; supportsRelativeTpSl: boolean }[]) {
        expect(Object.keys(type)).to.have.members(['id', 'name', 'supportsPendingExpiry', 'supportsRelativeTpSl']);
        expect(type.supportsRelativeTpSl).to.equal(type.id === 5);
        expect(type.name).to.be.a('string').and.not.equal('');
        expect(type.supportsPendingExpiry).to.equal(type.id <= 2);
      }
    });

    it('/types/regions lists the 4 regions of the spec', async () => {
      const res = await t.call('GET', '/types/regions');

      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal([
        { id: 1, name: 'New York' },
        { id: 2, name: 'London' },
        { id: 3, name: 'Singapore' },
        { id: 4, name: 'Berlin' },
      ]);
    });

    it('/types/accountStatuses lists the 4 statuses of the spec', async () => {
      const res = await t.call('GET', '/types/accountStatuses');

      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal([
        { id: 1, name: 'New' },
        { id: 2, name: 'Active' },
        { id: 3, name: 'Stopped' },
        { id: 4, name: 'Deleted' },
      ]);
    });

    it('/types/currencyTypes, /types/proxyRegions and /types/notificationCategoryTypes list their ids', async () => {
      expect((await t.call('GET', '/types/currencyTypes')).body).to.deep.equal([
        { id: 1, name: 'USD' },
        { id: 2, name: 'EUR' },
        { id: 3, name: 'CHF' },
      ]);
      expect((await t.call('GET', '/types/proxyRegions')).body).to.deep.equal((await t.call('GET', '/types/regions')).body);
      expect((await t.call('GET', '/types/notificationCategoryTypes')).body).to.deep.equal([
        { id: 0, name: 'CONNECTION' },
        { id: 1, name: 'TRADING' },
        { id: 2, name: 'COPY' },
        { id: 3, name: 'BALANCE' },
        { id: 4, name: 'PROTECTION' },
      ]);
    });
  });

  describe('GET /projects/{projectId}/labels', () => {
    it('lists the labels of the accounts that are not deleted, each once, in alphabetical order', async () => {
      const projectId = (await t.call('GET', '/apiKeys/current')).body.projectId as string;
      const a = await create({ labels: ['zeta-label', 'alpha-label'] });
      await create({ labels: ['alpha-label', 'mid-label'] });
      const gone = await create({ labels: ['gone-label'] });
      await t.call('DELETE', `/accounts/${gone.id}`);

      const res = await t.call('GET', `/projects/${projectId}/labels`);

      expect(res.status).to.equal(200);
      expect(res.body).to.include.members(['alpha-label', 'mid-label', 'zeta-label']);
      expect(res.body).not.to.include('gone-label');
      expect(res.body).to.deep.equal([...new Set(res.body as string[])].sort());
      expect(a.labels).to.deep.equal(['zeta-label', 'alpha-label']);
      expectError(await t.call('GET', `/projects/${OTHER_PROJECT_ID}/labels`), 404, '[PROJECT_NOT_FOUND]');
    });
  });

  describe('GET /rest/api/v1/openapi.json', () => {
    const expectedOperations = [
      'get /accounts',
      'post /accounts',
      'get /accounts/{accountId}',
      'put /accounts/{accountId}',
      'delete /accounts/{accountId}',
      'post /accounts/{accountId}/actions/start',
      'post /accounts/{accountId}/actions/stop',
      'post /accounts/{accountId}/actions/reconnect',
      'get /accounts/{accountId}/auditLogs',
      'get /projects/{projectId}/auditLogs',
      'get /types/accountTypes',
      'get /types/regions',
      'get /types/accountStatuses',
      'get /types/currencyTypes',
      'get /types/proxyRegions',
      'get /types/notificationCategoryTypes',
      'get /projects/{projectId}/labels',
    ];

    const operationsOf = (doc: { paths: Record<string, Record<string, unknown>> }): string[] =>
      Object.entries(doc.paths).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m} ${p}`));

    it('answers without an API key, as OpenAPI 3.1 with the interface version and the X-API-KEY scheme', async () => {
      const res = await t.call('GET', '/openapi.json', { key: null });

      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.body.openapi).to.equal('3.1.0');
      expect(res.body.info.version).to.equal('1.2.6');
      expect(res.body.servers).to.deep.equal([{ url: '/rest/api/v1' }]);
      expect(res.body.components.securitySchemes.ApiKeyAuth).to.deep.equal({ type: 'apiKey', in: 'header', name: 'X-API-KEY' });
    });

    it('has an operation for every route the service declares, and no other', async () => {
      const res = await t.call('GET', '/openapi.json', { key: null });
      const declared = declareRoutes(t.service.services).specs.map((r) => `${r.method} ${r.path}`);

      expect(operationsOf(res.body)).to.have.members(declared);
      expect(declared).to.include.members(expectedOperations);
      const operationIds = Object.values(res.body.paths as Record<string, Record<string, { operationId: string }>>).flatMap((methods) =>
        Object.values(methods).map((o) => o.operationId),
      );
      expect(new Set(operationIds).size).to.equal(operationIds.length);
    });

    it('every $ref of every operation points to a schema component that exists', async () => {
      const res = await t.call('GET', '/openapi.json', { key: null });
      const schemas = res.body.components.schemas as Record<string, unknown>;
      const refs: string[] = [];
      const walk = (node: unknown): void => {
        if (Array.isArray(node)) node.forEach(walk);
        else if (node && typeof node === 'object') {
          for (const [k, v] of Object.entries(node)) {
            if (k === '$ref' && typeof v === 'string') refs.push(v);
            else walk(v);
          }
        }
      };
      walk(res.body.paths);
      walk(schemas);

      expect(refs.length).to.be.greaterThan(0);
      for (const ref of refs) {
        expect(ref).to.match(/^#\/components\/schemas\//);
        expect(schemas, ref).to.have.property(ref.replace('#/components/schemas/', ''));
      }
      expect(Object.keys(schemas)).to.include.members(['AccountDTO', 'ErrorDTO', 'AuditLogDTO']);
      const accountDto = schemas.AccountDTO as { properties: Record<string, unknown> };
      expect(Object.keys(accountDto.properties)).to.have.members([
        ...ACCOUNT_MEMBERS,
        ...OPTIONAL_ACCOUNT_MEMBERS,
        'failIfAccountExistsInProject',
        'copiers',
        'riskLimits',
        'features',
      ]);
      expect(res.body.paths['/accounts/{accountId}'].get.responses['200'].content['application/json'].schema).to.deep.equal({
        $ref: '#/components/schemas/AccountDTO',
      });
    });
  });
});
