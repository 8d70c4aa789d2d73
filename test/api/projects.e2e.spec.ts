// The project resource (reference ProjectDTO, spec "Other resource members": owner, billingRegion):
// GET and PUT /projects/{projectId} on the project aggregate. Every call is also checked against the
// reference's request and response schemas (test/support/service.ts).
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID, DEFAULT_PROJECT_NAME } from '../../domain/project/decider.js';
import { createOtherProject, startTestService, type TestService } from '../support/service.js';
import { startedAccount } from '../support/trading.js';

const P = DEFAULT_PROJECT_ID;
const OTHER = '77777777-7777-4777-8777-777777777777';
const OTHER_KEY = 'projects-spec-other-project-key-01234';

/** A PUT body as a client generated from the reference sends it: every required member. */
const billing = (overrides: Record<string, unknown> = {}) => ({
  name: 'Desk One',
  billingName: 'Jane Trader',
  billingCompanyName: 'Desk One GmbH',
  billingStreet: 'Hauptstrasse 1',
  billingPostcode: '10115',
  billingCity: 'Berlin',
  billingCountry: 'Germany',
  billingCountryIsoAlpha2: 'DE',
  billingIdentification: 'DE123456789',
  currencyType: { id: 2 },
  dedicated: false,
  ...overrides,
});

describe('the project resource (reference ProjectDTO)', function () {
  this.timeout(60_000);
  let t: TestService;

  before(async () => {
    t = await startTestService();
    await createOtherProject(t, OTHER, OTHER_KEY);
  });
  after(() => t?.stop());

  it('answers a new project with empty billing members, USD, not dedicated, balance 0', async () => {
    const res = await t.call('GET', `/projects/${P}`);
    expect(res.status).to.equal(200);
    const { created, ...rest } = res.body;
    expect(Number.isNaN(Date.parse(created))).to.equal(false);
    expect(rest).to.deep.equal({
      id: P,
      name: DEFAULT_PROJECT_NAME,
      billingName: '',
      billingCompanyName: '',
      billingStreet: '',
      billingPostcode: '',
      billingCity: '',
      billingCountry: '',
      billingCountryIsoAlpha2: '',
      billingIdentification: '',
      billingRegion: null,
      currencyType: { id: 1, name: 'USD' },
      dedicated: false,
      balance: 0,
      blocked: false,
    });
  });

  it('changes the name, billing address and currency, and a GET shows them', async () => {
    const res = await t.call('PUT', `/projects/${P}`, { body: billing() });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({
      name: 'Desk One',
      billingCity: 'Berlin',
      billingCountryIsoAlpha2: 'DE',
      billingRegion: null,
      currencyType: { id: 2, name: 'EUR' },
    });
    expect((await t.call('GET', `/projects/${P}`)).body).to.deep.equal(res.body);
    // what the project log says
    const audit = (await t.call('GET', `/projects/${P}/auditLogs?limit=1000`)).body as { action: string; changes: Record<string, unknown> }[];
    expect(audit.find((e) => e.action === 'ProjectUpdated')?.changes).to.deep.include({ name: 'Desk One', currencyTypeId: 2 });
  });

  it('takes back what it answered: the read-only members are ignored', async () => {
    const current = (await t.call('GET', `/projects/${P}`)).body;
    const res = await t.call('PUT', `/projects/${P}`, { body: { ...current, balance: 1000, blocked: true, id: OTHER, name: 'Desk Two' } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ id: P, name: 'Desk Two', balance: 0, blocked: false });
  });

  it('requires billingRegion, an emirate without the AE- prefix, when the country is AE (spec 1.2.6)', async () => {
    const uae = billing({ billingCountry: 'United Arab Emirates', billingCountryIsoAlpha2: 'AE', billingCity: 'Dubai' });
    const refusals: [Record<string, unknown>, RegExp][] = [
      [uae, /billingRegion: required when billingCountryIsoAlpha2 is AE/],
      [{ ...uae, billingRegion: 'AE-DU' }, /without the country prefix: DU/],
      [{ ...uae, billingRegion: 'XX' }, /not an emirate/],
    ];
    for (const [body, message] of refusals) {
      const res = await t.call('PUT', `/projects/${P}`, { body });
      expect([res.status, res.body.error], JSON.stringify(body)).to.deep.equal([400, '[VALIDATION_FAILED]']);
      expect(res.body.message).to.match(message);
    }
    const ok = await t.call('PUT', `/projects/${P}`, { body: { ...uae, billingRegion: 'du' } });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    expect(ok.body).to.deep.include({ billingCountryIsoAlpha2: 'AE', billingRegion: 'DU' });
    // another country: optional
    const de = await t.call('PUT', `/projects/${P}`, { body: billing({ billingRegion: 'BE' }) });
    expect(de.body.billingRegion).to.equal('BE');
  });

  it('refuses invalid members with 400 and changes nothing', async () => {
    const before = (await t.call('GET', `/projects/${P}`)).body;
    const { billingCity: _city, ...withoutCity } = billing();
    const bad: Record<string, unknown>[] = [
      billing({ name: '' }),
      billing({ name: '   ' }),
      billing({ billingCountryIsoAlpha2: 'Germany' }),
      billing({ currencyType: { id: 9 } }),
      billing({ dedicated: true }),
      billing({ billingStreet: 'x'.repeat(256) }),
      withoutCity,
      billing({ unknown: 1 }),
    ];
    for (const body of bad) {
      const res = await t.call('PUT', `/projects/${P}`, { body });
      expect(res.status, JSON.stringify(body).slice(0, 120)).to.equal(400);
      expect(res.body.error).to.equal('[VALIDATION_FAILED]');
    }
    expect((await t.call('GET', `/projects/${P}`)).body).to.deep.equal(before);
  });

  it("keeps projects apart: another project's key gets 404, an account-level key 403", async () => {
    for (const method of ['GET', 'PUT'] as const) {
      const res = await t.call(method, `/projects/${P}`, { key: OTHER_KEY, ...(method === 'PUT' ? { body: billing({ name: 'taken' }) } : {}) });
      expect([res.status, res.body.error]).to.deep.equal([404, '[PROJECT_NOT_FOUND]']);
    }
    expect((await t.call('GET', `/projects/${OTHER}`, { key: OTHER_KEY })).body).to.deep.include({ id: OTHER, name: 'Other project' });
    const account = await startedAccount(t, 'project key holder');
    const issued = await t.call('POST', `/projects/${P}/apiKeys`, { body: { name: 'account key', accountId: account } });
    const res = await t.call('GET', `/projects/${P}`, { key: issued.body.key });
    expect([res.status, res.body.error]).to.deep.equal([403, '[PROJECT_LEVEL_API_KEY_REQUIRED]']);
  });
});
