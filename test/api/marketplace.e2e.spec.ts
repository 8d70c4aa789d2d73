// The marketplace end to end (spec: GET /marketplace, the reference's MarketplaceDTO): signal providers
// that chose makeVisibleInMarketplace, of any project, ranked by the score their performance metrics
// compute; the others hidden; a listed provider's history only while it makes it public.
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/service.js';

describe('marketplace: visible signal providers ranked by score', function () {
  this.timeout(60_000);
  let t: TestService;

  before(async () => {
    t = await startTestService();
  });
  after(() => t?.stop());

  it('answers an empty MarketplaceDTO while no provider chose to be visible', async () => {
    const res = await t.call('GET', '/marketplace');
    expect([res.status, res.body]).to.deep.equal([200, { signals: [] }]);
  });

  it('answers 404 [SIGNAL_PROVIDER_NOT_FOUND] for the history of a provider not listed', async () => {
    const res = await t.call('GET', `/marketplace/${crypto.randomUUID()}/history/positions?start=2020-01-01T00:00:00Z&stop=2030-01-01T00:00:00Z`);
    expect([res.status, res.body.error]).to.deep.equal([404, '[SIGNAL_PROVIDER_NOT_FOUND]']);
  });
});
