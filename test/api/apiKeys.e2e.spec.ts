// API keys end to end (spec "Authentication", ApiKeyDTO): issue, rotate, revoke, expiry at the exact
// millisecond, lastUsedAt at most once a minute, the one AI key of a project, account-level keys, and
// who may manage keys. The clock of the service is the spec's to move.
import { expect } from 'chai';
import { apiKeyStream } from '../../domain/apiKey/events.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { type CallOptions, createOtherProject, startTestService, type TestResponse, type TestService, validAccount } from '../support/service.js';

const P = DEFAULT_PROJECT_ID;
const KEYS = `/projects/${P}/apiKeys`;
const OTHER_PROJECT_ID = '77777777-7777-4777-8777-777777777777';
const OTHER_KEY = 'api-keys-other-project-key-0123456789';
const POLICY = { enabled: true, endpointAccess: { mode: 'ALLOW_LIST', rules: [{ pathPattern: '/**', method: 'GET' }] } };

const expectError = (res: TestResponse, status: number, code: string): void => {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body.error).to.equal(code);
};

describe('API keys end to end', () => {
  let t: TestService;
  /** The service's clock: real time, or frozen at a chosen millisecond. */
  let frozen: number | null = null;
  const clock = () => new Date(frozen ?? Date.now());

  const issue = async (body: Record<string, unknown>, options: CallOptions = {}) => {
    const res = await t.call('POST', KEYS, { body, ...options });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { id: string; key: string; keyPrefix: string; keyType: string };
  };
  const current = (key: string) => t.call('GET', '/apiKeys/current', { key });
  const keyById = async (id: string) => (await t.call('GET', `${KEYS}/${id}`)).body;
  const eventTypes = async (id: string): Promise<string[]> => {
    const types: string[] = [];
    for await (const { event } of t.service.services.store.readStream(apiKeyStream(id))) types.push(event.type);
    return types;
  };

  before(async () => {
    t = await startTestService({ clock, venueTicker: false });
    await createOtherProject(t, OTHER_PROJECT_ID, OTHER_KEY);
  });
  afterEach(() => {
    frozen = null;
  });
  after(() => t?.stop());

  describe('lifecycle', () => {
    it('issues a project-level key: the value once, only a prefix afterwards, and it works at once', async () => {
      const issued = await issue({ name: 'integration' });

      expect(issued.key).to.match(/^ct_[A-Za-z0-9_-]{43}$/);
      expect(issued).to.deep.include({
        name: 'integration',
        level: 'PROJECT',
        projectId: P,
        accountId: null,
        keyType: 'INTEGRATION',
        active: true,
        accessPolicy: null,
        revokedAt: null,
      });
      expect(issued.keyPrefix).to.equal(issued.key.slice(0, 7));
      const me = await current(issued.key);
      expect(me.status).to.equal(200);
      expect(me.body.id).to.equal(issued.id);
      expect(me.body).not.to.have.property('key');
      const listed = await t.call('GET', KEYS);
      expect(listed.body.map((k: { id: string }) => k.id)).to.include(issued.id);
      expect(JSON.stringify([me.body, listed.body, await keyById(issued.id)])).not.to.include(issued.key.slice(7));
    });

    it('rotation: the old value is refused from the next request on, the new one works, the id stays', async () => {
      const issued = await issue({ name: 'to rotate' });

      const rotated = await t.call('POST', `${KEYS}/${issued.id}/rotate`);

      expect(rotated.status).to.equal(200);
      expect(rotated.body.id).to.equal(issued.id);
      expect(rotated.body.key).not.to.equal(issued.key);
      expect(rotated.body.rotatedAt).to.be.a('string');
      expectError(await current(issued.key), 401, '[API_KEY_INVALID]');
      expect((await current(rotated.body.key)).body.id).to.equal(issued.id);
    });

    it('revocation takes effect on the very next request; revoking again changes nothing; a revoked key changes no more', async () => {
      const issued = await issue({ name: 'to revoke' });
      expect((await current(issued.key)).status).to.equal(200);

      const revoked = await t.call('POST', `${KEYS}/${issued.id}/revoke`);

      expect(revoked.status).to.equal(200);
      expect(revoked.body).to.deep.include({ active: false, revokedReason: 'REVOKED' });
      expectError(await current(issued.key), 401, '[API_KEY_REVOKED]');
      expect((await t.call('POST', `${KEYS}/${issued.id}/revoke`)).body.revokedAt).to.equal(revoked.body.revokedAt);
      expectError(await t.call('POST', `${KEYS}/${issued.id}/rotate`), 409, '[API_KEY_REVOKED]');
      expectError(await t.call('PUT', `${KEYS}/${issued.id}`, { body: { name: 'again' } }), 409, '[API_KEY_REVOKED]');
      expect(await eventTypes(issued.id)).to.deep.equal(['ApiKeyIssued', 'ApiKeyRevoked']);
    });

    it('a key may revoke itself, and is refused from its next request on', async () => {
      const issued = await issue({ name: 'self-revoking' });
      expect((await t.call('POST', `${KEYS}/${issued.id}/revoke`, { key: issued.key })).status).to.equal(200);
      expectError(await current(issued.key), 401, '[API_KEY_REVOKED]');
    });

    it('expiry: accepted 1 ms before expiresAt, refused with 401 [API_KEY_EXPIRED] from that very millisecond on', async () => {
      const t0 = Date.parse('2026-05-04T10:00:00.000Z');
      frozen = t0;
      const expiresAt = new Date(t0 + 60_000).toISOString();
      const issued = await issue({ name: 'expiring', expiresAt });

      frozen = t0 + 60_000 - 1;
      expect((await current(issued.key)).status).to.equal(200);
      frozen = t0 + 60_000;
      expectError(await current(issued.key), 401, '[API_KEY_EXPIRED]');
      frozen = t0 + 60_001;
      expectError(await current(issued.key), 401, '[API_KEY_EXPIRED]');
      expect((await keyById(issued.id)).active).to.equal(false);

      // an expired key can be given a new life
      const extended = await t.call('PUT', `${KEYS}/${issued.id}`, { body: { expiresAt: null } });
      expect(extended.body).to.deep.include({ expiresAt: null, active: true });
      expect((await current(issued.key)).status).to.equal(200);
    });

    it('account reads, which read the key in their own statement, refuse it from the very next request after a rotation, a blocking policy, an expiry and a revocation', async () => {
      // Nothing tells this instance's memory of keys about a change: another instance's would go the same way.
      const account = (await t.call('POST', '/accounts', { body: validAccount({ loginAccountNumber: '8800001' }) })).body.id as string;
      const t0 = Date.now();
      const issued = await issue({ name: 'account reader', expiresAt: new Date(t0 + 3_600_000).toISOString() });
      const reads = (key: string) => [
        () => t.call('GET', '/accounts', { key }),
        () => t.call('GET', `/accounts/${account}`, { key }),
        () => t.call('GET', '/accounts/5a0c4d34-6ad4-4c53-9f4f-8f3c7c1c3c3c', { key }),
        () => t.call('GET', '/accounts?limit=x', { key }),
      ];
      const expectAll = async (key: string, status: number, code?: string) => {
        for (const read of reads(key)) {
          const res = await read();
          if (code) expectError(res, status, code);
          else expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 400, 404]);
        }
      };
      // Twice: the second round takes the key from memory.
      await expectAll(issued.key, 200);
      await expectAll(issued.key, 200);

      const rotated = (await t.call('POST', `${KEYS}/${issued.id}/rotate`)).body as { key: string };
      await expectAll(issued.key, 401, '[API_KEY_INVALID]');
      await expectAll(rotated.key, 200);
      await expectAll(rotated.key, 200);

      const blocking = { enabled: true, endpointAccess: { mode: 'ALLOW_LIST', rules: [{ pathPattern: '/apiKeys/**', method: 'GET' }] } };
      expect((await t.call('PUT', `${KEYS}/${issued.id}/accessPolicy`, { body: blocking })).status).to.equal(200);
      await expectAll(rotated.key, 403, '[FORBIDDEN_ENDPOINT_NOT_ALLOWED]');
      expect((await t.call('PUT', `${KEYS}/${issued.id}/accessPolicy`, { body: { ...blocking, enabled: false } })).status).to.equal(200);
      await expectAll(rotated.key, 200);
      await expectAll(rotated.key, 200);

      frozen = t0 + 3_600_000;
      await expectAll(rotated.key, 401, '[API_KEY_EXPIRED]');
      frozen = null;
      await expectAll(rotated.key, 200);

      expect((await t.call('POST', `${KEYS}/${issued.id}/revoke`)).status).to.equal(200);
      await expectAll(rotated.key, 401, '[API_KEY_REVOKED]');
    });

    it('an expiry that is not in the future is refused with 400 [API_KEY_EXPIRY_NOT_IN_FUTURE]', async () => {
      frozen = Date.parse('2026-05-04T10:00:00.000Z');
      const res = await t.call('POST', KEYS, { body: { name: 'late', expiresAt: '2026-05-04T10:00:00.000Z' } });
      expectError(res, 400, '[API_KEY_EXPIRY_NOT_IN_FUTURE]');
    });

    it('lastUsedAt: written on first use, not again within a minute, again after one; no event per use', async () => {
      const t0 = Date.parse('2026-05-05T08:00:00.000Z');
      frozen = t0;
      const issued = await issue({ name: 'usage' });
      expect((await keyById(issued.id)).lastUsedAt).to.equal(null);

      await current(issued.key);
      expect((await keyById(issued.id)).lastUsedAt).to.equal(new Date(t0).toISOString());
      frozen = t0 + 59_999;
      await current(issued.key);
      await current(issued.key);
      expect((await keyById(issued.id)).lastUsedAt).to.equal(new Date(t0).toISOString());
      frozen = t0 + 60_000;
      await current(issued.key);
      expect((await keyById(issued.id)).lastUsedAt).to.equal(new Date(t0 + 60_000).toISOString());
      expect(await eventTypes(issued.id)).to.deep.equal(['ApiKeyIssued']);
    });

    it('renames a key; every change is an event of its stream and an entry of the project audit log, without hash or value', async () => {
      const issued = await issue({ name: 'before' });
      const renamed = await t.call('PUT', `${KEYS}/${issued.id}`, { body: { name: 'after' } });
      expect(renamed.body.name).to.equal('after');
      await t.call('PUT', `${KEYS}/${issued.id}/accessPolicy`, { body: POLICY });
      await t.call('POST', `${KEYS}/${issued.id}/rotate`);

      expect(await eventTypes(issued.id)).to.deep.equal(['ApiKeyIssued', 'ApiKeyRenamed', 'ApiKeyAccessPolicySet', 'ApiKeyRotated']);
      const audit = (await t.call('GET', `/projects/${P}/auditLogs?limit=1000`)).body as { action: string; changes: Record<string, unknown> | null }[];
      const mine = audit.filter((l) => l.changes !== null && l.changes.apiKeyId === issued.id).map((l) => l.action);
      expect(mine).to.deep.equal(['ApiKeyRotated', 'ApiKeyAccessPolicySet', 'ApiKeyRenamed', 'ApiKeyIssued']);
      expect(JSON.stringify(audit)).not.to.include(issued.key.slice(7));
      expect(JSON.stringify(audit)).not.to.match(/keyHash/);
    });
  });

  describe('AI keys', () => {
    it('an AI key without an access policy, or with a disabled one, is denied everything: 403 [AI_KEY_ACCESS_POLICY_REQUIRED]', async () => {
      const ai = await issue({ name: 'ai without policy', keyType: 'AI' });
      expectError(await current(ai.key), 403, '[AI_KEY_ACCESS_POLICY_REQUIRED]');
      expectError(await t.call('GET', '/accounts', { key: ai.key }), 403, '[AI_KEY_ACCESS_POLICY_REQUIRED]');

      await t.call('PUT', `${KEYS}/${ai.id}/accessPolicy`, { body: { ...POLICY, enabled: false } });
      expectError(await t.call('GET', '/accounts', { key: ai.key }), 403, '[AI_KEY_ACCESS_POLICY_REQUIRED]');

      await t.call('PUT', `${KEYS}/${ai.id}/accessPolicy`, { body: POLICY });
      expect((await t.call('GET', '/accounts', { key: ai.key })).status).to.equal(200);
      expectError(await t.call('POST', '/accounts', { key: ai.key, body: validAccount() }), 403, '[FORBIDDEN_ENDPOINT_NOT_ALLOWED]');

      await t.call('DELETE', `${KEYS}/${ai.id}/accessPolicy`);
      expectError(await t.call('GET', '/accounts', { key: ai.key }), 403, '[AI_KEY_ACCESS_POLICY_REQUIRED]');
    });

    it('making a second key AI revokes the first (REPLACED_BY_NEW_AI_KEY): the project has one AI key', async () => {
      const first = await issue({ name: 'first ai', keyType: 'AI', accessPolicy: POLICY });
      expect((await current(first.key)).status).to.equal(200);
      const second = await issue({ name: 'second, integration first', accessPolicy: POLICY });

      const changed = await t.call('PUT', `${KEYS}/${second.id}`, { body: { keyType: 'AI' } });

      expect(changed.body.keyType).to.equal('AI');
      expectError(await current(first.key), 401, '[API_KEY_REVOKED]');
      expect(await keyById(first.id)).to.deep.include({ keyType: 'AI', revokedReason: 'REPLACED_BY_NEW_AI_KEY', active: false });
      expect((await current(second.key)).status).to.equal(200);
      const live = (await t.call('GET', KEYS)).body.filter((k: { keyType: string; revokedAt: string | null }) => k.keyType === 'AI' && !k.revokedAt);
      expect(live.map((k: { id: string }) => k.id)).to.deep.equal([second.id]);
    });

    it('an AI key cannot become an INTEGRATION key: 409 [AI_KEY_CANNOT_BECOME_INTEGRATION], and nothing changes', async () => {
      const ai = await issue({ name: 'stays ai', keyType: 'AI', accessPolicy: POLICY });
      const res = await t.call('PUT', `${KEYS}/${ai.id}`, { body: { keyType: 'INTEGRATION', name: 'renamed too' } });
      expectError(res, 409, '[AI_KEY_CANNOT_BECOME_INTEGRATION]');
      expect(await keyById(ai.id)).to.deep.include({ keyType: 'AI', name: 'stays ai', active: true });
    });

    it('concurrent requests making four keys AI leave exactly one live AI key', async () => {
      const candidates = await Promise.all([1, 2, 3, 4].map((i) => issue({ name: `racer ${i}`, accessPolicy: POLICY })));

      const answers = await Promise.all(candidates.map((c) => t.call('PUT', `${KEYS}/${c.id}`, { body: { keyType: 'AI' } })));

      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200]);
      const keys = (await t.call('GET', KEYS)).body as { keyType: string; revokedAt: string | null }[];
      expect(keys.filter((k) => k.keyType === 'AI' && !k.revokedAt)).to.have.length(1);
    });
  });

  describe('account-level keys', () => {
    it('every account gets one: its value once in X-Account-Api-Key, listed without it by GET /accounts/{accountId}/apiKeys', async () => {
      const created = await t.call('POST', '/accounts', { body: validAccount({ alias: 'with its own key' }) });
      const key = created.headers.get('x-account-api-key')!;
      const keyId = created.headers.get('x-account-api-key-id')!;
      expect(key).to.match(/^ct_/);

      const listed = await t.call('GET', `/accounts/${created.body.id}/apiKeys`);

      expect(listed.status).to.equal(200);
      expect(listed.body).to.have.length(1);
      expect(listed.body[0]).to.deep.include({ id: keyId, level: 'ACCOUNT', accountId: created.body.id, keyType: 'INTEGRATION', keyPrefix: key.slice(0, 7) });
      expect(JSON.stringify(listed.body)).not.to.include(key.slice(7));
      expect((await t.call('GET', `/accounts/${created.body.id}`)).headers.get('x-account-api-key')).to.equal(null);
    });

    it('sees only its account, cannot create accounts or manage keys, reads itself and its account keys', async () => {
      const mine = await t.call('POST', '/accounts', { body: validAccount({ alias: 'mine' }) });
      const other = await t.call('POST', '/accounts', { body: validAccount({ alias: 'not mine' }) });
      const key = mine.headers.get('x-account-api-key')!;

      expect((await t.call('GET', '/accounts', { key })).body.map((a: { id: string }) => a.id)).to.deep.equal([mine.body.id]);
      expectError(await t.call('GET', `/accounts/${other.body.id}/apiKeys`, { key }), 404, '[ACCOUNT_NOT_FOUND]');
      expect((await t.call('GET', `/accounts/${mine.body.id}/apiKeys`, { key })).status).to.equal(200);
      expect((await current(key)).body).to.deep.include({ level: 'ACCOUNT', accountId: mine.body.id });
      expectError(await t.call('POST', '/accounts', { key, body: validAccount() }), 403, '[ACCOUNT_LEVEL_API_KEY_CANNOT_CREATE_ACCOUNTS]');
      expectError(await t.call('GET', KEYS, { key }), 403, '[PROJECT_LEVEL_API_KEY_REQUIRED]');
      expectError(await t.call('POST', KEYS, { key, body: { name: 'escalate' } }), 403, '[PROJECT_LEVEL_API_KEY_REQUIRED]');
      expectError(await t.call('POST', `${KEYS}/${mine.headers.get('x-account-api-key-id')}/rotate`, { key }), 403, '[PROJECT_LEVEL_API_KEY_REQUIRED]');
    });

    it('a project key can issue another account-level key for an account of the project, not for one elsewhere', async () => {
      const account = await t.call('POST', '/accounts', { body: validAccount({ alias: 'second key' }) });
      const extra = await issue({ name: 'desk key', accountId: account.body.id });
      expect(extra).to.deep.include({ level: 'ACCOUNT', accountId: account.body.id });
      expect((await t.call('GET', `/accounts/${account.body.id}/apiKeys`)).body).to.have.length(2);
      const foreign = await t.call('POST', '/accounts', { body: validAccount(), key: OTHER_KEY });
      expectError(await t.call('POST', KEYS, { body: { name: 'x', accountId: foreign.body.id } }), 404, '[ACCOUNT_NOT_FOUND]');
    });
  });

  describe('who may manage keys', () => {
    it('a key with an enabled access policy cannot change keys, not even its own: 403 [UNRESTRICTED_API_KEY_REQUIRED]', async () => {
      const restricted = await issue({ name: 'restricted', accessPolicy: { enabled: true, ipWhitelist: ['127.0.0.1'] } });
      expectError(await t.call('DELETE', `${KEYS}/${restricted.id}/accessPolicy`, { key: restricted.key }), 403, '[UNRESTRICTED_API_KEY_REQUIRED]');
      expectError(await t.call('POST', KEYS, { key: restricted.key, body: { name: 'child' } }), 403, '[UNRESTRICTED_API_KEY_REQUIRED]');
      expect((await t.call('GET', KEYS, { key: restricted.key })).status).to.equal(200);
      expect((await keyById(restricted.id)).accessPolicy.ipWhitelist).to.deep.equal(['127.0.0.1']);
    });

    it("another project's keys look missing: 404 [PROJECT_NOT_FOUND] and [API_KEY_NOT_FOUND]", async () => {
      const mine = await issue({ name: 'not yours' });
      expectError(await t.call('GET', KEYS, { key: OTHER_KEY }), 404, '[PROJECT_NOT_FOUND]');
      expectError(await t.call('POST', `${KEYS}/${mine.id}/revoke`, { key: OTHER_KEY }), 404, '[PROJECT_NOT_FOUND]');
      expectError(await t.call('POST', `/projects/${OTHER_PROJECT_ID}/apiKeys/${mine.id}/revoke`, { key: OTHER_KEY }), 404, '[API_KEY_NOT_FOUND]');
      expect((await current(mine.key)).status).to.equal(200);
    });

    it('refuses unknown members and bad policies with 400, issuing nothing', async () => {
      const before = (await t.call('GET', KEYS)).body.length;
      expectError(await t.call('POST', KEYS, { body: { name: 'x', keyHash: 'mine' } }), 400, '[VALIDATION_FAILED]');
      expectError(await t.call('POST', KEYS, { body: { name: 'x', level: 'PROJECT', projectId: OTHER_PROJECT_ID } }), 400, '[VALIDATION_FAILED]');
      const bad = await t.call('POST', KEYS, { body: { name: 'x', accessPolicy: { enabled: true, ipWhitelist: ['10.0.*.*'], corsOrigins: ['nope'] } } });
      expectError(bad, 400, '[ACCESS_POLICY_INVALID]');
      expect(bad.body.details.problems).to.have.length(2);
      expect((await t.call('GET', KEYS)).body.length).to.equal(before);
    });
  });
});
