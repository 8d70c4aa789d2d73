// Many writers on one aggregate at once (issue 13, item 6): every answer is a success or a clean 409
// [CONCURRENT_MODIFICATION], never a 500, and no success is lost.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { accountUpdate, type TestResponse, type TestService, startTestService, validAccount } from '../support/service.js';

const WRITERS = 50;

interface AuditLog {
  readonly action: string;
  readonly changes: Record<string, unknown>;
}

/** Every answer is 2xx or 409 [CONCURRENT_MODIFICATION] with the error body of the spec. */
const expectSuccessOrConflict = (answers: readonly TestResponse[]): TestResponse[] => {
  for (const res of answers) {
    expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 409]);
    if (res.status === 409) {
      expect(res.body.error).to.equal('[CONCURRENT_MODIFICATION]');
      expect(res.body.message)
        .to.be.a('string')
        .and.match(/concurrent|retry/i);
    }
  }
  return answers.filter((r) => r.status === 200);
};

describe('concurrent writes to one aggregate', () => {
  let t: TestService;

  before(async () => {
    t = await startTestService();
  });
  after(async () => {
    await t?.stop();
  });

  const auditLogs = async (accountId: string): Promise<AuditLog[]> => {
    const res = await t.call('GET', `/accounts/${accountId}/auditLogs?limit=1000`);
    expect(res.status).to.equal(200);
    return res.body as AuditLog[];
  };

  it('50 parallel PUTs of one account with distinct aliases: no 5xx, the final alias is a 2xx answer, one audit entry per 2xx', async () => {
    const account = (await t.call('POST', '/accounts', { body: validAccount({ alias: 'contended' }) })).body.id as string;

    const answers = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) => t.call('PUT', `/accounts/${account}`, { body: accountUpdate(validAccount(), { alias: `writer ${i}` }) })),
    );

    const succeeded = expectSuccessOrConflict(answers);
    expect(succeeded.length).to.be.greaterThan(0);
    const final = (await t.call('GET', `/accounts/${account}`)).body;
    expect(succeeded.map((r) => r.body.alias)).to.include(final.alias);
    expect(succeeded.map((r) => r.body.id)).to.satisfy((ids: string[]) => ids.every((id) => id === account));
    const updates = (await auditLogs(account)).filter((l) => l.action === 'AccountUpdated');
    expect(updates).to.have.length(succeeded.length);
    expect(new Set(updates.map((l) => l.changes.alias)).size).to.equal(succeeded.length);
  });

  it('50 parallel PUTs of one copier with distinct comments: no 5xx, the final comment is a 2xx answer, one audit entry per 2xx', async () => {
    const master = (await t.call('POST', '/accounts', { body: validAccount({ alias: 'master', loginAccountNumber: '7001' }) })).body.id as string;
    const slave = (await t.call('POST', '/accounts', { body: validAccount({ alias: 'slave', loginAccountNumber: '7002' }) })).body.id as string;
    const created = await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master, multiplier: 1 } });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const copier = created.body.id as string;

    const answers = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        t.call('PUT', `/accounts/${slave}/copiers/${copier}`, { body: { customComment: `writer ${i}`, multiplier: i + 1 } }),
      ),
    );

    const succeeded = expectSuccessOrConflict(answers);
    expect(succeeded.length).to.be.greaterThan(0);
    const final = (await t.call('GET', `/accounts/${slave}/copiers/${copier}`)).body;
    const finalPair = `${final.customComment}/${final.multiplier}`;
    expect(succeeded.map((r) => `${r.body.customComment}/${r.body.multiplier}`)).to.include(finalPair);
    expect(finalPair).to.match(/^writer (\d+)\/(\d+)$/);
    const [, writer, multiplier] = /^writer (\d+)\/(\d+)$/.exec(finalPair)!;
    expect(Number(multiplier)).to.equal(Number(writer) + 1);
    const updates = (await auditLogs(slave)).filter((l) => l.action === 'CopierUpdated');
    expect(updates).to.have.length(succeeded.length);
  });

  it('50 parallel renames of one API key: no 5xx, the final name is a 2xx answer, one audit entry per 2xx', async () => {
    const issued = await t.call('POST', `/projects/${DEFAULT_PROJECT_ID}/apiKeys`, { body: { name: 'contended key' } });
    expect(issued.status, JSON.stringify(issued.body)).to.equal(200);
    const keyId = issued.body.id as string;

    const answers = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) => t.call('PUT', `/projects/${DEFAULT_PROJECT_ID}/apiKeys/${keyId}`, { body: { name: `writer ${i}` } })),
    );

    const succeeded = expectSuccessOrConflict(answers);
    expect(succeeded.length).to.be.greaterThan(0);
    const final = (await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/apiKeys/${keyId}`)).body;
    expect(succeeded.map((r) => r.body.name)).to.include(final.name);
    const logs = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/auditLogs?limit=1000`);
    const renames = (logs.body as AuditLog[]).filter((l) => l.action === 'ApiKeyRenamed' && l.changes.apiKeyId === keyId);
    expect(renames).to.have.length(succeeded.length);
  });
});
