// The operator's command line (npm run project): a real child process against a real (embedded)
// PostgreSQL, found as `npm start` finds it (here by DATABASE_URL), beside a running service whose read
// models it waits for. A key it prints works at once with the service. (Without a service the script
// starts the embedded PostgreSQL under DATA_DIR itself and follows the read models on its own.)
import { expect } from 'chai';
import { keyIn, runProjectCli } from '../support/process.js';
import { startTestService, type TestService } from '../support/service.js';

describe('npm run project (the operator command line)', function () {
  this.timeout(600_000);
  let t: TestService;
  before(async () => {
    // the embedded PostgreSQL the specs share, named by DATABASE_URL as an operator's external one would be
    t = await startTestService();
  });
  after(() => t?.stop());

  it('creates a project with a key shown once, lists it, issues another key by name, and the service accepts both at once', async () => {
    const env = { DATABASE_URL: t.databaseUrl, DATA_DIR: t.dataDir };
    const created = await runProjectCli(['create', 'Second Customer', '--owner', 'ops@second.example'], env);
    expect(created.code, created.err).to.equal(0);
    const projectId = /id: ([0-9a-f-]{36})/.exec(created.out)?.[1];
    expect(projectId, created.out).to.be.a('string');
    const first = keyIn(created.out);

    const listed = await runProjectCli(['list', '--json'], env);
    expect(listed.code, listed.err).to.equal(0);
    const projects = JSON.parse(listed.out) as { id: string; name: string; owner: string | null; deleted: string | null }[];
    expect(projects.map(({ id, name, owner, deleted }) => ({ id, name, owner, deleted }))).to.deep.include({
      id: projectId,
      name: 'Second Customer',
      owner: 'ops@second.example',
      deleted: null,
    });
    expect(listed.out).not.to.include('ct_');

    const another = await runProjectCli(['key', 'Second Customer', '--name', 'integration'], env);
    expect(another.code, another.err).to.equal(0);
    const second = keyIn(another.out);
    expect(second).not.to.equal(first);

    for (const key of [first, second]) {
      const res = await t.call('GET', `/projects/${projectId}`, { key });
      expect([res.status, res.body.name, res.body.owner?.email]).to.deep.equal([200, 'Second Customer', 'ops@second.example']);
      expect((await t.call('GET', '/accounts', { key })).body).to.deep.equal([]);
    }
    const keys = await t.call('GET', `/projects/${projectId}/apiKeys`, { key: first });
    expect(keys.body.map((k: { name: string }) => k.name).sort()).to.deep.equal(['first project key', 'integration']);
    // the default project's key belongs to another project
    expect((await t.call('GET', `/projects/${projectId}`)).status).to.equal(404);
    // the audit log of the new project shows who made it: the operator, not a request
    const audit = await t.call('GET', `/projects/${projectId}/auditLogs?limit=100`, { key: first });
    expect(audit.status).to.equal(200);
  });

  it('refuses an unknown command and a name taken already', async () => {
    const env = { DATABASE_URL: t.databaseUrl, DATA_DIR: t.dataDir };
    const bogus = await runProjectCli(['bogus'], env);
    expect(bogus.code).to.equal(2);
    expect(bogus.err).to.include('unknown command bogus');
    expect(bogus.err).to.include('npm run project -- create NAME');
    const first = await runProjectCli(['create', 'Taken'], env);
    expect(first.code, first.err).to.equal(0);
    const again = await runProjectCli(['create', 'Taken'], env);
    expect(again.code).to.equal(1);
    expect(again.err).to.include('[PROJECT_ALREADY_EXISTS]');
  });
});
