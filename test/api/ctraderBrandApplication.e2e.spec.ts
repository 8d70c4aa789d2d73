// End to end with a white-label brand's own cTrader Open API application against the local fake
// endpoint (test/support/fakeCTrader.ts; nothing leaves 127.0.0.1): tokens are issued to one
// application, so an account whose token the brand's application was granted connects only once the
// brand's white label names that application (ctraderClientId/ctraderClientSecret); before, it connects
// under CTRADER_CLIENT_ID and is refused.
import { expect } from 'chai';
import { PT } from '../../engine/venues/ctrader/protocol.js';
import { ctraderAccount, ctraderEnv, startedFakeCTrader } from '../support/ctraderService.js';
import type { FakeCTrader } from '../support/fakeCTrader.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { startTestService, type TestService } from '../support/service.js';
import { featureBody, marketHoursClock } from '../support/trading.js';

describe("cTrader under a brand's own Open API application end to end (fake Open API endpoint)", function () {
  this.timeout(240_000);
  let fake: FakeCTrader;
  let t: TestService;
  const clock = marketHoursClock();

  beforeEach(async () => {
    fake = await startedFakeCTrader(clock, { token: 'token-of-brand-app', clientId: 'brand-app' }, { 'brand-app': 'brand-secret' });
    t = await startTestService({ clock, env: ctraderEnv(fake) });
  });
  afterEach(async () => {
    await t.stop();
    await fake.stop();
  });

  it("connects the brand's accounts under the brand's application, and under CTRADER_CLIENT_ID before it has one", async () => {
    const { id: account, started } = await ctraderAccount(t, 'Brand account', '7001', 'token-of-brand-app');
    expect(started!.status).to.equal(400);
    expect(started!.body.error).to.equal('[INVALID_CREDENTIALS]');
    const appsAuthenticated = () =>
      fake.frames.filter((f) => f.payloadType === PT.APPLICATION_AUTH_REQ).map((f) => (f.payload as { clientId: string }).clientId);
    expect(appsAuthenticated()).to.deep.equal(['app-id']);
    const brand = await t.call('POST', `/projects/${DEFAULT_PROJECT_ID}/features`, {
      body: featureBody({
        type: 'FeatureWhiteLabelDTO',
        name: 'Acme',
        logo: 'https://cdn.acme.test/l.svg',
        subdomain: 'trade.acme.test',
        stripeApiKey: '',
        ctraderClientId: 'brand-app',
        ctraderClientSecret: 'brand-secret',
      }),
    });
    expect(brand.status, JSON.stringify(brand.body)).to.equal(200);
    const again = await t.call('POST', `/accounts/${account}/actions/start`);
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect((await t.call('GET', `/accounts/${account}/information`)).body).to.include({ connected: true, balance: 10_000 });
    expect(appsAuthenticated()).to.deep.equal(['app-id', 'brand-app']);
  });
});
