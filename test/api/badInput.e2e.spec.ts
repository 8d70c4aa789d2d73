// Bad input end to end: every refused request answers with the error shape of the spec and leaves the
// stored state exactly as it was; the service keeps answering afterwards.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import {
  type CallOptions,
  type TestResponse,
  type TestService,
  createOtherProject,
  startTestService,
  validAccount,
  accountStatus,
} from '../support/service.js';

const OTHER_PROJECT_ID = '11111111-1111-4111-8111-111111111111';
const OTHER_KEY = 'other-project-key-0123456789abcdef';
const UNKNOWN_ID = '5b0c4b7e-3f4a-4d2e-9c1b-7a6e5d4c3b2a';

/** Exactly { error: '[CODE]', message: string }, with `details` allowed. */
const expectError = (res: TestResponse, status: number, code: string): void => {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  expect(res.body).to.be.an('object');
  expect(Object.keys(res.body).filter((k) => k !== 'details')).to.have.members(['error', 'message']);
  expect(res.body.error).to.equal(code);
  expect(res.body.message).to.be.a('string').and.not.equal('');
};

/** The failing fields named in details, e.g. ['body.foo']. */
const fieldsOf = (res: TestResponse): string[] => (res.body.details as { field: string }[]).map((d) => d.field);

describe('bad input end to end', () => {
  let t: TestService;
  let accountId: string;
  let otherAccountId: string;

  /** Everything a bad write could touch: every account of the project (deleted included) and its audit log. */
  const snapshot = async (service: TestService = t, key?: string, projectId = DEFAULT_PROJECT_ID) => {
    const options: CallOptions = key ? { key } : {};
    const live = await service.call('GET', '/accounts?limit=1000', options);
    const deleted = await service.call('GET', '/accounts?accountStatusId=4&limit=1000', options);
    const audit = await service.call('GET', `/projects/${projectId}/auditLogs?limit=1000`, options);
    expect([live.status, deleted.status, audit.status]).to.deep.equal([200, 200, 200]);
    // Refused and no-op requests are listed too (ApiRequestRefused, ApiRequestWithoutChange): only changes count here.
    const changes = (audit.body as { action: string }[]).filter((entry) => !entry.action.startsWith('ApiRequest'));
    return { accounts: [...live.body, ...deleted.body], auditLogCount: changes.length };
  };

  /** Runs `when`, then checks that nothing stored changed. */
  const expectNothingChanged = async (when: () => Promise<void>): Promise<void> => {
    const before = await snapshot();
    await when();
    const after = await snapshot();
    expect(after.auditLogCount).to.equal(before.auditLogCount);
    expect(after.accounts).to.deep.equal(before.accounts);
  };

  before(async () => {
    t = await startTestService();
    await createOtherProject(t, OTHER_PROJECT_ID, OTHER_KEY);
    accountId = (await t.call('POST', '/accounts', { body: validAccount({ alias: 'Kept as is' }) })).body.id;
    const other = await t.call('POST', '/accounts', { body: validAccount({ alias: 'Other project account' }), key: OTHER_KEY });
    expect(other.status).to.equal(200);
    otherAccountId = other.body.id;
    await t.call('POST', `/accounts/${otherAccountId}/actions/start`, { key: OTHER_KEY });
  });
  after(async () => {
    await t?.stop();
  });

  describe('request bodies', () => {
    it('malformed JSON gives 400 [MALFORMED_JSON] and changes nothing', async () => {
      await expectNothingChanged(async () => {
        for (const raw of ['{"loginServer":', '{loginServer: "x"}', "{'a':1}", '"just a string"', '42', 'null']) {
          expectError(await t.call('POST', '/accounts', { rawBody: raw }), 400, '[MALFORMED_JSON]');
        }
        expectError(await t.call('PUT', `/accounts/${accountId}`, { rawBody: '{"alias": "x",}' }), 400, '[MALFORMED_JSON]');
      });
    });

    it('an unknown member gives 400 [VALIDATION_FAILED] with details naming the field', async () => {
      await expectNothingChanged(async () => {
        const post = await t.call('POST', '/accounts', { body: validAccount({ nickname: 'x' }) });
        const put = await t.call('PUT', `/accounts/${accountId}`, { body: { alias: 'x', compatibilityMode: true } });
        const nested = await t.call('PUT', `/accounts/${accountId}`, { body: { proxy: { host: 'h', port: 1, password: 'p' } } });

        expectError(post, 400, '[VALIDATION_FAILED]');
        expect(fieldsOf(post)).to.deep.equal(['body.nickname']);
        expectError(put, 400, '[VALIDATION_FAILED]');
        expect(fieldsOf(put)).to.deep.equal(['body.compatibilityMode']);
        expectError(nested, 400, '[VALIDATION_FAILED]');
        expect(fieldsOf(nested)).to.include('body.proxy.password');
      });
    });

    it('a member of the wrong type gives 400 [VALIDATION_FAILED] naming that member', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ type: { id: '1' } }, 'body.type.id'],
        [{ region: { id: 1.5 } }, 'body.region.id'],
        [{ region: 2 }, 'body.region'],
        [{ loginServer: 12345 }, 'body.loginServer'],
        [{ propFirm: 'true' }, 'body.propFirm'],
        [{ alias: ['a'] }, 'body.alias'],
        [{ dedicatedIp: '192.0.2.1' }, 'body.dedicatedIp'],
        [{ labels: ['ok', 7] }, 'body.labels.1'],
        [{ proxy: { host: 'h', port: '8080' } }, 'body.proxy.port'],
        [{ failIfAccountExistsInProject: 'yes' }, 'body.failIfAccountExistsInProject'],
      ];
      await expectNothingChanged(async () => {
        for (const [overrides, field] of cases) {
          const res = await t.call('POST', '/accounts', { body: validAccount(overrides) });
          expectError(res, 400, '[VALIDATION_FAILED]');
          expect(fieldsOf(res), JSON.stringify(overrides)).to.include(field);
        }
        const put = await t.call('PUT', `/accounts/${accountId}`, { body: { tradingDisabled: 1 } });
        expectError(put, 400, '[VALIDATION_FAILED]');
        expect(fieldsOf(put)).to.deep.equal(['body.tradingDisabled']);
        expectError(await t.call('POST', '/accounts', { body: [validAccount()] }), 400, '[VALIDATION_FAILED]');
      });
    });

    it('a missing required member gives 400 [VALIDATION_FAILED] naming every missing member', async () => {
      await expectNothingChanged(async () => {
        for (const member of ['loginServer', 'loginAccountPassword', 'type', 'region']) {
          const body: Record<string, unknown> = validAccount();
          delete body[member];
          const res = await t.call('POST', '/accounts', { body });
          expectError(res, 400, '[VALIDATION_FAILED]');
          expect(res.body.details).to.deep.equal([{ field: `body.${member}`, message: 'is required' }]);
        }
        const empty = await t.call('POST', '/accounts', { body: {} });
        expectError(empty, 400, '[VALIDATION_FAILED]');
        expect(fieldsOf(empty)).to.have.members(['body.loginServer', 'body.loginAccountPassword', 'body.type', 'body.region']);
      });
    });

    it('no body at all gives 400 [VALIDATION_FAILED] on POST and PUT; a body that is not JSON gives 415', async () => {
      await expectNothingChanged(async () => {
        expectError(await t.call('POST', '/accounts'), 400, '[VALIDATION_FAILED]');
        expectError(await t.call('PUT', `/accounts/${accountId}`), 400, '[VALIDATION_FAILED]');
        const text = await t.call('POST', '/accounts', { rawBody: JSON.stringify(validAccount()), headers: { 'content-type': 'text/plain' } });
        expectError(text, 415, '[UNSUPPORTED_MEDIA_TYPE]');
      });
    });

    it('a body sent to an action that takes none gives 400 [VALIDATION_FAILED]', async () => {
      await expectNothingChanged(async () => {
        for (const name of ['start', 'stop', 'reconnect']) {
          const res = await t.call('POST', `/accounts/${accountId}/actions/${name}`, { body: { force: true } });
          expectError(res, 400, '[VALIDATION_FAILED]');
        }
      });
    });

    it('strings over their maximum length give 400 [VALIDATION_FAILED] naming the member', async () => {
      const cases: [string, number][] = [
        ['loginServer', 256],
        ['loginAccountNumber', 256],
        ['loginAccountPassword', 256],
        ['alias', 256],
      ];
      await expectNothingChanged(async () => {
        for (const [member, length] of cases) {
          const post = await t.call('POST', '/accounts', { body: validAccount({ [member]: 'x'.repeat(length) }) });
          const put = await t.call('PUT', `/accounts/${accountId}`, { body: { [member]: 'x'.repeat(length) } });
          expectError(post, 400, '[VALIDATION_FAILED]');
          expect(post.body.details).to.deep.include({ field: `body.${member}`, message: `must NOT have more than ${length - 1} characters` });
          expect(new Set(fieldsOf(post))).to.deep.equal(new Set([`body.${member}`]));
          expectError(put, 400, '[VALIDATION_FAILED]');
          expect(new Set(fieldsOf(put))).to.deep.equal(new Set([`body.${member}`]));
        }
        const proxyHost = await t.call('POST', '/accounts', { body: validAccount({ proxy: { host: 'h'.repeat(256), port: 1 } }) });
        expectError(proxyHost, 400, '[VALIDATION_FAILED]');
        expect(fieldsOf(proxyHost)).to.include('body.proxy.host');
      });
    });

    it('strings of exactly the maximum length are accepted', async () => {
      const res = await t.call('POST', '/accounts', {
        body: validAccount({
          loginServer: 's'.repeat(255),
          loginAccountNumber: 'n'.repeat(255),
          loginAccountPassword: 'p'.repeat(255),
          alias: 'a'.repeat(255),
        }),
      });

      expect(res.status).to.equal(200);
      expect(res.body).to.deep.include({ loginServer: 's'.repeat(255), loginAccountNumber: 'n'.repeat(255), alias: 'a'.repeat(255) });
    });

    // loginAccountNumber may be empty (the reference: exchanges have none).
    it('empty required strings give 400 [VALIDATION_FAILED]', async () => {
      await expectNothingChanged(async () => {
        for (const member of ['loginServer', 'loginAccountPassword']) {
          const res = await t.call('POST', '/accounts', { body: validAccount({ [member]: '' }) });
          expectError(res, 400, '[VALIDATION_FAILED]');
          expect(fieldsOf(res)).to.deep.equal([`body.${member}`]);
        }
      });
    });

    // Regression: PostgreSQL cannot store U+0000 or a lone surrogate in jsonb; the append failed with
    // 500 [INTERNAL_ERROR]. Such text is now refused up front with a 400.
    it('text the store cannot hold (a NUL character, a lone surrogate) gives 400 [VALIDATION_FAILED], not a server error', async () => {
      await expectNothingChanged(async () => {
        const nul = await t.call('POST', '/accounts', { body: validAccount({ alias: 'before\u0000after' }) });
        const surrogate = await t.call('POST', '/accounts', { body: validAccount({ loginServer: 'half \ud800 pair' }) });
        const nulPut = await t.call('PUT', `/accounts/${accountId}`, { body: { alias: 'nul\u0000' } });

        expectError(nul, 400, '[VALIDATION_FAILED]');
        expectError(surrogate, 400, '[VALIDATION_FAILED]');
        expectError(nulPut, 400, '[VALIDATION_FAILED]');
      });
    });

    it('a body over the size limit gives 413 [PAYLOAD_TOO_LARGE] and changes nothing', async () => {
      const huge = JSON.stringify(validAccount({ alias: 'a'.repeat(2 * 1024 * 1024) }));
      await expectNothingChanged(async () => {
        expectError(await t.call('POST', '/accounts', { rawBody: huge }), 413, '[PAYLOAD_TOO_LARGE]');
        expectError(await t.call('PUT', `/accounts/${accountId}`, { rawBody: huge }), 413, '[PAYLOAD_TOO_LARGE]');
      });
    });
  });

  describe('paths and resources', () => {
    it('an account id that is not a UUID gives 400 [VALIDATION_FAILED] naming path.accountId', async () => {
      await expectNothingChanged(async () => {
        const calls: [string, string, CallOptions?][] = [
          ['GET', '/accounts/not-a-uuid'],
          ['PUT', '/accounts/12345', { body: { alias: 'x' } }],
          ['DELETE', '/accounts/xyz'],
          ['POST', '/accounts/xyz/actions/start'],
          ['POST', '/accounts/xyz/actions/stop'],
          ['POST', '/accounts/xyz/actions/reconnect'],
          ['GET', '/accounts/xyz/auditLogs'],
        ];
        for (const [method, route, options] of calls) {
          const res = await t.call(method, route, options);
          expectError(res, 400, '[VALIDATION_FAILED]');
          expect(fieldsOf(res), `${method} ${route}`).to.deep.equal(['path.accountId']);
        }
      });
    });

    it('an unknown account id gives 404 [ACCOUNT_NOT_FOUND] on every account endpoint', async () => {
      await expectNothingChanged(async () => {
        const calls: [string, string, CallOptions?][] = [
          ['GET', `/accounts/${UNKNOWN_ID}`],
          ['PUT', `/accounts/${UNKNOWN_ID}`, { body: { alias: 'x' } }],
          ['DELETE', `/accounts/${UNKNOWN_ID}`],
          ['POST', `/accounts/${UNKNOWN_ID}/actions/start`],
          ['POST', `/accounts/${UNKNOWN_ID}/actions/stop`],
          ['POST', `/accounts/${UNKNOWN_ID}/actions/reconnect`],
          ['GET', `/accounts/${UNKNOWN_ID}/auditLogs`],
        ];
        for (const [method, route, options] of calls) {
          expectError(await t.call(method, route, options), 404, '[ACCOUNT_NOT_FOUND]');
        }
      });
    });

    it('an account of another project answers exactly like an unknown one, and stays unchanged', async () => {
      const otherBefore = await snapshot(t, OTHER_KEY, OTHER_PROJECT_ID);
      const normalise = (res: TestResponse, id: string) => ({
        status: res.status,
        body: { ...res.body, message: String(res.body.message).replace(id, '<id>') },
      });
      const calls: [string, string, CallOptions?][] = [
        ['GET', ''],
        ['PUT', '', { body: { alias: 'taken over' } }],
        ['DELETE', ''],
        ['POST', '/actions/start'],
        ['POST', '/actions/stop'],
        ['POST', '/actions/reconnect'],
        ['GET', '/auditLogs'],
      ];

      await expectNothingChanged(async () => {
        for (const [method, suffix, options] of calls) {
          const foreign = await t.call(method, `/accounts/${otherAccountId}${suffix}`, options);
          const unknown = await t.call(method, `/accounts/${UNKNOWN_ID}${suffix}`, options);
          expectError(foreign, 404, '[ACCOUNT_NOT_FOUND]');
          expect(normalise(foreign, otherAccountId), `${method} ${suffix}`).to.deep.equal(normalise(unknown, UNKNOWN_ID));
        }
        const list = await t.call('GET', '/accounts?limit=1000');
        expect(list.body.map((a: { id: string }) => a.id)).not.to.include(otherAccountId);
      });

      const otherAfter = await snapshot(t, OTHER_KEY, OTHER_PROJECT_ID);
      expect(otherAfter).to.deep.equal(otherBefore);
      const other = otherAfter.accounts.find((a: { id: string }) => a.id === otherAccountId);
      expect(other).to.deep.include({ alias: 'Other project account', ...accountStatus(2) });
    });

    it('an unknown route gives 404 [ENDPOINT_NOT_FOUND]', async () => {
      await expectNothingChanged(async () => {
        expectError(await t.call('GET', '/no-such-thing'), 404, '[ENDPOINT_NOT_FOUND]');
        expectError(await t.call('POST', '/accounts/no/such/route', { body: {} }), 404, '[ENDPOINT_NOT_FOUND]');
        expectError(await t.call('POST', `/accounts/${accountId}/actions/explode`), 404, '[ENDPOINT_NOT_FOUND]');
      });
    });

    it('a known path with a method it does not have gives 405 [METHOD_NOT_ALLOWED] with an Allow header', async () => {
      await expectNothingChanged(async () => {
        const res = await t.call('PATCH', `/accounts/${accountId}`, { body: { alias: 'x' } });
        expectError(res, 405, '[METHOD_NOT_ALLOWED]');
        expect(res.headers.get('allow')).to.equal('GET, PUT, DELETE');
      });
    });

    it('a malformed body from a caller without a key is refused as unauthenticated, before it is parsed', async () => {
      expectError(await t.call('POST', '/accounts', { rawBody: '{not json', key: null }), 401, '[API_KEY_MISSING]');
    });
  });

  describe('API keys', () => {
    it('a request without a key gives 401 [API_KEY_MISSING] and changes nothing', async () => {
      await expectNothingChanged(async () => {
        expectError(await t.call('GET', '/accounts', { key: null }), 401, '[API_KEY_MISSING]');
        expectError(await t.call('POST', '/accounts', { key: null, body: validAccount() }), 401, '[API_KEY_MISSING]');
        expectError(await t.call('DELETE', `/accounts/${accountId}`, { key: null }), 401, '[API_KEY_MISSING]');
        expectError(await t.call('GET', '/accounts', { key: '' }), 401, '[API_KEY_MISSING]');
      });
    });

    it('an unknown key gives 401 [API_KEY_INVALID] and changes nothing', async () => {
      await expectNothingChanged(async () => {
        expectError(await t.call('GET', '/accounts', { key: 'not-a-key-of-this-service' }), 401, '[API_KEY_INVALID]');
        expectError(await t.call('POST', '/accounts', { key: 'x'.repeat(600), body: validAccount() }), 401, '[API_KEY_INVALID]');
        expectError(await t.call('PUT', `/accounts/${accountId}`, { key: `${t.key}x`, body: { alias: 'x' } }), 401, '[API_KEY_INVALID]');
      });
    });
  });

  describe('query parameters', () => {
    const badQueries: [string, string][] = [
      ['limit=abc', 'query.limit'],
      ['limit=0', 'query.limit'],
      ['limit=-5', 'query.limit'],
      ['limit=1.5', 'query.limit'],
      ['limit=1001', 'query.limit'],
      ['offset=-1', 'query.offset'],
      ['offset=abc', 'query.offset'],
      ['accountTypeId=one', 'query.accountTypeId'],
      ['regionId=2.5', 'query.regionId'],
      ['unknownFilter=1', 'query.unknownFilter'],
      ['limit=1&limit=2', 'query.limit'],
      [`loginServer=${'x'.repeat(256)}`, 'query.loginServer'],
    ];
    for (const [query, field] of badQueries) {
      it(`GET /accounts?${query.slice(0, 40)} gives 400 [VALIDATION_FAILED] naming ${field}`, async () => {
        const res = await t.call('GET', `/accounts?${query}`);

        expectError(res, 400, '[VALIDATION_FAILED]');
        expect(fieldsOf(res)).to.deep.equal([field]);
      });
    }

    it('audit log lists refuse the same bad limit, offset, unknown parameter and a date that is not ISO 8601', async () => {
      for (const route of [`/accounts/${accountId}/auditLogs`, `/projects/${DEFAULT_PROJECT_ID}/auditLogs`]) {
        for (const [query, field] of [
          ['limit=abc', 'query.limit'],
          ['limit=0', 'query.limit'],
          ['offset=-1', 'query.offset'],
          ['since=2020-01-01T00:00:00Z', 'query.since'],
          ['startDate=yesterday', 'query.startDate'],
        ]) {
          const res = await t.call('GET', `${route}?${query}`);
          expectError(res, 400, '[VALIDATION_FAILED]');
          expect(fieldsOf(res), `${route}?${query}`).to.deep.equal([field]);
        }
      }
    });

    // Regression: a NUL byte in a text filter reached PostgreSQL, which refused it: 500 [INTERNAL_ERROR].
    it('a NUL character in a text filter is refused with 400 or matches nothing, never a server error', async () => {
      for (const filter of ['loginServer', 'loginAccountNumber', 'alias']) {
        const res = await t.call('GET', `/accounts?${filter}=a%00b`);

        expect(res.status, `${filter}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 400]);
        if (res.status === 400) expectError(res, 400, '[VALIDATION_FAILED]');
        else expect(res.body).to.deep.equal([]);
      }
    });
  });

  describe('after all of the above', () => {
    it('the service still answers reads and writes', async () => {
      const list = await t.call('GET', '/accounts');
      const created = await t.call('POST', '/accounts', { body: validAccount({ alias: 'Still alive' }) });
      const kept = await t.call('GET', `/accounts/${accountId}`);

      expect(list.status).to.equal(200);
      expect(created.status).to.equal(200);
      expect(created.body.alias).to.equal('Still alive');
      expect(kept.status).to.equal(200);
      expect(kept.body).to.deep.include({ alias: 'Kept as is', ...accountStatus(1) });
    });
  });
});
