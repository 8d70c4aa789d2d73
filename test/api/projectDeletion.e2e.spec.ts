// Project deletion (DELETE /projects/{projectId}, ours: the spec names it without a path) and the
// project's traders (GET /projects/{projectId}/traders): a deleted project keeps no active key and no
// running account, its audit log shows each step, and another project is untouched.
import { expect } from 'chai';
import { sql } from 'kysely';
import { createProject, deleteProject } from '../../app/commands/projects.js';
import { createAccountNow } from '../../app/commands/createAccount.js';
import { fromAccountCreateDTO } from '../../api/accounts/dto.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { systemContext } from '../../domain/shared/command.js';
import { startTestService, type TestService, validAccount } from '../support/service.js';

describe('deleting a project (DELETE /projects/{projectId})', function () {
  this.timeout(60_000);
  let t: TestService;

  before(async () => {
    t = await startTestService();
  });
  after(() => t?.stop());

  const newProject = async (name: string) => {
    const { project, key } = await createProject(t.service.services, { name, owner: 'owner@example.com' }, systemContext('spec'));
    return { projectId: project.id, key: key.key };
  };

  it('stops and deletes every account, revokes every key, keeps the events, and the audit log shows it', async () => {
    const { projectId, key } = await newProject('Doomed desk');
    const running = await t.call('POST', '/accounts', { key, body: validAccount({ alias: 'running', loginAccountNumber: '7100001' }) });
    expect(running.status, JSON.stringify(running.body)).to.equal(200);
    expect((await t.call('POST', `/accounts/${running.body.id}/actions/start`, { key })).status).to.equal(200);
    const idle = await t.call('POST', '/accounts', { key, body: validAccount({ alias: 'idle', loginAccountNumber: '7100002' }) });
    const second = await t.call('POST', `/projects/${projectId}/apiKeys`, { key, body: { name: 'second project key' } });
    expect(second.status, JSON.stringify(second.body)).to.equal(200);
    expect(t.service.services.connections.isConnected(running.body.id)).to.equal(true);
    // the default project has an account of its own, which must stay
    const mine = await t.call('POST', '/accounts', { body: validAccount({ alias: 'not doomed', loginAccountNumber: '7100003' }) });
    await t.call('POST', `/accounts/${mine.body.id}/actions/start`);

    const res = await t.call('DELETE', `/projects/${projectId}`, { key });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    // four keys: the first project key, the second, and one account-level key per account
    expect(res.body).to.deep.equal({ projectId, deletedAccounts: 2, revokedKeys: 4 });

    const db = t.service.services.db;
    const accounts = await db.selectFrom('accounts').select(['id', 'account_status_id']).where('project_id', '=', projectId).execute();
    expect(accounts.map((a) => a.account_status_id)).to.deep.equal([4, 4]);
    expect(t.service.services.connections.isConnected(running.body.id)).to.equal(false);
    expect(t.service.services.connections.isConnected(idle.body.id)).to.equal(false);
    const live = await db.selectFrom('api_keys').select('id').where('project_id', '=', projectId).where('revoked_at', 'is', null).execute();
    expect(live).to.deep.equal([]);
    const reasons = await db.selectFrom('api_keys').select('revoked_reason').where('project_id', '=', projectId).execute();
    expect(reasons.map((r) => r.revoked_reason)).to.deep.equal(['PROJECT_DELETED', 'PROJECT_DELETED', 'PROJECT_DELETED', 'PROJECT_DELETED']);

    for (const k of [key, second.body.key as string]) {
      const refused = await t.call('GET', '/accounts', { key: k });
      expect([refused.status, refused.body.error, refused.body.message]).to.deep.equal([
        401,
        '[API_KEY_REVOKED]',
        'the API key was revoked: its project was deleted',
      ]);
    }

    const audit = await db.selectFrom('audit_logs').select(['action', 'account_id']).where('project_id', '=', projectId).orderBy('created').execute();
    const actions = audit.map((a) => a.action);
    expect(actions).to.include.members(['ProjectDeleted', 'AccountStopped', 'AccountDeleted', 'ApiKeyRevoked']);
    expect(actions.filter((a) => a === 'AccountDeleted')).to.have.length(2);
    expect(actions.filter((a) => a === 'ApiKeyRevoked')).to.have.length(4);
    expect(actions.indexOf('ProjectDeleted')).to.be.lessThan(actions.indexOf('AccountDeleted'));
    // the events stay
    const events = await sql<{ n: string }>`SELECT count(*) AS n FROM es_events WHERE stream_name = ${`project-${projectId}`}`.execute(db);
    expect(Number(events.rows[0]!.n)).to.equal(2);

    // the other project goes on
    expect((await t.call('GET', `/accounts/${mine.body.id}`)).body.status.id).to.equal(2);
    expect((await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}`)).status).to.equal(200);
  });

  it('refuses a late account creation with 404 [PROJECT_DELETED], and deleting again ends nothing more', async () => {
    const { projectId, key } = await newProject('Deleted twice');
    expect((await t.call('DELETE', `/projects/${projectId}`, { key })).status).to.equal(200);
    const services = t.service.services;
    const late = createAccountNow(services, {
      accountId: crypto.randomUUID(),
      projectId,
      settings: fromAccountCreateDTO(services, validAccount({ loginAccountNumber: '7100009' }) as never),
      failIfAccountExistsInProject: true,
      context: systemContext('spec'),
    });
    await late.then(
      () => expect.fail('created an account in a deleted project'),
      (error: { code?: string }) => expect(error.code).to.equal('[PROJECT_DELETED]'),
    );
    expect(await deleteProject(services, projectId, systemContext('spec'))).to.deep.equal({ deletedAccounts: 0, revokedKeys: 0 });
  });

  it("keeps projects apart: another project's key cannot delete this one", async () => {
    const { key } = await newProject('Bystander');
    const res = await t.call('DELETE', `/projects/${DEFAULT_PROJECT_ID}`, { key });
    expect([res.status, res.body.error]).to.deep.equal([404, '[PROJECT_NOT_FOUND]']);
    expect((await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}`)).status).to.equal(200);
  });
});

describe("a project's traders (GET /projects/{projectId}/traders)", function () {
  this.timeout(60_000);
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t?.stop());

  it('lists none while no account of the project holds FeatureTraderDTO (test/api/investorProgram.e2e.spec.ts lists some)', async () => {
    await t.call('POST', '/accounts', { body: validAccount({ alias: 'plain account' }) });
    const res = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/traders`);
    expect([res.status, res.body]).to.deep.equal([200, []]);
    const other = await t.call('GET', `/projects/${crypto.randomUUID()}/traders`);
    expect([other.status, other.body.error]).to.deep.equal([404, '[PROJECT_NOT_FOUND]']);
  });
});
