// The access policy rules (domain/apiKey/*): endpoint patterns, IP whitelist, CORS origins, field
// access, and the policy check, table-driven.
import { expect } from 'chai';
import { type AccessPolicy, checkAccessPolicy, effectivePolicy, type PolicyCatalog } from '../../domain/apiKey/accessPolicy.js';
import { endpointAllowed, matchesPattern, patternProblem, patternSegments, routeSegments } from '../../domain/apiKey/endpointRules.js';
import { fieldVisible } from '../../domain/apiKey/fieldAccess.js';
import { ipAllowed, ipEntryProblem } from '../../domain/apiKey/ipWhitelist.js';
import { originAllowed, originEntryProblem } from '../../domain/apiKey/origins.js';
import { DomainError } from '../../domain/shared/errors.js';

const ID = '3f2b8a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const route = (template: string, params: Record<string, string> = {}) => routeSegments(template, params);

describe('access policy: endpoint patterns', () => {
  const cases: [pattern: string, template: string, params: Record<string, string>, matches: boolean][] = [
    ['/accounts/*', '/accounts/{accountId}', { accountId: ID }, true],
    ['/accounts/*', '/accounts/{accountId}/information', { accountId: ID }, false],
    ['/accounts/*', '/accounts', {}, false],
    ['/accounts/**', '/accounts', {}, true],
    ['/accounts/**', '/accounts/{accountId}/copiers/{copierId}', { accountId: ID, copierId: ID }, true],
    ['/**/information', '/accounts/{accountId}/information', { accountId: ID }, true],
    ['/**', '/types/regions', {}, true],
    ['/accounts/{accountId}/information', '/accounts/{accountId}/information', { accountId: ID }, true],
    // {variable} matches a variable of the route, not a literal segment in the same place
    ['/accounts/{id}', '/accounts/masters', {}, false],
    ['/accounts/*', '/accounts/masters', {}, true],
    // a literal segment may name one value of a variable, in any case
    [`/accounts/${ID.toUpperCase()}/information`, '/accounts/{accountId}/information', { accountId: ID }, true],
    [`/accounts/${ID}/information`, '/accounts/{accountId}/information', { accountId: crypto.randomUUID() }, false],
    ['/ACCOUNTS/*/Information', '/accounts/{accountId}/information', { accountId: ID }, true],
    ['/rest/api/v1/accounts/*', '/accounts/{accountId}', { accountId: ID }, true],
    ['/accounts/*/', '/accounts/{accountId}', { accountId: ID }, true],
    // an encoded slash inside a value stays one segment: * matches it, the parts do not
    ['/accounts/*/information', '/accounts/{accountId}/information', { accountId: 'a/b' }, true],
    ['/accounts/a/b/information', '/accounts/{accountId}/information', { accountId: 'a/b' }, false],
    ['/accounts/*/*/information', '/accounts/{accountId}/information', { accountId: 'a/b' }, false],
  ];
  for (const [pattern, template, params, expected] of cases) {
    it(`${pattern} ${expected ? 'matches' : 'does not match'} ${template} ${JSON.stringify(params)}`, () => {
      expect(matchesPattern(patternSegments(pattern), route(template, params))).to.equal(expected);
    });
  }

  it('ALLOW_LIST allows only what a rule matches, with its method; DENY_LIST the opposite; ALL is every method; HEAD is GET', () => {
    const rules = [
      { pathPattern: '/accounts/**', method: 'GET' as const },
      { pathPattern: '/types/*', method: 'ALL' as const },
    ];
    const path = route('/accounts/{accountId}', { accountId: ID });
    expect(endpointAllowed({ mode: 'ALLOW_LIST', rules }, 'GET', path)).to.equal(true);
    expect(endpointAllowed({ mode: 'ALLOW_LIST', rules }, 'HEAD', path)).to.equal(true);
    expect(endpointAllowed({ mode: 'ALLOW_LIST', rules }, 'DELETE', path)).to.equal(false);
    expect(endpointAllowed({ mode: 'ALLOW_LIST', rules }, 'POST', route('/types/regions'))).to.equal(true);
    expect(endpointAllowed({ mode: 'DENY_LIST', rules }, 'GET', path)).to.equal(false);
    expect(endpointAllowed({ mode: 'DENY_LIST', rules }, 'PUT', path)).to.equal(true);
    expect(endpointAllowed({ mode: 'ALLOW_LIST', rules: [] }, 'GET', path)).to.equal(false);
  });

  it('refuses patterns that could be read two ways', () => {
    expect(patternProblem('/accounts/**')).to.equal(null);
    expect(patternProblem('/accounts/{accountId}/copiers/*')).to.equal(null);
    for (const bad of [
      'accounts/*',
      '/accounts//x',
      '/accounts/../x',
      '/accounts/./x',
      '/acc*',
      '/accounts/a**',
      '/accounts/%2F',
      '/a?b',
      '',
      `/${'a/'.repeat(40)}`,
    ]) {
      expect(patternProblem(bad), bad).to.be.a('string');
    }
  });

  it('stays fast on a long path with many ** (no backtracking blow-up)', () => {
    const pattern = patternSegments(`/${'**/a/'.repeat(15)}b`);
    const path = route(`/${'a/'.repeat(30)}c`);
    const started = process.hrtime.bigint();
    expect(matchesPattern(pattern, path)).to.equal(false);
    expect(Number(process.hrtime.bigint() - started) / 1e6).to.be.below(200);
  });
});

describe('access policy: IP whitelist', () => {
  const cases: [whitelist: string[], ip: string, allowed: boolean][] = [
    [[], '203.0.113.9', true],
    [['203.0.113.9'], '203.0.113.9', true],
    [['203.0.113.9'], '203.0.113.10', false],
    [['10.0.0.0/8'], '10.200.1.2', true],
    [['10.0.0.0/8'], '11.0.0.1', false],
    // IPv4 clients of a dual-stack socket arrive IPv4-mapped
    [['10.0.0.0/8'], '::ffff:10.1.2.3', true],
    [['::ffff:10.0.0.0/104'], '10.1.2.3', true],
    [['127.0.0.1'], '::ffff:127.0.0.1', true],
    [['2001:db8::/32'], '2001:db8:1::5', true],
    [['2001:db8::/32'], '2001:db9::5', false],
    [['::1'], '127.0.0.1', false],
    [['2001:db8::1'], '2001:0db8:0:0:0:0:0:1', true],
    [['0.0.0.0/0'], '198.51.100.1', true],
  ];
  for (const [whitelist, ip, allowed] of cases) {
    it(`${JSON.stringify(whitelist)} ${allowed ? 'allows' : 'refuses'} ${ip}`, () => {
      expect(ipAllowed(whitelist, ip)).to.equal(allowed);
    });
  }

  it('a client without a known address is refused by any whitelist', () => {
    expect(ipAllowed(['0.0.0.0/0'], undefined)).to.equal(false);
  });

  it('refuses wildcards and ambiguous IPv4 notations as entries', () => {
    for (const good of ['10.0.0.1', '10.0.0.0/8', '::1', '2001:db8::/48', '::ffff:10.0.0.0/104']) expect(ipEntryProblem(good), good).to.equal(null);
    for (const bad of ['10.0.*.*', '10.0.0.0/33', '0177.0.0.1', '127.1', '0x7f.0.0.1', '2130706433', 'localhost', '10.0.0.0/8/1', '::1/129', '']) {
      expect(ipEntryProblem(bad), bad).to.be.a('string');
    }
  });
});

describe('access policy: CORS origins', () => {
  const cases: [entries: string[], origin: string, allowed: boolean][] = [
    [['https://app.example.com'], 'https://app.example.com', true],
    [['https://app.example.com'], 'https://APP.Example.com', true],
    [['HTTPS://App.Example.COM'], 'https://app.example.com', true],
    [['https://app.example.com'], 'http://app.example.com', false],
    [['https://app.example.com'], 'https://app.example.com:8443', false],
    [['https://app.example.com:443'], 'https://app.example.com', true],
    [['https://app.example.com:8443'], 'https://app.example.com:8443', true],
    [['https://*.example.com'], 'https://a.example.com', true],
    [['https://*.example.com'], 'https://a.b.example.com', true],
    [['https://*.example.com'], 'https://example.com', false],
    [['https://*.example.com'], 'https://example.com.evil.com', false],
    [['https://*.example.com'], 'https://evilexample.com', false],
    [['https://*.example.com'], 'http://a.example.com', false],
    [['https://*.example.com'], 'https://a.example.com:8443', false],
    [['https://*.example.com'], 'null', false],
    [['*'], 'https://anything.test', true],
    [['*'], 'null', true],
    [[], 'https://anything.test', true],
    // the operator's domain (here example.org) and its subdomains, always
    [['https://app.example.com'], 'https://example.org', true],
    [['https://app.example.com'], 'https://console.example.org', true],
    [['https://app.example.com'], 'http://console.example.org', false],
    [['https://app.example.com'], 'https://notexample.org', false],
  ];
  for (const [entries, origin, allowed] of cases) {
    it(`${JSON.stringify(entries)} ${allowed ? 'allows' : 'refuses'} ${origin}`, () => {
      expect(originAllowed(entries, origin, 'example.org')).to.equal(allowed);
    });
  }

  it('refuses entries that are not origins', () => {
    for (const good of ['https://a.example.com', 'http://localhost:3000', 'https://*.example.com', '*']) expect(originEntryProblem(good), good).to.equal(null);
    for (const bad of [
      'https://a.example.com/path',
      'ftp://a.example.com',
      'a.example.com',
      'https://*example.com',
      'https://a.*.example.com',
      'https://a.example.com:99999',
      'https://user@a.example.com',
    ]) {
      expect(originEntryProblem(bad), bad).to.be.a('string');
    }
  });
});

describe('access policy: field access', () => {
  it('ALLOW_LIST shows only the entries listed; a bare name applies to every DTO, a qualified one to its DTO', () => {
    const access = { mode: 'ALLOW_LIST' as const, fields: ['alias', 'CopierDTO: multiplier'] };
    expect(fieldVisible(access, 'AccountDTO', 'alias')).to.equal(true);
    expect(fieldVisible(access, 'AccountDTO', 'loginServer')).to.equal(false);
    expect(fieldVisible(access, 'CopierDTO', 'multiplier')).to.equal(true);
    expect(fieldVisible(access, 'AccountDTO', 'multiplier')).to.equal(false);
    expect(fieldVisible(access, 'AccountInformationDTO', 'balance')).to.equal(false);
  });

  it('DENY_LIST hides the entries listed and nothing else', () => {
    const access = { mode: 'DENY_LIST' as const, fields: ['AccountInformationDTO: balance', 'created'] };
    expect(fieldVisible(access, 'AccountInformationDTO', 'balance')).to.equal(false);
    expect(fieldVisible(access, 'AccountInformationDTO', 'equity')).to.equal(true);
    expect(fieldVisible(access, 'AccountDTO', 'created')).to.equal(false);
    expect(fieldVisible(access, 'CopierDTO', 'created')).to.equal(false);
  });
});

describe('access policy: the check of a whole policy', () => {
  const catalog: PolicyCatalog = {
    fields: new Map([
      ['AccountDTO', ['alias', 'loginServer']],
      ['CopierDTO', ['multiplier']],
    ]),
    frontendFeatures: ['FINANCIAL_OVERVIEW'],
  };
  const base: AccessPolicy = { enabled: true, fieldAccess: null, endpointAccess: null, ipWhitelist: [], corsOrigins: [], hiddenFrontendFeatures: [] };

  it('returns the policy in canonical form: catalog spelling, trimmed, without duplicates', () => {
    const checked = checkAccessPolicy(
      {
        ...base,
        fieldAccess: { mode: 'DENY_LIST', fields: [' accountdto : ALIAS ', 'multiplier', 'multiplier'] },
        ipWhitelist: [' 10.0.0.0/8 '],
        hiddenFrontendFeatures: ['FINANCIAL_OVERVIEW', 'FINANCIAL_OVERVIEW'],
      },
      catalog,
    );
    expect(checked.fieldAccess).to.deep.equal({ mode: 'DENY_LIST', fields: ['AccountDTO: alias', 'multiplier'] });
    expect(checked.ipWhitelist).to.deep.equal(['10.0.0.0/8']);
    expect(checked.hiddenFrontendFeatures).to.deep.equal(['FINANCIAL_OVERVIEW']);
  });

  it('lists every problem in one 400 [ACCESS_POLICY_INVALID]', () => {
    try {
      checkAccessPolicy(
        {
          ...base,
          fieldAccess: { mode: 'ALLOW_LIST', fields: ['nope', 'CopierDTO: alias', 'NoDTO: alias'] },
          endpointAccess: { mode: 'DENY_LIST', rules: [{ pathPattern: 'accounts', method: 'GET' }] },
          ipWhitelist: ['10.*'],
          corsOrigins: ['example.com'],
          hiddenFrontendFeatures: ['SECRET_PAGE'],
        },
        catalog,
      );
      expect.fail('expected a refusal');
    } catch (error) {
      expect(error).to.be.instanceOf(DomainError);
      expect((error as DomainError).code).to.equal('[ACCESS_POLICY_INVALID]');
      const problems = (error as DomainError).details!.problems as { field: string }[];
      expect(problems.map((p) => p.field)).to.deep.equal([
        'fieldAccess.fields.0',
        'fieldAccess.fields.1',
        'fieldAccess.fields.2',
        'endpointAccess.rules.0.pathPattern',
        'ipWhitelist.0',
        'corsOrigins.0',
        'hiddenFrontendFeatures.0',
      ]);
    }
  });

  it('an AI key without an enabled policy is denied; an INTEGRATION key then has full access', () => {
    expect(effectivePolicy('AI', null)).to.equal('DENIED');
    expect(effectivePolicy('AI', { ...base, enabled: false })).to.equal('DENIED');
    expect(effectivePolicy('AI', base)).to.equal(base);
    expect(effectivePolicy('INTEGRATION', null)).to.equal(null);
    expect(effectivePolicy('INTEGRATION', { ...base, enabled: false })).to.equal(null);
  });
});
