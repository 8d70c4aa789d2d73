// Customers of a white-label brand over HTTP (issue 23): registration under a restricted brand and sign-in
// with a code mailed through a local SMTP server (smtp-server), projects and accounts within the brand's
// limits, the operator's list, a blocked customer locked out everywhere, and a second brand's operator
// seeing nothing of the first. Nothing leaves the machine.
import { expect } from 'chai';
import { closeMonth } from '../../app/invoices.js';
import { settle } from '../../app/services.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { invoicesOfCustomer, invoicesOfProject } from '../../projections/invoices/queries.js';
import { type FakeSmtp, startFakeSmtp } from '../support/fakeSmtp.js';
import { createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';
import { eventually, featureBody } from '../support/trading.js';

const OTHER_PROJECT = '78787878-7878-4878-8878-787878787878';
const OTHER_KEY = 'customers-other-brand-project-key-01';
const A = 'trade.acme.test';
const B = 'trade.other.test';

const brandBody = (subdomain: string, members: Record<string, unknown> = {}) =>
  featureBody({ type: 'FeatureWhiteLabelDTO', name: 'Acme Trading', logo: 'https://cdn.acme.test/logo.svg', subdomain, stripeApiKey: '', ...members });

describe('white-label customers end to end', function () {
  this.timeout(180_000);
  let t: TestService;
  let smtp: FakeSmtp;
  let brandA: string;
  let brandB: string;
  let token = '';
  let projectId = '';
  let projectKey = '';
  let accountId = '';

  const customerCall = (method: string, route: string, options: { body?: unknown; bearer?: string | null } = {}) =>
    t.call(method, route, {
      key: null,
      ...(options.body !== undefined ? { body: options.body } : {}),
      headers: options.bearer === null ? {} : { authorization: `Bearer ${options.bearer ?? token}` },
    });

  /** Asks for a code and answers it with the code the mail carried. */
  const mailedCode = async (subdomain: string, email: string): Promise<{ codeId: string; code: string; purpose: string }> => {
    const before = smtp.mails.length;
    const asked = await customerCall('POST', `/whitelabel/${subdomain}/customers/code`, { body: { email }, bearer: null });
    expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
    return { codeId: asked.body.codeId, code: await smtp.codeFor(email, before), purpose: asked.body.purpose };
  };

  before(async () => {
    smtp = await startFakeSmtp();
    t = await startTestService({ env: { SMTP_URL: smtp.url, SMTP_FROM: 'Operator <ops@operator.test>' } });
    await createOtherProject(t, OTHER_PROJECT, OTHER_KEY);
    const a = await t.call('POST', `/projects/${DEFAULT_PROJECT_ID}/features`, {
      body: brandBody(A, {
        restrictRegistration: true,
        allowedEmailDomains: 'acme.test',
        allowedRegistrationEmails: 'bob@gmail.test',
        maxProjectsPerUser: 1,
        maxAccountsPerProject: 1,
        allowedRegions: [{ id: 2 }],
      }),
    });
    expect(a.status, JSON.stringify(a.body)).to.equal(200);
    brandA = a.body.id;
    const b = await t.call('POST', `/projects/${OTHER_PROJECT}/features`, { key: OTHER_KEY, body: brandBody(B, { name: 'Other Brand' }) });
    expect(b.status, JSON.stringify(b.body)).to.equal(200);
    brandB = b.body.id;
  });
  after(async () => {
    await t?.stop();
    await smtp?.close();
  });

  it('refuses to register an address outside the allowed domains, sending nothing', async () => {
    const refused = await customerCall('POST', `/whitelabel/${A}/customers/code`, { body: { email: 'eve@gmail.test' }, bearer: null });
    expect(refused.status).to.equal(403);
    expect(refused.body.error).to.equal('[CUSTOMER_REGISTRATION_NOT_ALLOWED]');
    const sub = await customerCall('POST', `/whitelabel/${A}/customers/code`, { body: { email: 'eve@mail.acme.test' }, bearer: null });
    expect(sub.status).to.equal(403);
    const unknownBrand = await customerCall('POST', '/whitelabel/trade.nowhere.test/customers/code', { body: { email: 'jane@acme.test' }, bearer: null });
    expect(unknownBrand.status).to.equal(404);
    expect(smtp.mails.filter((m) => m.to.startsWith('eve@'))).to.deep.equal([]);
  });

  it('registers an address inside them with the mailed code: a wrong code counts, the right one opens a session once', async () => {
    const look = await customerCall('GET', `/whitelabel/${A}/brand`, { bearer: null });
    expect(look.status).to.equal(200);
    expect(look.body).to.include({ name: 'Acme Trading', subdomain: A, restrictRegistration: true });
    const { codeId, code, purpose } = await mailedCode(A, 'Jane@Acme.test');
    expect(purpose).to.equal('REGISTRATION');
    const wrong = await customerCall('POST', `/whitelabel/${A}/customers/session`, {
      body: { codeId, code: code === '00000000' ? '11111111' : '00000000' },
      bearer: null,
    });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.error).to.equal('[CUSTOMER_CODE_INVALID]');
    const otherBrand = await customerCall('POST', `/whitelabel/${B}/customers/session`, { body: { codeId, code }, bearer: null });
    expect(otherBrand.status, 'a code of brand A does not open a session at brand B').to.equal(400);
    const session = await customerCall('POST', `/whitelabel/${A}/customers/session`, { body: { codeId, code }, bearer: null });
    expect(session.status, JSON.stringify(session.body)).to.equal(200);
    expect(session.body.registered).to.equal(true);
    expect(session.body.customer).to.include({ email: 'jane@acme.test', blocked: false, permissionType: 'READ_WRITE' });
    expect(session.body.customer.id).to.be.a('number');
    token = session.body.token;
    const again = await customerCall('POST', `/whitelabel/${A}/customers/session`, { body: { codeId, code }, bearer: null });
    expect(again.status, 'a code is used once').to.equal(400);
    const listed = (await customerCall('GET', '/customer')).body;
    expect(listed.customer.email).to.equal('jane@acme.test');
    expect(listed).to.include({ maxProjects: 1, maxAccountsPerProject: 1 });
    expect(listed.allowedRegionIds).to.deep.equal([2]);
    expect((await customerCall('GET', '/customer', { bearer: 'cst_not-a-token' })).status).to.equal(401);
    expect((await t.call('GET', '/customer')).body.error, 'an API key is no customer credential').to.equal('[CUSTOMER_SESSION_REQUIRED]');
  });

  it('creates a project and accounts within the limits, and refuses beyond them; its key reaches its own project only', async () => {
    const created = await customerCall('POST', '/customer/projects', { body: { name: 'Jane desk' } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    projectId = created.body.project.id;
    projectKey = created.body.key;
    const second = await customerCall('POST', '/customer/projects', { body: { name: 'Jane second desk' } });
    expect(second.status).to.equal(409);
    expect(second.body.error).to.equal('[CUSTOMER_PROJECT_LIMIT_REACHED]');

    const wrongRegion = await t.call('POST', '/accounts', { key: projectKey, body: validAccount({ region: { id: 1 }, loginAccountNumber: '7100001' }) });
    expect(wrongRegion.status).to.equal(403);
    expect(wrongRegion.body.error).to.equal('[REGION_NOT_ALLOWED]');
    const account = await t.call('POST', '/accounts', { key: projectKey, body: validAccount({ loginAccountNumber: '7100002' }) });
    expect(account.status, JSON.stringify(account.body)).to.be.oneOf([200, 201]);
    accountId = account.body.id;
    const beyond = await t.call('POST', '/accounts', { key: projectKey, body: validAccount({ loginAccountNumber: '7100003' }) });
    expect(beyond.status).to.equal(409);
    expect(beyond.body.error).to.equal('[CUSTOMER_ACCOUNT_LIMIT_REACHED]');

    expect((await t.call('GET', `/projects/${projectId}`, { key: projectKey })).status).to.equal(200);
    expect((await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}`, { key: projectKey })).status).to.equal(404);
    expect((await t.call('GET', `/accounts/${accountId}`)).status, "the operator's key does not reach the customer's account either").to.equal(404);
    const extra = await customerCall('POST', `/customer/projects/${projectId}/apiKeys`);
    expect(extra.status).to.equal(201);
    expect((await t.call('GET', '/accounts', { key: extra.body.key })).body.map((a: { id: string }) => a.id)).to.deep.equal([accountId]);
    expect((await customerCall('POST', `/customer/projects/${DEFAULT_PROJECT_ID}/apiKeys`)).status).to.equal(404);
  });

  it("shows the brand's customers to its operator only; the same address under a second brand is another customer", async () => {
    const list = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/features/${brandA}/whitelabel/customers`);
    expect(list.status).to.equal(200);
    expect(list.body).to.have.length(1);
    expect(list.body[0].customer).to.include({ email: 'jane@acme.test', blocked: false });
    expect(list.body[0].projectIds).to.deep.equal([projectId]);
    expect(list.body[0].activeProjectCount).to.equal(1);

    // Brand B restricts nothing: jane registers there too, as a customer of B alone.
    const { codeId, code, purpose } = await mailedCode(B, 'jane@acme.test');
    expect(purpose).to.equal('REGISTRATION');
    const atB = await customerCall('POST', `/whitelabel/${B}/customers/session`, { body: { codeId, code }, bearer: null });
    expect(atB.status).to.equal(200);
    expect(atB.body.customer.id).not.to.equal(list.body[0].customer.id);
    const bList = await t.call('GET', `/projects/${OTHER_PROJECT}/features/${brandB}/whitelabel/customers`, { key: OTHER_KEY });
    expect(bList.body.map((c: { customer: { id: number } }) => c.customer.id)).to.deep.equal([atB.body.customer.id]);
    expect(JSON.stringify(bList.body)).not.to.include(projectId);
    for (const path of [
      `/projects/${DEFAULT_PROJECT_ID}/features/${brandA}/whitelabel/customers`,
      `/projects/${OTHER_PROJECT}/features/${brandA}/whitelabel/customers`,
    ]) {
      const res = await t.call('GET', path, { key: OTHER_KEY });
      expect(res.status, path).to.equal(404);
    }
    const foreignBlock = await t.call('PUT', `/projects/${OTHER_PROJECT}/features/${brandA}/whitelabel/customers/block`, {
      key: OTHER_KEY,
      body: { email: 'jane@acme.test' },
    });
    expect(foreignBlock.status).to.equal(404);
    // B's operator blocking "jane" blocks B's customer, never A's.
    expect((await customerCall('GET', '/customer')).status).to.equal(200);
  });

  it('blocks a customer: its keys and session stop at the next request, its account stops with the reason in its log, and a summary is mailed', async () => {
    const start = await t.call('POST', `/accounts/${accountId}/actions/start`, { key: projectKey });
    expect(start.status, JSON.stringify(start.body)).to.be.oneOf([200, 204]);
    const blocked = await t.call('PUT', `/projects/${DEFAULT_PROJECT_ID}/features/${brandA}/whitelabel/customers/block`, {
      body: { email: 'JANE@acme.test', reason: 'chargeback' },
    });
    expect(blocked.status, JSON.stringify(blocked.body)).to.equal(202);
    expect(blocked.body).to.include({ email: 'jane@acme.test', status: 'QUEUED' });
    expect(blocked.body.projectIds).to.deep.equal([projectId]);

    const keyRefused = await t.call('GET', '/accounts', { key: projectKey });
    expect(keyRefused.status).to.be.oneOf([401, 403]);
    const tokenRefused = await customerCall('GET', '/customer');
    expect(tokenRefused.status).to.be.oneOf([401, 403]);
    const codeRefused = await customerCall('POST', `/whitelabel/${A}/customers/code`, { body: { email: 'jane@acme.test' }, bearer: null });
    expect(codeRefused.status).to.equal(403);
    expect(codeRefused.body.error).to.equal('[CUSTOMER_BLOCKED]');

    const done = await eventually(
      async () => {
        const list = (await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/features/${brandA}/whitelabel/customers`)).body;
        return list[0].blockCompleted ? list[0] : undefined;
      },
      30_000,
      'the block job',
    );
    expect(done.customer.blocked).to.equal(true);
    expect(done.blockedReason).to.equal('chargeback');
    expect(done.activeProjectCount).to.equal(0);
    const suspended = await t.call('GET', '/accounts', { key: projectKey });
    expect(suspended.status).to.equal(403);
    expect(suspended.body.error).to.equal('[CUSTOMER_BLOCKED]');
    const ownProject = await t.call('GET', `/projects/${projectId}`, { key: projectKey });
    expect(ownProject.status, 'its own project still says why').to.equal(200);
    expect(ownProject.body.blocked).to.equal(true);
    expect((await t.call('PUT', `/projects/${projectId}`, { key: projectKey, body: ownProject.body })).status).to.equal(403);
    expect((await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}`)).body.blocked, "the operator's own project").to.equal(false);
    const db = t.service.services.db;
    const row = await db.selectFrom('accounts').select('account_status_id').where('id', '=', accountId).executeTakeFirstOrThrow();
    expect(row.account_status_id, 'stopped').to.equal(3);
    const keys = await db.selectFrom('api_keys').select(['revoked_reason']).where('project_id', '=', projectId).execute();
    expect(
      keys.map((k) => k.revoked_reason),
      'suspended, not revoked',
    ).to.deep.equal(keys.map(() => null));
    const lines = await db
      .selectFrom('account_logs')
      .select(['message', 'code'])
      .where('account_id', '=', accountId)
      .where('code', '=', '[CUSTOMER_BLOCKED]')
      .execute();
    expect(lines).to.have.length(1);
    expect(lines[0]!.message).to.include('chargeback');
    const summary = await eventually(async () => smtp.mails.find((m) => m.to === 'ops@operator.test'), 15_000, 'the summary e-mail');
    expect(summary.raw).to.include('jane@acme.test');
    expect(summary.raw).to.include('Accounts stopped: 1');
    // Jane at brand B is another customer: still in.
    expect((await t.call('GET', `/projects/${OTHER_PROJECT}/features/${brandB}/whitelabel/customers`, { key: OTHER_KEY })).body[0].customer.blocked).to.equal(
      false,
    );
  });

  it('unblocks the customer: its keys work at the next request, the account the block stopped trades again, a summary is mailed', async () => {
    const brandPath = `/projects/${DEFAULT_PROJECT_ID}/features/${brandA}/whitelabel/customers`;
    const foreign = await t.call('PUT', `/projects/${OTHER_PROJECT}/features/${brandA}/whitelabel/customers/unblock`, {
      key: OTHER_KEY,
      body: { email: 'jane@acme.test' },
    });
    expect(foreign.status, "another brand's operator").to.equal(404);
    const unknown = await t.call('PUT', `${brandPath}/unblock`, { body: { email: 'nobody@acme.test' } });
    expect(unknown.status).to.equal(404);
    const unblocked = await t.call('PUT', `${brandPath}/unblock`, { body: { email: 'Jane@Acme.test' } });
    expect(unblocked.status, JSON.stringify(unblocked.body)).to.equal(202);
    expect(unblocked.body).to.include({ email: 'jane@acme.test' });
    expect(unblocked.body.accountIds).to.deep.equal([accountId]);
    expect(unblocked.body.projectIds).to.deep.equal([projectId]);
    const again = await t.call('PUT', `${brandPath}/unblock`, { body: { email: 'jane@acme.test' } });
    expect(again.status).to.equal(409);
    expect(again.body.error).to.equal('[CUSTOMER_NOT_BLOCKED]');

    const accounts = await t.call('GET', '/accounts', { key: projectKey });
    expect(accounts.status, 'the suspended key works again at once').to.equal(200);
    expect((await t.call('GET', `/projects/${projectId}`, { key: projectKey })).body.blocked).to.equal(false);
    expect((await customerCall('GET', '/customer')).status, 'the old session stays ended').to.equal(401);
    const { codeId, code, purpose } = await mailedCode(A, 'jane@acme.test');
    expect(purpose).to.equal('SIGN_IN');
    const session = await customerCall('POST', `/whitelabel/${A}/customers/session`, { body: { codeId, code }, bearer: null });
    expect(session.status, JSON.stringify(session.body)).to.equal(200);
    expect(session.body.customer.blocked).to.equal(false);
    token = session.body.token;
    expect((await customerCall('GET', '/customer')).body.projects.map((p: { id: string }) => p.id)).to.deep.equal([projectId]);

    const done = await eventually(
      async () => {
        const list = (await t.call('GET', brandPath)).body;
        return list[0].unblockCompleted ? list[0] : undefined;
      },
      30_000,
      'the unblock job',
    );
    expect(done.customer.blocked).to.equal(false);
    expect(done.blockedAt).to.equal(null);
    expect(done.unblockedAt).to.be.a('string');
    expect(done.activeProjectCount).to.equal(1);
    const account = await t.call('GET', `/accounts/${accountId}`, { key: projectKey });
    expect(account.body.status, JSON.stringify(account.body)).to.deep.include({ id: 2 });
    const summary = await eventually(
      async () => smtp.mails.find((m) => m.to === 'ops@operator.test' && m.raw.includes('unblocked')),
      15_000,
      'the unblock e-mail',
    );
    expect(summary.raw).to.include('Accounts started again: 1');
  });

  it("bills the customer's projects to the customer: the month's invoice names the customer and its brand", async () => {
    const services = t.service.services;
    const now = services.clock();
    await settle(services);
    await closeMonth(services, { year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 });
    await settle(services);
    const invoices = await invoicesOfProject(services.db, projectId);
    expect(invoices).to.have.length(1);
    const customer = (await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/features/${brandA}/whitelabel/customers`)).body[0];
    expect(invoices[0]).to.include({ customer_email: 'jane@acme.test', brand_feature_id: brandA, customer_id: String(customer.customer.id) });
    expect((await invoicesOfCustomer(services.db, String(customer.customer.id))).map((i) => i.invoice_number)).to.deep.equal([invoices[0]!.invoice_number]);
  });
});
