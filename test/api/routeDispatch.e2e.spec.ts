// The API's routes dispatched by method and first path segment (api/dispatch.ts) end to end: a request
// reaches the route it reached when every route was declared on one router, with the same route, path
// and base for the handlers, the metrics and the audit log, and whatever no route serves still gets
// 404 [ENDPOINT_NOT_FOUND] or 405 [METHOD_NOT_ALLOWED] in the spec's error format.
import { expect } from 'chai';
import { FirstSegmentDispatch } from '../../api/dispatch.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { startTestService, type TestResponse, type TestService, validAccount } from '../support/service.js';

const expectError = (res: TestResponse, status: number, code: string): void => {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  expect(Object.keys(res.body).filter((k) => k !== 'details')).to.have.members(['error', 'message']);
  expect(res.body.error).to.equal(code);
};

describe('routes dispatched by method and first path segment', function () {
  // The service's start under a loaded machine (8 sessions on 2 cores) took over 60 s.
  this.timeout(300_000);
  let t: TestService;
  let base: string;
  let accountId: string;

  before(async () => {
    t = await startTestService({ venueTicker: false });
    base = t.url.replace(/\/rest\/api\/v1$/, '');
    const created = await t.call('POST', '/accounts', { body: validAccount({ loginAccountNumber: '5151001' }) });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    accountId = created.body.id;
  });
  after(() => t?.stop());

  it('serves a route among others of its segment, declared before and after it, as before', async () => {
    const one = await t.call('GET', `/accounts/${accountId}`);
    expect(one.status, JSON.stringify(one.body)).to.equal(200);
    expect(one.body.id).to.equal(accountId);
    // Declared before /accounts/{accountId} in the same group, and one of a longer path after it.
    expect((await t.call('GET', '/accounts/masters')).status).to.equal(200);
    const features = await t.call('GET', `/accounts/${accountId}/features`);
    expect(features.status, JSON.stringify(features.body)).to.equal(200);
    // Another segment, another method.
    expect((await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}`)).status).to.equal(200);
    const changed = await t.call('PUT', `/accounts/${accountId}`, { body: { ...validAccount({ loginAccountNumber: '5151001' }), alias: 'dispatched' } });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
    expect(changed.body.alias).to.equal('dispatched');
  });

  it('matches as the one router did: HEAD by the GET route, the segment in any case, a trailing slash', async () => {
    const head = await fetch(`${t.url}/accounts/${accountId}`, { method: 'HEAD', headers: { 'X-API-KEY': t.key } });
    expect(head.status).to.equal(200);
    expect(await head.text()).to.equal('');
    const upper = await t.call('GET', `/ACCOUNTS/${accountId}`, { checkContract: false });
    expect(upper.status, JSON.stringify(upper.body)).to.equal(200);
    expect(upper.body.id).to.equal(accountId);
    const slash = await t.call('GET', `/accounts/${accountId}/`, { checkContract: false });
    expect(slash.status, JSON.stringify(slash.body)).to.equal(200);
    expect(slash.body.id).to.equal(accountId);
  });

  it('answers what no route serves as before: 404 for an unknown segment or path, 405 with Allow for a known path', async () => {
    expectError(await t.call('GET', '/nothingHere/1', { checkContract: false }), 404, '[ENDPOINT_NOT_FOUND]');
    expectError(await t.call('GET', '/', { checkContract: false }), 404, '[ENDPOINT_NOT_FOUND]');
    expectError(await t.call('GET', `/accounts/${accountId}/nothing/here/at/all`, { checkContract: false }), 404, '[ENDPOINT_NOT_FOUND]');
    const patch = await t.call('PATCH', `/accounts/${accountId}`, { body: { alias: 'x' }, checkContract: false });
    expectError(patch, 405, '[METHOD_NOT_ALLOWED]');
    expect(patch.headers.get('allow')).to.equal('GET, PUT, DELETE');
    // A method no route has at all.
    const odd = await fetch(`${t.url}/accounts/${accountId}`, { method: 'PROPFIND', headers: { 'X-API-KEY': t.key } });
    expect(odd.status).to.equal(405);
    expect(((await odd.json()) as { error: string }).error).to.equal('[METHOD_NOT_ALLOWED]');
    // A handler's own refusal still leaves through the error handler.
    expectError(await t.call('GET', '/accounts/5b0c4b7e-3f4a-4d2e-9c1b-7a6e5d4c3b2a'), 404, '[ACCOUNT_NOT_FOUND]');
    expectError(await t.call('GET', '/accounts/not-a-uuid'), 400, '[VALIDATION_FAILED]');
    // A parameter that does not decode is refused by the route's match, as the router refused it.
    expectError(await t.call('GET', '/accounts/%E0%A4%A', { checkContract: false }), 400, '[BAD_REQUEST]');
  });

  it('labels the metrics with the route the request matched, under the API prefix', async () => {
    expect((await t.call('GET', `/accounts/${accountId}`)).status).to.equal(200);
    await t.call('GET', '/nothingHere/1', { checkContract: false });
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).to.match(/copytrade_http_requests_total\{[^}]*route="\/rest\/api\/v1\/accounts\/:accountId"[^}]*\} [1-9]/);
    expect(text).to.match(/copytrade_http_requests_total\{[^}]*route="\(unmatched\)"[^}]*status="404"[^}]*\} [1-9]/);
  });

  it('refuses to declare a route whose path does not start with a literal segment, or has a wildcard', () => {
    const dispatch = new FirstSegmentDispatch();
    expect(() => dispatch.routerFor('get', '/{accountId}/x')).to.throw(/literal segment/);
    expect(() => dispatch.routerFor('get', '/')).to.throw(/literal segment/);
    expect(() => dispatch.routerFor('get', '/accounts/*rest')).to.throw(/wildcards/);
    expect(() => dispatch.routerFor('get', '/accounts/')).to.throw(/wildcards/);
    // One group per method, first segment (in any case) and number of segments.
    expect(dispatch.routerFor('get', '/Accounts/{accountId}')).to.equal(dispatch.routerFor('get', '/accounts/masters'));
    expect(dispatch.routerFor('get', '/accounts/{accountId}')).not.to.equal(dispatch.routerFor('get', '/accounts'));
    expect(dispatch.routerFor('get', '/accounts/{accountId}')).not.to.equal(dispatch.routerFor('get', '/accounts/{accountId}/features'));
    expect(dispatch.routerFor('post', '/accounts')).not.to.equal(dispatch.routerFor('get', '/accounts'));
  });

  it('serves the operations without an API key through their own dispatch, before authentication', async () => {
    const error = async (res: Response) => [res.status, ((await res.json()) as { error: string }).error];
    // A charting alert's webhookId is its credential: a malformed one is refused by the route, not by the key check.
    expect(await error(await fetch(`${t.url}/webhooks/charting/nope`, { method: 'POST', body: 'buy' }))).to.deep.equal([404, '[WEBHOOK_NOT_FOUND]']);
    // A customer's own operation asks for its session, not for a key.
    expect(await error(await fetch(`${t.url}/customer`))).to.deep.equal([401, '[CUSTOMER_TOKEN_INVALID]']);
    // The same segment with another number of segments, or another method, goes on to authentication as before.
    expect(await error(await fetch(`${t.url}/customer/nothing/here`))).to.deep.equal([401, '[API_KEY_MISSING]']);
    expect(await error(await fetch(`${t.url}/customer`, { method: 'DELETE' }))).to.deep.equal([401, '[API_KEY_MISSING]']);
  });

  it('serves the documents without a key before the one layer of checks, and the metrics outside the API', async () => {
    // The documents' router is walked by their requests only (api/dispatch.ts underSegments), in any case.
    const doc = await fetch(`${t.url}/OpenAPI.json`);
    expect(doc.status).to.equal(200);
    expect(((await doc.json()) as { openapi: string }).openapi).to.match(/^3\./);
    expect((await fetch(`${t.url}/docs`)).status).to.equal(200);
    // Their segment without a route of theirs goes on to the checks as before: no key, 401.
    expect(await (async (res: Response) => [res.status, ((await res.json()) as { error: string }).error])(await fetch(`${t.url}/docs/nothing`))).to.deep.equal([
      401,
      '[API_KEY_MISSING]',
    ]);
    // The checks in their order: the key before the body (a body of a request without a key is not read).
    expect((await t.call('POST', '/accounts', { key: null, body: { not: 'checked' }, checkContract: false })).body.error).to.equal('[API_KEY_MISSING]');
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).to.equal(200);
    expect(await metrics.text()).to.include('copytrade_http_requests_total');
  });
});
