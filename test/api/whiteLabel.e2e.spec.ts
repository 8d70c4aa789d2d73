// The white-label brand over HTTP: FeatureWhiteLabelDTO on a project with its rules and sealed secrets, and
// the DNS check of its subdomain against a local DNS server (dns2) speaking real DNS.
import { expect } from 'chai';
import { sql } from 'kysely';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { type FakeDns, startFakeDns } from '../support/fakeDns.js';
import { createOtherProject, startTestService, type TestService } from '../support/service.js';
import { featureBody } from '../support/trading.js';

const OTHER_PROJECT = '77777777-7777-4777-8777-777777777777';
const OTHER_KEY = 'white-label-other-project-key-0123';
const STRIPE = 'sk_live_white-label-secret-4711';
const CTRADER_SECRET = 'ctrader-oauth-secret-0815';

const brand = (members: Record<string, unknown> = {}) =>
  featureBody({
    type: 'FeatureWhiteLabelDTO',
    name: 'Acme Trading',
    logo: 'https://cdn.acme.test/logo.svg',
    subdomain: 'trade.good.test',
    stripeApiKey: STRIPE,
    ...members,
  });

describe('white label end to end', function () {
  this.timeout(60_000);
  let t: TestService;
  let dns: FakeDns;
  const base = `/projects/${DEFAULT_PROJECT_ID}/features`;
  const dnsPath = `/projects/${DEFAULT_PROJECT_ID}/whitelabel/dns`;

  before(async () => {
    dns = await startFakeDns();
    t = await startTestService({
      env: {
        WHITE_LABEL_CNAME_TARGET: 'app.operator.test',
        WHITE_LABEL_SPF_INCLUDE: 'mail.operator.test',
        WHITE_LABEL_DKIM: 'brand:dkim.operator.test',
        WHITE_LABEL_DNS_SERVERS: dns.server,
      },
    });
    await createOtherProject(t, OTHER_PROJECT, OTHER_KEY);
  });
  after(async () => {
    await t?.stop();
    await dns?.close();
  });

  it('refuses a brand that breaks a rule with 400 [VALIDATION_FAILED], storing nothing', async () => {
    for (const [members, words] of [
      [{ subdomain: 'good.test' }, 'root domain'],
      [{ subdomain: 'trade..good.test' }, 'no host name'],
      [{ authPageBackground: 'red' }, 'hex colour'],
      [{ authPageBackground: '#12345' }, 'hex colour'],
      [{ sendManualCollectionEmail: true }, 'manualCollectionPaymentInstructions'],
      [{ cryptoNativeEnabled: true }, 'cryptoWallet'],
      [{ homeLink: 'javascript:alert(1)' }, 'http(s) URL'],
      [{ accountTypes: [{ id: 99 }] }, 'accountTypes'],
      [{ name: 'A brand name far too long' }, 'name'],
      [{ accountPriceShared: 5.5 }, 'accountPriceShared'],
    ] as const) {
      const res = await t.call('POST', base, { body: brand(members) });
      expect([res.status, res.body.error], JSON.stringify(members)).to.deep.equal([400, '[VALIDATION_FAILED]']);
      expect(res.body.message, JSON.stringify(members)).to.include(words);
    }
    const withoutKey = featureBody({ type: 'FeatureWhiteLabelDTO', name: 'Acme', logo: 'https://cdn.acme.test/l.svg', subdomain: 'trade.good.test' });
    expect((await t.call('POST', base, { body: withoutKey })).status, 'stripeApiKey is required by the reference').to.equal(400);
    expect((await t.call('GET', base)).body).to.deep.equal([]);
  });

  it('adds the brand: secrets sealed and masked, read-only members the service’s, OAuth types allowed only with both members of their pair', async () => {
    const added = await t.call('POST', base, {
      body: brand({
        accountTypes: [{ id: 1 }, { id: 2 }, { id: 4 }, { id: 12 }],
        ctraderClientId: 'ctrader-client',
        ctraderClientSecret: CTRADER_SECRET,
        accountType12ClientId: 'only-the-id',
        authPageBackground: '#0a2b3C',
        sendManualCollectionEmail: true,
        manualCollection: true,
        manualCollectionPaymentInstructions: 'IBAN DE00 0000 0000 0000, reference: your invoice number',
        cryptoNativeReady: true,
        cryptoEnabledCoins: ['BTC'],
        allowedRegions: [{ id: 2 }],
      }),
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    const setting = added.body.setting;
    expect(setting).to.include({
      stripeApiKey: '********',
      ctraderClientSecret: '********',
      accountType12ClientSecret: '',
      publicMarketplace: true,
      cryptoNativeReady: false,
    });
    expect(setting.cryptoEnabledCoins).to.deep.equal([]);
    expect(setting.accountTypes.map((a: { id: number; name: string }) => a.id)).to.deep.equal([1, 2, 4, 12]);
    expect(setting.accountTypes[0].name).to.be.a('string');
    expect(setting.allowedRegions).to.deep.equal([{ id: 2, name: 'London' }]);
    // Type 4 has its pair; 12 only an id: not allowed.
    expect(setting.allowedAccountTypeIds).to.deep.equal([1, 2, 4]);
    const featureId = added.body.id as string;

    const again = await t.call('POST', base, { body: brand() });
    expect([again.status, again.body.error]).to.deep.equal([409, '[FEATURE_ALREADY_EXISTS]']);

    const stored = async () =>
      (await sql<{ setting: Record<string, string> }>`SELECT setting FROM features WHERE id = ${featureId}`.execute(t.service.services.db)).rows[0]!.setting;
    const sealed = await stored();
    expect(t.service.services.cipher.decrypt(sealed.stripeApiKey!)).to.equal(STRIPE);
    expect(t.service.services.cipher.decrypt(sealed.ctraderClientSecret!)).to.equal(CTRADER_SECRET);
    const clear = await sql<{ n: string }>`SELECT count(*) AS n FROM es_events WHERE data::text LIKE ${'%' + STRIPE + '%'} OR data::text LIKE ${
      '%' + CTRADER_SECRET + '%'
    }`.execute(t.service.services.db);
    expect(Number(clear.rows[0]!.n)).to.equal(0);
    expect(JSON.stringify((await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/auditLogs`)).body)).not.to.include(STRIPE);

    // GET, change, PUT with the masks back: the secrets stay; "" removes an optional one.
    const read = (await t.call('GET', `${base}/${featureId}`)).body;
    const put = await t.call('PUT', `${base}/${featureId}`, {
      body: { type: read.type, setting: { ...read.setting, theme: 'dark', ctraderClientSecret: '' } },
      beyondReference: 'answers carry allowedAccountTypeIds and names, sent back as read',
    });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    expect(put.body.setting).to.include({ theme: 'dark', stripeApiKey: '********', ctraderClientSecret: '' });
    expect(put.body.setting.allowedAccountTypeIds).to.deep.equal([1, 2]);
    expect((await stored()).stripeApiKey).to.equal(sealed.stripeApiKey);
  });

  it('checks each DNS record of the brand against the local DNS server', async () => {
    dns.set({
      'trade.good.test': { CNAME: 'app.operator.test', TXT: ['v=spf1 include:mail.operator.test ~all'] },
      'brand._domainkey.trade.good.test': { CNAME: 'dkim.operator.test' },
    });
    const good = await t.call('GET', dnsPath);
    expect(good.status, JSON.stringify(good.body)).to.equal(200);
    expect(good.body).to.include({ subdomain: 'trade.good.test', whiteLabelExists: true, ready: true });
    expect(good.body.records.map((r: { type: string; name: string; status: string }) => [r.type, r.name, r.status])).to.deep.equal([
      ['CNAME', 'trade.good.test', 'OK'],
      ['TXT', 'trade.good.test', 'OK'],
      ['CNAME', 'brand._domainkey.trade.good.test', 'OK'],
    ]);
    expect(good.body.config.records[0]).to.include({ type: 'CNAME', name: 'trade.good.test', value: 'app.operator.test' });
    // Once the brand exists, its own subdomain is checked: the one sent is ignored.
    expect((await t.call('GET', `${dnsPath}?subdomain=other.bad.test`)).body.subdomain).to.equal('trade.good.test');

    dns.set({
      'trade.good.test': { CNAME: 'elsewhere.test', TXT: ['v=spf1 include:other-mail.test ~all'] },
    });
    const bad = (await t.call('GET', dnsPath)).body;
    expect(bad.ready).to.equal(false);
    expect(bad.records.map((r: { status: string }) => r.status)).to.deep.equal(['MISMATCH', 'MISMATCH', 'MISSING']);
    expect(bad.records[0].found).to.deep.equal(['elsewhere.test']);
    expect(bad.records[2].message).to.include('add brand._domainkey.trade.good.test CNAME dkim.operator.test');

    // A flattened CNAME: the subdomain has exactly the target's addresses.
    dns.set({
      'trade.good.test': { A: ['192.0.2.10'], TXT: ['v=spf1 include:mail.operator.test -all', 'site-verification=x'] },
      'app.operator.test': { A: ['192.0.2.10'] },
      'brand._domainkey.trade.good.test': { CNAME: 'dkim.operator.test' },
    });
    const flat = (await t.call('GET', dnsPath)).body;
    expect(flat.records.map((r: { status: string }) => r.status)).to.deep.equal(['OK', 'OK', 'OK']);
    expect(flat.records[0].message).to.include('flattened');
  });

  it('asks for the subdomain before a brand exists, and shows nothing to another project', async () => {
    const other = { key: OTHER_KEY };
    const path = `/projects/${OTHER_PROJECT}/whitelabel/dns`;
    const missing = await t.call('GET', path, other);
    expect([missing.status, missing.body.error]).to.deep.equal([400, '[VALIDATION_FAILED]']);
    const root = await t.call('GET', `${path}?subdomain=acme.test`, other);
    expect([root.status, root.body.error]).to.deep.equal([400, '[VALIDATION_FAILED]']);
    dns.set({ 'trade.next.test': { CNAME: 'app.operator.test' } });
    const planned = await t.call('GET', `${path}?subdomain=Trade.Next.test`, other);
    expect(planned.status, JSON.stringify(planned.body)).to.equal(200);
    expect(planned.body).to.include({ subdomain: 'trade.next.test', whiteLabelExists: false, ready: false });
    expect(planned.body.records[0].status).to.equal('OK');
    expect((await t.call('GET', dnsPath, other)).status).to.equal(404);
    expect((await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/features`, other)).status).to.equal(404);
  });
});
