// End to end: which Open API application a cTrader account connects under (engine/venues/applications.ts),
// against the local fake endpoint (test/support/fakeCTrader.ts; nothing leaves 127.0.0.1), with no
// CTRADER_CLIENT_* configured. The fake issues each token to one application, so an account connects only
// under the application its token was granted: its own (the account's ctraderClientId/ctraderClientSecret)
// beats its brand's (the white label's), which serves the brand's project and its customers' projects; an
// account with neither is refused at start with [INVALID_CREDENTIALS] and the service runs on.
import { expect } from 'chai';
import { PT } from '../../engine/venues/ctrader/protocol.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { ctraderAccount, ctraderEnv, startedFakeCTrader } from '../support/ctraderService.js';
import type { FakeCTrader } from '../support/fakeCTrader.js';
import { type FakeSmtp, startFakeSmtp } from '../support/fakeSmtp.js';
import { startTestService, type TestService } from '../support/service.js';
import { featureBody, marketHoursClock } from '../support/trading.js';

const BRAND = 'trade.acme-ctrader.test';
const OWN = { ctraderClientId: 'own-app', ctraderClientSecret: 'own-secret' };

describe('cTrader: the account’s own Open API application, its brand’s, and none (no CTRADER_CLIENT_*)', function () {
  this.timeout(240_000);
  let fake: FakeCTrader;
  let smtp: FakeSmtp;
  let t: TestService;
  const clock = marketHoursClock();
  /** The applications the endpoint authenticated, in order. */
  const appsAuthenticated = () => fake.frames.filter((f) => f.payloadType === PT.APPLICATION_AUTH_REQ).map((f) => (f.payload as { clientId: string }).clientId);
  const connected = async (accountId: string, key?: string) =>
    (await t.call('GET', `/accounts/${accountId}/information`, key ? { key } : {})).body as { connected: boolean };

  before(async () => {
    fake = await startedFakeCTrader(clock, {}, { 'own-app': 'own-secret', 'brand-app': 'brand-secret' });
    fake.addAccount({ ctid: 42_002, traderLogin: 7002, token: 'token-own', clientId: 'own-app' });
    fake.addAccount({ ctid: 42_003, traderLogin: 7003, token: 'token-brand', clientId: 'brand-app' });
    fake.addAccount({ ctid: 42_004, traderLogin: 7004, token: 'token-own-too', clientId: 'own-app' });
    fake.addAccount({ ctid: 42_005, traderLogin: 7005, token: 'token-customer', clientId: 'brand-app' });
    smtp = await startFakeSmtp();
    const { CTRADER_CLIENT_ID: _id, CTRADER_CLIENT_SECRET: _secret, ...env } = ctraderEnv(fake);
    t = await startTestService({ clock, env: { ...env, SMTP_URL: smtp.url, SMTP_FROM: 'Operator <ops@operator.test>' } });
  });
  after(async () => {
    await t?.stop();
    await fake?.stop();
    await smtp?.close();
  });

  it('an account with an application of its own connects under it; one with none is refused at start, and the service runs on', async () => {
    const none = await ctraderAccount(t, 'No application', '7001', 'token-good');
    expect([none.started!.status, none.started!.body.error], JSON.stringify(none.started!.body)).to.deep.equal([400, '[INVALID_CREDENTIALS]']);
    expect(none.started!.body.message).to.include('no cTrader Open API application for this account').and.include('ctraderClientId');
    expect(appsAuthenticated(), 'nothing was sent for it').to.deep.equal([]);
    // With no session, the account says why it is not connected, not only its status name.
    expect((await t.call('GET', `/accounts/${none.id}`)).body.statusMessage).to.match(
      /^refused by its venue: \[INVALID_CREDENTIALS\] no cTrader Open API application for this account/,
    );

    const own = await ctraderAccount(t, 'Own application', '7002', 'token-own', true, { members: OWN });
    expect(own.started!.status, JSON.stringify(own.started!.body)).to.equal(200);
    expect(await connected(own.id)).to.include({ connected: true });
    expect((await t.call('GET', `/accounts/${own.id}`)).body).to.include({ ctraderClientId: 'own-app', ctraderClientSecret: '********' });
    expect(await connected(none.id)).to.include({ connected: false });
    expect(appsAuthenticated()).to.deep.equal(['own-app']);
  });

  it("the account's own application beats its brand's; the brand's serves the brand's project and its customers' projects", async () => {
    const brand = await t.call('POST', `/projects/${DEFAULT_PROJECT_ID}/features`, {
      body: featureBody({
        type: 'FeatureWhiteLabelDTO',
        name: 'Acme cTrader',
        logo: 'https://cdn.acme.test/l.svg',
        subdomain: BRAND,
        stripeApiKey: '',
        ctraderClientId: 'brand-app',
        ctraderClientSecret: 'brand-secret',
      }),
    });
    expect(brand.status, JSON.stringify(brand.body)).to.equal(200);
    const before = appsAuthenticated().length;

    // Its token was granted to its own application: under the brand's it would be refused.
    const own = await ctraderAccount(t, 'Own beats brand', '7004', 'token-own-too', true, { members: OWN });
    expect(own.started!.status, JSON.stringify(own.started!.body)).to.equal(200);
    const brands = await ctraderAccount(t, 'Brand application', '7003', 'token-brand');
    expect(brands.started!.status, JSON.stringify(brands.started!.body)).to.equal(200);

    // A customer of the brand signs in by mailed code, opens a project and a cTrader account in it.
    const email = 'trader@acme-ctrader.test';
    const mails = smtp.mails.length;
    const asked = await t.call('POST', `/whitelabel/${BRAND}/customers/code`, { key: null, body: { email } });
    expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
    const code = await smtp.codeFor(email, mails);
    const session = await t.call('POST', `/whitelabel/${BRAND}/customers/session`, { key: null, body: { codeId: asked.body.codeId, code } });
    expect(session.status, JSON.stringify(session.body)).to.equal(200);
    const project = await t.call('POST', '/customer/projects', {
      key: null,
      headers: { authorization: `Bearer ${session.body.token}` },
      body: { name: 'cTrader desk' },
    });
    expect(project.status, JSON.stringify(project.body)).to.equal(201);
    const key = project.body.key as string;
    const customers = await ctraderAccount(t, 'Customer account', '7005', 'token-customer', true, { key });
    expect(customers.started!.status, JSON.stringify(customers.started!.body)).to.equal(200);

    for (const [id, k] of [[own.id], [brands.id], [customers.id, key]] as [string, string?][]) expect(await connected(id, k)).to.include({ connected: true });
    expect(appsAuthenticated().slice(before)).to.deep.equal(['own-app', 'brand-app', 'brand-app']);
  });
});
