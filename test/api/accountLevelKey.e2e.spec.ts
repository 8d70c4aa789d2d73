// An account-level key (issued directly here; its REST management arrives with the API-key area) sees
// only its own account and cannot create accounts (spec "Authentication", 2).
import { expect } from 'chai';
import { hashApiKey, keyPrefix } from '../../domain/apiKey/secret.js';
import { execute } from '../../app/services.js';
import { apiKeyDecider } from '../../domain/apiKey/decider.js';
import { apiKeyStream } from '../../domain/apiKey/events.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { systemContext } from '../../domain/shared/command.js';
import { startTestService, type TestService, validAccount } from '../support/service.js';

const ACCOUNT_KEY = 'account-level-key-0123456789abcdef';

describe('account-level API key', () => {
  let t: TestService;
  let own: string;
  let other: string;
  before(async () => {
    t = await startTestService();
    other = (await t.call('POST', '/accounts', { body: validAccount({ alias: 'first, not mine' }) })).body.id;
    own = (await t.call('POST', '/accounts', { body: validAccount({ alias: 'mine' }) })).body.id;
    const apiKeyId = crypto.randomUUID();
    await execute(t.service.services, apiKeyStream(apiKeyId), apiKeyDecider, {
      type: 'IssueApiKey',
      data: {
        apiKeyId,
        projectId: DEFAULT_PROJECT_ID,
        accountId: own,
        level: 'ACCOUNT',
        keyType: 'INTEGRATION',
        name: 'account key',
        keyHash: hashApiKey(ACCOUNT_KEY),
        keyPrefix: keyPrefix(ACCOUNT_KEY),
        expiresAt: null,
      },
      metadata: { now: new Date().toISOString(), context: systemContext('test') },
    });
  });
  after(() => t.stop());

  it('lists only its own account, even with limit 1', async () => {
    const all = await t.call('GET', '/accounts', { key: ACCOUNT_KEY });
    expect(all.body.map((a: { id: string }) => a.id)).to.deep.equal([own]);
    const one = await t.call('GET', '/accounts?limit=1', { key: ACCOUNT_KEY });
    expect(one.body.map((a: { id: string }) => a.id)).to.deep.equal([own]);
  });

  it('reads and changes its own account', async () => {
    const res = await t.call('POST', `/accounts/${own}/actions/start`, { key: ACCOUNT_KEY });
    expect(res.status).to.equal(200);
    expect(res.body.status.id).to.equal(2);
  });

  it('gets 404 for another account of the same project, and that account stays as it was', async () => {
    for (const [method, path] of [
      ['GET', `/accounts/${other}`],
      ['POST', `/accounts/${other}/actions/start`],
      ['DELETE', `/accounts/${other}`],
    ] as const) {
      const res = await t.call(method, path, { key: ACCOUNT_KEY });
      expect(res.status, `${method} ${path}`).to.equal(404);
      expect(res.body.error).to.equal('[ACCOUNT_NOT_FOUND]');
    }
    expect((await t.call('GET', `/accounts/${other}`)).body.status.id).to.equal(1);
  });

  it('cannot create accounts: 403 [ACCOUNT_LEVEL_API_KEY_CANNOT_CREATE_ACCOUNTS]', async () => {
    const res = await t.call('POST', '/accounts', { key: ACCOUNT_KEY, body: validAccount() });
    expect(res.status).to.equal(403);
    expect(res.body.error).to.equal('[ACCOUNT_LEVEL_API_KEY_CANNOT_CREATE_ACCOUNTS]');
  });

  it('cannot read the project audit log', async () => {
    const res = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/auditLogs`, { key: ACCOUNT_KEY });
    expect(res.status).to.equal(403);
  });
});
