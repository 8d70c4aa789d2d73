// Payouts to signal providers for a white-label brand's operator (issue 23: exported, never sent): a
// customer's account is a signal provider (31 a month, no profit sharing); the operator's own account
// follows it from 5 January on a virtual clock. On 2 February the operator's export of January gives
// 27 days x 31 / 31 = 27.00 for the provider, with the customer's payout method as recorded; another
// brand's operator reaches none of it.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { type FakeSmtp, startFakeSmtp } from '../support/fakeSmtp.js';
import { createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';
import { featureBody, movableClock, startedAccount } from '../support/trading.js';

const OTHER_PROJECT = '6c6c6c6c-6c6c-46c6-86c6-6c6c6c6c6c6c';
const OTHER_KEY = 'wl-payouts-other-brand-project-key-01';
const A = 'trade.acme-payouts.test';

describe('white-label payouts to signal providers, exported', function () {
  this.timeout(180_000);
  const clock = movableClock(Date.parse('2026-01-05T10:00:00.000Z'));
  let t: TestService;
  let smtp: FakeSmtp;
  let brand: string;
  let brandB: string;
  let customerId: number;
  let projectKey: string;
  let bearer: Record<string, string>;
  let providerId: string;
  const base = () => `/projects/${DEFAULT_PROJECT_ID}/features/${brand}/whitelabel`;

  before(async () => {
    smtp = await startFakeSmtp();
    t = await startTestService({ clock, env: { SMTP_URL: smtp.url, SMTP_FROM: 'ops@operator.test' } });
    await createOtherProject(t, OTHER_PROJECT, OTHER_KEY);
    const body = (subdomain: string) =>
      featureBody({ type: 'FeatureWhiteLabelDTO', name: 'Acme Payouts', logo: 'https://cdn.acme.test/logo.svg', subdomain, stripeApiKey: '' });
    brand = (await t.call('POST', `/projects/${DEFAULT_PROJECT_ID}/features`, { body: body(A) })).body.id;
    brandB = (await t.call('POST', `/projects/${OTHER_PROJECT}/features`, { key: OTHER_KEY, body: body('trade.other-payouts.test') })).body.id;
    const asked = await t.call('POST', `/whitelabel/${A}/customers/code`, { key: null, body: { email: 'pat@acme.test' } });
    const session = await t.call('POST', `/whitelabel/${A}/customers/session`, {
      key: null,
      body: { codeId: asked.body.codeId, code: await smtp.codeFor('pat@acme.test') },
    });
    expect(session.status, JSON.stringify(session.body)).to.equal(200);
    customerId = session.body.customer.id;
    expect(session.body.customer.payoutMethod, 'none recorded yet').to.deep.equal({ wiseDetails: [] });
    bearer = { authorization: `Bearer ${session.body.token}` };
    const project = await t.call('POST', '/customer/projects', {
      key: null,
      headers: bearer,
      body: { name: 'Pat signals' },
    });
    expect(project.status, JSON.stringify(project.body)).to.equal(201);
    projectKey = project.body.key;
    const source = await t.call('POST', '/accounts', { key: projectKey, body: validAccount({ loginServer: 'Sim-Demo', loginAccountNumber: '7400001' }) });
    expect(source.status, JSON.stringify(source.body)).to.equal(200);
    const provider = await t.call('POST', `/accounts/${source.body.id}/features`, {
      key: projectKey,
      body: featureBody({
        type: 'FeatureSignalProviderDTO',
        name: 'Pat signals',
        makeVisibleInMarketplace: true,
        billingModel: 'MONTHLY_PROFIT',
        monthlySubscriptionFee: 31,
        profitSharingFee: 0,
        copier: { multiplier: 1 },
      }),
    });
    expect(provider.status, JSON.stringify(provider.body)).to.equal(200);
    providerId = provider.body.id;
    const follower = await startedAccount(t, 'payouts-follower');
    const followed = await t.call('POST', `/accounts/${follower}/features`, {
      body: featureBody({ type: 'FeatureSignalFollowerDTO', signalProviderId: providerId }),
    });
    expect(followed.status, JSON.stringify(followed.body)).to.equal(200);
    clock.advance(Date.parse('2026-02-02T08:00:00.000Z') - clock().getTime());
  });
  after(async () => {
    await t?.stop();
    await smtp?.close();
  });

  it("records the customer's payout method (an event; malformed addresses refused)", async () => {
    const bad = await t.call('PUT', `${base()}/customers/${customerId}/payoutMethod`, { body: { wiseDetails: [{ email: 'not an address' }] } });
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.equal('[VALIDATION_FAILED]');
    const set = await t.call('PUT', `${base()}/customers/${customerId}/payoutMethod`, { body: { wiseDetails: [{ email: 'Pat@Wise.test' }] } });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect(set.body).to.deep.equal({ wiseDetails: [{ email: 'pat@wise.test' }] });
    const types: string[] = [];
    for await (const e of t.service.services.store.readStream(`payout-method-${customerId}`)) types.push(e.event.type);
    expect(types).to.deep.equal(['PayoutMethodSet']);
  });

  it("exports January: the provider's fees and where to pay them, never sent", async () => {
    const res = await t.call('GET', `${base()}/payouts`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.have.length(1);
    expect(res.body[0]).to.include({
      signalProviderId: providerId,
      customerId,
      year: 2026,
      month: 1,
      subscriptionAmount: 27,
      total: 27,
      status: 'NOT_SENT',
      monthEnded: true,
    });
    expect(res.body[0].payoutMethod).to.deep.equal({ wiseDetails: [{ email: 'pat@wise.test' }] });
    const csv = await t.call('GET', `${base()}/payouts/export?year=2026&month=1`);
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    const lines = String(csv.body).trim().split('\r\n');
    expect(lines[0]).to.equal(
      'year,month,signalProviderId,accountId,projectId,customerId,customerEmail,wiseEmail,subscriptionAmount,profitSharingAmount,total,currency,monthEnded',
    );
    expect(lines[1]).to.include(`,pat@acme.test,pat@wise.test,27.00,0.00,27.00,USD,true`);
  });

  it('lets the signed-in customer record its own payout method by the same rules; answered as CustomerDTO.payoutMethod', async () => {
    const events = async () => {
      const types: string[] = [];
      for await (const e of t.service.services.store.readStream(`payout-method-${customerId}`)) types.push(e.event.type);
      return types;
    };
    // the session of January has expired (12 hours): sign in again
    const expired = await t.call('PUT', '/customer/payoutMethod', { key: null, headers: bearer, body: { wiseDetails: [] } });
    expect(expired.status).to.equal(401);
    expect(expired.body.error).to.equal('[CUSTOMER_TOKEN_INVALID]');
    const before = smtp.mails.length;
    const asked = await t.call('POST', `/whitelabel/${A}/customers/code`, { key: null, body: { email: 'pat@acme.test' } });
    const session = await t.call('POST', `/whitelabel/${A}/customers/session`, {
      key: null,
      body: { codeId: asked.body.codeId, code: await smtp.codeFor('pat@acme.test', before) },
    });
    expect(session.status, JSON.stringify(session.body)).to.equal(200);
    expect(session.body.customer.payoutMethod, "the operator's").to.deep.equal({ wiseDetails: [{ email: 'pat@wise.test' }] });
    bearer = { authorization: `Bearer ${session.body.token}` };
    const bad = await t.call('PUT', '/customer/payoutMethod', { key: null, headers: bearer, body: { wiseDetails: [{ email: 'nope' }] } });
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.equal('[VALIDATION_FAILED]');
    const tooMany = Array.from({ length: 6 }, (_, i) => ({ email: `pat${i}@wise.test` }));
    const many = await t.call('PUT', '/customer/payoutMethod', { key: null, headers: bearer, body: { wiseDetails: tooMany } });
    expect(many.status).to.equal(400);
    expect(many.body.error).to.equal('[VALIDATION_FAILED]');
    const unknown = await t.call('PUT', '/customer/payoutMethod', { key: null, headers: bearer, body: { wiseDetails: [], iban: 'CH93' } });
    expect(unknown.status).to.equal(400);
    const withKey = await t.call('PUT', '/customer/payoutMethod', { key: projectKey, body: { wiseDetails: [{ email: 'x@wise.test' }] } });
    expect(withKey.status).to.equal(403);
    expect(withKey.body.error).to.equal('[CUSTOMER_SESSION_REQUIRED]');
    const noToken = await t.call('PUT', '/customer/payoutMethod', { key: null, body: { wiseDetails: [{ email: 'x@wise.test' }] } });
    expect(noToken.status).to.equal(401);
    expect(await events(), 'nothing recorded by a refusal').to.deep.equal(['PayoutMethodSet']);

    const set = await t.call('PUT', '/customer/payoutMethod', { key: null, headers: bearer, body: { wiseDetails: [{ email: ' Pat.Own@Wise.test ' }] } });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect(set.body).to.deep.equal({ wiseDetails: [{ email: 'pat.own@wise.test' }] });
    const again = await t.call('PUT', '/customer/payoutMethod', { key: null, headers: bearer, body: { wiseDetails: [{ email: 'pat.own@wise.test' }] } });
    expect(again.status).to.equal(200);
    expect(await events(), 'the same method again records nothing').to.deep.equal(['PayoutMethodSet', 'PayoutMethodSet']);

    const me = await t.call('GET', '/customer', { key: null, headers: bearer });
    expect(me.status).to.equal(200);
    expect(me.body.customer.payoutMethod).to.deep.equal({ wiseDetails: [{ email: 'pat.own@wise.test' }] });
    const list = await t.call('GET', `${base()}/customers`);
    expect(list.status).to.equal(200);
    expect(list.body.map((c: { customer: { id: number; payoutMethod: unknown } }) => [c.customer.id, c.customer.payoutMethod])).to.deep.equal([
      [customerId, { wiseDetails: [{ email: 'pat.own@wise.test' }] }],
    ]);
    const csv = await t.call('GET', `${base()}/payouts/export?year=2026&month=1`);
    expect(String(csv.body)).to.include(',pat@acme.test,pat.own@wise.test,27.00,');
  });

  it("shows another brand's operator nothing of it", async () => {
    const other = await t.call('GET', `/projects/${OTHER_PROJECT}/features/${brandB}/whitelabel/payouts?year=2026&month=1`, { key: OTHER_KEY });
    expect(other.status).to.equal(200);
    expect(other.body).to.deep.equal([]);
    const foreign = await t.call('PUT', `/projects/${OTHER_PROJECT}/features/${brandB}/whitelabel/customers/${customerId}/payoutMethod`, {
      key: OTHER_KEY,
      body: { wiseDetails: [] },
    });
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error).to.equal('[CUSTOMER_NOT_FOUND]');
  });
});
