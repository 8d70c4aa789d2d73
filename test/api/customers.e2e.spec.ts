// Customers of a white-label brand over HTTP (issue 23): the operator's list, and a second brand's operator
// seeing nothing of the first.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { createOtherProject, startTestService, type TestService } from '../support/service.js';
import { featureBody } from '../support/trading.js';

const OTHER_PROJECT = '78787878-7878-4878-8878-787878787878';
const OTHER_KEY = 'customers-other-brand-project-key-01';

const brandBody = (subdomain: string, members: Record<string, unknown> = {}) =>
  featureBody({ type: 'FeatureWhiteLabelDTO', name: 'Acme Trading', logo: 'https://cdn.acme.test/logo.svg', subdomain, stripeApiKey: '', ...members });

describe('white-label customers end to end', function () {
  this.timeout(180_000);
  let t: TestService;
  let brandA: string;
  let brandB: string;

  before(async () => {
    t = await startTestService();
    await createOtherProject(t, OTHER_PROJECT, OTHER_KEY);
    const a = await t.call('POST', `/projects/${DEFAULT_PROJECT_ID}/features`, {
      body: brandBody('trade.acme.test', { restrictRegistration: true, allowedEmailDomains: 'acme.test' }),
    });
    expect(a.status, JSON.stringify(a.body)).to.equal(200);
    brandA = a.body.id;
    const b = await t.call('POST', `/projects/${OTHER_PROJECT}/features`, { key: OTHER_KEY, body: brandBody('trade.other.test') });
    expect(b.status, JSON.stringify(b.body)).to.equal(200);
    brandB = b.body.id;
  });
  after(async () => {
    await t?.stop();
  });

  it("lists the brand's customers to its operator, and another brand's operator gets 404", async () => {
    const list = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/features/${brandA}/whitelabel/customers`);
    expect(list.status).to.equal(200);
    expect(list.body).to.deep.equal([]);
    const foreign = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/features/${brandA}/whitelabel/customers`, { key: OTHER_KEY });
    expect(foreign.status).to.equal(404);
    const otherBrandHere = await t.call('GET', `/projects/${OTHER_PROJECT}/features/${brandA}/whitelabel/customers`, { key: OTHER_KEY });
    expect(otherBrandHere.status).to.equal(404);
    expect(otherBrandHere.body.error).to.equal('[FEATURE_NOT_FOUND]');
    const own = await t.call('GET', `/projects/${OTHER_PROJECT}/features/${brandB}/whitelabel/customers`, { key: OTHER_KEY });
    expect(own.status).to.equal(200);
  });
});
