// The access policy of an API key end to end (spec "Access policy of an API key"): field access on every
// response that carries the restricted DTOs, endpoint access with the usual bypass attempts sent as raw
// paths, the IP whitelist with and without a trusted proxy, CORS origins, hidden frontend features, the
// metadata endpoints, and that a change applies to the next request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createApp, declareRoutes } from '../../api/app.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { accountUpdate, createOtherProject, startTestService, type TestResponse, type TestService, validAccount } from '../support/service.js';

const P = DEFAULT_PROJECT_ID;
const KEYS = `/projects/${P}/apiKeys`;
const OTHER_PROJECT_ID = '88888888-8888-4888-8888-888888888888';
const OTHER_KEY = 'policy-other-project-key-0123456789';

const expectError = (res: TestResponse, status: number, code: string): void => {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body.error).to.equal(code);
};

/** A request sent with its path exactly as written: fetch would normalise dot segments first. */
const raw = (
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> => {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
};

describe('access policy of an API key end to end', () => {
  let t: TestService;
  let master: string;
  let slave: string;
  let copierId: string;
  let serviceOrigin: string;

  /** A key with this policy; its value. */
  const keyWith = async (accessPolicy: Record<string, unknown>) => {
    const res = await t.call('POST', KEYS, { body: { name: 'policy key', accessPolicy } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { id: string; key: string };
  };

  before(async () => {
    t = await startTestService({ env: { OPERATOR_DOMAIN: 'example.org' } });
    serviceOrigin = new URL(t.url).origin;
    await createOtherProject(t, OTHER_PROJECT_ID, OTHER_KEY);
    master = (await t.call('POST', '/accounts', { body: validAccount({ alias: 'Master A', loginAccountNumber: '9100001' }) })).body.id;
    slave = (await t.call('POST', '/accounts', { body: validAccount({ alias: 'Slave B', loginAccountNumber: '9100002' }) })).body.id;
    const copier = await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master, multiplier: 2 } });
    expect(copier.status, JSON.stringify(copier.body)).to.equal(200);
    copierId = copier.body.id;
  });
  after(() => t?.stop());

  describe('field access', () => {
    it('DENY_LIST hides the listed fields as null on every response that carries the DTO; the request succeeds', async () => {
      const { key } = await keyWith({
        enabled: true,
        fieldAccess: {
          mode: 'DENY_LIST',
          fields: ['alias', 'AccountInformationDTO: profitToday', 'AccountInformationDTO: connected', 'CopierDTO: multiplier'],
        },
      });

      const list = await t.call('GET', '/accounts', { key, hiddenAsNull: true });
      const one = await t.call('GET', `/accounts/${master}`, { key, hiddenAsNull: true });
      const masters = await t.call('GET', '/accounts/masters', { key, hiddenAsNull: true });
      const info = await t.call('GET', `/accounts/${master}/information`, { key, hiddenAsNull: true });
      const copiers = await t.call('GET', `/accounts/${slave}/copiers`, { key, hiddenAsNull: true });
      const copier = await t.call('GET', `/accounts/${slave}/copiers/${copierId}`, { key, hiddenAsNull: true });
      const updated = await t.call('PUT', `/accounts/${slave}`, { key, body: accountUpdate(validAccount(), { propFirm: true }), hiddenAsNull: true });
      const summary = await t.call('GET', '/accounts/configurationSummary', { key, hiddenAsNull: true });

      expect(list.status).to.equal(200);
      expect(list.body.map((a: { alias: unknown }) => a.alias)).to.deep.equal([null, null]);
      expect(list.body[0]).to.deep.include({ id: master, loginAccountNumber: '9100001' });
      expect(one.body).to.deep.include({ id: master, alias: null, loginServer: 'Demo-Server-01' });
      // The account's embedded AccountInformationDTO follows the AccountInformationDTO entries.
      expect(one.body.accountInformation).to.deep.include({ connected: null, status: 'New' });
      expect(masters.body[0].masterAccount.alias).to.equal(null);
      expect(masters.body[0].slaveAccounts[0]).to.deep.include({ id: slave, alias: null });
      expect(info.body.profitToday).to.equal(null);
      expect(info.body.connected).to.equal(null);
      expect(info.body).to.have.property('status', 'New');
      expect(copiers.body[0]).to.deep.include({ id: copierId, multiplier: null, fromAccountId: master });
      expect(copier.body.multiplier).to.equal(null);
      expect(updated.body).to.deep.include({ alias: null, propFirm: true });
      // The configuration summary nests CopierDTOs in AccountDTOs: both are filtered.
      const slaveSummary = summary.body.find((a: { id: string }) => a.id === slave);
      expect(slaveSummary).to.deep.include({ alias: null });
      expect(slaveSummary.copiers[0]).to.deep.include({ id: copierId, multiplier: null, fromAccountId: master });
      // filtered on a copy: the project key, at the same time, sees everything
      expect((await t.call('GET', `/accounts/${master}`)).body.alias).to.equal('Master A');
      expect((await t.call('GET', `/accounts/${slave}/copiers/${copierId}`)).body.multiplier).to.equal(2);
    });

    it('ALLOW_LIST shows only the listed fields (and ids); a DTO none of whose fields is listed is hidden whole', async () => {
      const { key } = await keyWith({ enabled: true, fieldAccess: { mode: 'ALLOW_LIST', fields: ['loginServer', 'CopierDTO: active'] } });

      const account = (
        await t.call('GET', `/accounts/${master}`, {
          key,
          beyondReference: 'the spec hides members as null, here even those the reference requires (type, region, loginAccountPassword)',
        })
      ).body;
      const copier = (await t.call('GET', `/accounts/${slave}/copiers/${copierId}`, { key, hiddenAsNull: true })).body;
      const info = (await t.call('GET', `/accounts/${master}/information`, { key, hiddenAsNull: true })).body;

      expect(
        Object.entries(account)
          .filter(([, v]) => v !== null)
          .map(([k]) => k)
          .sort(),
      ).to.deep.equal(['id', 'loginServer']);
      expect(
        Object.entries(copier)
          .filter(([, v]) => v !== null)
          .map(([k]) => k)
          .sort(),
      ).to.deep.equal(['active', 'id']);
      expect(Object.values(info).every((v) => v === null)).to.equal(true);
      expect(Object.keys(info)).to.include.members(['profitToday', 'openPositions', 'connected']);
    });

    it('a disabled policy hides nothing; a change applies to the next request', async () => {
      const { id, key } = await keyWith({ enabled: false, fieldAccess: { mode: 'DENY_LIST', fields: ['alias'] } });
      expect((await t.call('GET', `/accounts/${master}`, { key })).body.alias).to.equal('Master A');

      await t.call('PUT', `${KEYS}/${id}/accessPolicy`, { body: { enabled: true, fieldAccess: { mode: 'DENY_LIST', fields: ['alias'] } } });

      expect((await t.call('GET', `/accounts/${master}`, { key, hiddenAsNull: true })).body.alias).to.equal(null);
    });
  });

  describe('endpoint access', () => {
    it('ALLOW_LIST: only the listed method and path; everything else 403 [FORBIDDEN_ENDPOINT_NOT_ALLOWED], and nothing changes', async () => {
      const { key } = await keyWith({
        enabled: true,
        endpointAccess: {
          mode: 'ALLOW_LIST',
          rules: [
            { pathPattern: '/accounts', method: 'GET' },
            { pathPattern: '/accounts/{accountId}', method: 'GET' },
          ],
        },
      });

      expect((await t.call('GET', '/accounts', { key })).status).to.equal(200);
      expect((await t.call('GET', `/accounts/${master}`, { key })).status).to.equal(200);
      expectError(await t.call('DELETE', `/accounts/${master}`, { key }), 403, '[FORBIDDEN_ENDPOINT_NOT_ALLOWED]');
      expectError(await t.call('GET', `/accounts/${master}/information`, { key }), 403, '[FORBIDDEN_ENDPOINT_NOT_ALLOWED]');
      expectError(await t.call('POST', '/accounts', { key, body: validAccount() }), 403, '[FORBIDDEN_ENDPOINT_NOT_ALLOWED]');
      // blocked before the input is even looked at
      expectError(await t.call('PUT', `/accounts/${master}`, { key, body: { nonsense: true } }), 403, '[FORBIDDEN_ENDPOINT_NOT_ALLOWED]');
      expect((await t.call('GET', `/accounts/${master}`)).body.status.id).to.equal(1);
    });

    it('DENY_LIST cannot be bypassed with case, trailing slashes, //, dot segments, %2F, encoded letters, HEAD or a query', async () => {
      const { key } = await keyWith({
        enabled: true,
        endpointAccess: {
          mode: 'DENY_LIST',
          rules: [
            { pathPattern: '/accounts/*/information', method: 'ALL' },
            { pathPattern: '/accounts/**', method: 'DELETE' },
          ],
        },
      });
      const headers = { 'X-API-KEY': key };
      const base = '/rest/api/v1';
      expect((await raw(t.url, 'GET', `${base}/accounts/${master}`, headers)).status).to.equal(200);

      const attempts: [string, string][] = [
        ['GET', `${base}/accounts/${master}/information`],
        ['GET', `${base}/ACCOUNTS/${master}/INFORMATION`],
        ['GET', `${base}/Accounts/${master.toUpperCase()}/Information`],
        ['GET', `${base}/accounts/${master}/information/`],
        ['GET', `${base}/accounts/${master}/information?x=1`],
        ['HEAD', `${base}/accounts/${master}/information`],
        ['GET', `${base}/accounts/${master}//information`],
        ['GET', `${base}//accounts/${master}/information`],
        ['GET', `${base}/accounts/./${master}/information`],
        ['GET', `${base}/accounts/${master}/./information`],
        ['GET', `${base}/accounts/x/../${master}/information`],
        ['GET', `${base}/accounts/${master}%2Finformation`],
        ['GET', `${base}/accounts/${master}/%69nformation`],
        ['GET', `${base}/accounts/${master}/information;x=1`],
        ['DELETE', `${base}/accounts/${master}`],
        ['DELETE', `${base}/accounts/${master}/`],
        ['DELETE', `${base}/ACCOUNTS/${master}`],
        ['DELETE', `${base}/accounts/${slave}/copiers/${copierId}`],
      ];
      for (const [method, path] of attempts) {
        const res = await raw(t.url, method, path, headers);
        expect(res.status, `${method} ${path}: ${res.body}`).to.be.oneOf([400, 403, 404]);
        expect(res.body, `${method} ${path}`).not.to.include('"balance"');
      }
      // whatever reached a route was refused as that route
      for (const [method, path] of attempts.slice(0, 6)) {
        expect((await raw(t.url, method, path, headers)).status, `${method} ${path}`).to.equal(403);
      }
      expect((await t.call('GET', `/accounts/${master}`)).body.status.id).to.equal(1);
      expect((await t.call('GET', `/accounts/${slave}/copiers/${copierId}`)).status).to.equal(200);
    });

    it('* is one segment and ** any number: DELETE /accounts/* does not cover a copier, DELETE /accounts/** does', async () => {
      const one = await keyWith({ enabled: true, endpointAccess: { mode: 'DENY_LIST', rules: [{ pathPattern: '/accounts/*', method: 'DELETE' }] } });
      const deep = await keyWith({ enabled: true, endpointAccess: { mode: 'DENY_LIST', rules: [{ pathPattern: '/accounts/**', method: 'DELETE' }] } });
      const third = (await t.call('POST', '/accounts', { body: validAccount({ alias: 'Third C', loginAccountNumber: '9100003' }) })).body.id;
      const spare = await t.call('POST', `/accounts/${third}/copiers`, { body: { fromAccountId: master } });
      expect(spare.status, JSON.stringify(spare.body)).to.equal(200);

      expectError(await t.call('DELETE', `/accounts/${third}`, { key: one.key }), 403, '[FORBIDDEN_ENDPOINT_NOT_ALLOWED]');
      expectError(await t.call('DELETE', `/accounts/${third}/copiers/${spare.body.id}`, { key: deep.key }), 403, '[FORBIDDEN_ENDPOINT_NOT_ALLOWED]');
      expect((await t.call('DELETE', `/accounts/${third}/copiers/${spare.body.id}`, { key: one.key })).status).to.equal(200);
    });
  });

  describe('IP whitelist', () => {
    it('allows listed addresses and ranges (IPv4-mapped too), refuses others with 403 [FORBIDDEN_IP_NOT_ALLOWED]', async () => {
      for (const [whitelist, allowed] of [
        [['127.0.0.1'], true],
        [['127.0.0.0/8'], true],
        [['::ffff:127.0.0.1'], true],
        [['10.0.0.0/8', '2001:db8::/32'], false],
        [['::1'], false],
      ] as [string[], boolean][]) {
        const { key } = await keyWith({ enabled: true, ipWhitelist: whitelist });
        const res = await t.call('GET', '/accounts', { key });
        if (allowed) expect(res.status, JSON.stringify(whitelist)).to.equal(200);
        else expectError(res, 403, '[FORBIDDEN_IP_NOT_ALLOWED]');
      }
    });

    it('believes X-Forwarded-For only from a trusted proxy', async () => {
      const inside = await keyWith({ enabled: true, ipWhitelist: ['10.0.0.0/8'] });
      const proxyOnly = await keyWith({ enabled: true, ipWhitelist: ['127.0.0.1'] });
      const forwarded = { 'X-Forwarded-For': '10.1.2.3' };

      // no trusted proxy configured: the header is ignored, the client is 127.0.0.1
      expectError(await t.call('GET', '/accounts', { key: inside.key, headers: forwarded }), 403, '[FORBIDDEN_IP_NOT_ALLOWED]');
      expect((await t.call('GET', '/accounts', { key: proxyOnly.key, headers: forwarded })).status).to.equal(200);

      // the same service behind 127.0.0.1 as a trusted proxy: the client is 10.1.2.3
      const services = t.service.services;
      const app = createApp({ ...services, config: { ...services.config, trustedProxies: ['127.0.0.1'] } });
      const server = http.createServer(app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const get = async (key: string) => (await raw(base, 'GET', '/rest/api/v1/accounts', { 'X-API-KEY': key, ...forwarded })).status;
        expect(await get(inside.key)).to.equal(200);
        expect(await get(proxyOnly.key)).to.equal(403);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  });

  describe('CORS origins', () => {
    const preflight = (origin: string) =>
      raw(t.url, 'OPTIONS', '/rest/api/v1/accounts', { Origin: origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' });

    it('a preflight needs no key and is answered for any origin: the key decides on the actual request', async () => {
      const res = await preflight('https://anything.example.net');
      expect(res.status).to.equal(204);
      expect(res.headers['access-control-allow-origin']).to.equal('https://anything.example.net');
      expect(String(res.headers['access-control-allow-headers']).toLowerCase()).to.include('x-api-key');
    });

    it('allows the listed origins (subdomain wildcard, any case) and the operator domain; refuses others with 403 and no CORS header', async () => {
      const { key } = await keyWith({ enabled: true, corsOrigins: ['https://*.example.com', 'http://localhost:3000'] });
      const get = (origin: string) => t.call('GET', '/accounts', { key, headers: { Origin: origin } });

      for (const origin of [
        'https://app.example.com',
        'https://a.b.example.com',
        'https://APP.EXAMPLE.COM',
        'http://localhost:3000',
        'https://example.org',
        'https://console.example.org',
      ]) {
        const res = await get(origin);
        expect(res.status, origin).to.equal(200);
        expect(res.headers.get('access-control-allow-origin'), origin).to.equal(origin);
        expect(res.headers.get('access-control-expose-headers'), origin).to.include('X-Correlation-Id');
      }
      for (const origin of [
        'https://example.com',
        'https://example.com.evil.com',
        'https://evilexample.com',
        'http://app.example.com',
        'https://app.example.com:8443',
        'http://localhost:3001',
        'null',
        serviceOrigin,
      ]) {
        const res = await get(origin);
        expectError(res, 403, '[FORBIDDEN_ORIGIN_NOT_ALLOWED]');
        expect(res.headers.get('access-control-allow-origin'), origin).to.equal(null);
      }
      expect((await t.call('GET', '/accounts', { key })).status, 'no Origin: not a browser').to.equal(200);
    });

    it('a key without CORS origins answers every origin with its CORS headers', async () => {
      const res = await t.call('GET', '/accounts', { headers: { Origin: 'https://whatever.example.net' } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal('https://whatever.example.net');
    });
  });

  describe('hidden frontend features and the metadata endpoints', () => {
    it('hidden frontend features are kept as given and shown by GET /apiKeys/current; unknown ids are refused', async () => {
      const { key } = await keyWith({ enabled: true, hiddenFrontendFeatures: ['FINANCIAL_OVERVIEW', 'TRADING'] });
      expect((await t.call('GET', '/apiKeys/current', { key })).body.accessPolicy.hiddenFrontendFeatures).to.deep.equal(['FINANCIAL_OVERVIEW', 'TRADING']);
      const bad = await t.call('POST', KEYS, { body: { name: 'x', accessPolicy: { enabled: true, hiddenFrontendFeatures: ['NO_SUCH_PAGE'] } } });
      expectError(bad, 400, '[ACCESS_POLICY_INVALID]');
    });

    it('availableEndpoints lists every operation of the OpenAPI document with its summary', async () => {
      const res = await t.call('GET', `${KEYS}/availableEndpoints`);
      const declared = declareRoutes(t.service.services).specs.map((s) => `${s.method.toUpperCase()} ${s.path}`);
      expect(res.body.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).to.have.members(declared);
      expect(res.body.find((e: { path: string; method: string }) => e.path === '/accounts/{accountId}/information')).to.deep.include({
        method: 'GET',
        summary: 'Balance, equity, margin, results and state of the account',
      });
    });

    it('availableFields lists the restrictable fields of the three DTOs (never id); availableFrontendFeatures has id, name, description', async () => {
      const answer = (await t.call('GET', `${KEYS}/availableFields`)).body;
      expect(answer.find((f: { entry: string }) => f.entry === 'AccountInformationDTO: balance')).to.deep.include({
        fieldName: 'balance',
        fieldType: 'number',
        dtoClassName: 'AccountInformationDTO',
      });
      const fields = answer.map((f: { entry: string }) => f.entry);
      expect(fields).to.include.members([
        'AccountDTO: alias',
        'AccountDTO: loginServer',
        'AccountInformationDTO: balance',
        'AccountInformationDTO: openPositions',
        'CopierDTO: multiplier',
      ]);
      expect(fields).not.to.include.members(['AccountDTO: id', 'CopierDTO: id']);
      const features = (await t.call('GET', `${KEYS}/availableFrontendFeatures`)).body;
      expect(features.find((f: { id: string }) => f.id === 'FINANCIAL_OVERVIEW')).to.have.keys(['id', 'name', 'description']);
      expectError(await t.call('GET', `${KEYS}/availableFields`, { key: OTHER_KEY }), 404, '[PROJECT_NOT_FOUND]');
    });
  });
});
