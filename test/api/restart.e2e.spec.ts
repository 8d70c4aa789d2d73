// Restart end to end: a new service on the same database and data directory finds everything the
// previous one wrote (state comes back from the events), and keeps writing.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { accountUpdate, type TestService, startTestService, validAccount, accountStatus, withStatus } from '../support/service.js';

interface Account {
  id: string;
  alias: string | null;
  status: { id: number };
  [member: string]: unknown;
}

describe('restart end to end', () => {
  let first: TestService | null = null;
  let second: TestService;
  /** What the first service answered for each account just before it stopped. */
  const was: Record<'fresh' | 'active' | 'stopped' | 'deleted' | 'renamed', Account> = {} as never;
  let auditLogsBefore: unknown[];

  before(async () => {
    // Given: a service with accounts in every status, a rename and a reconnect, then stopped.
    first = await startTestService();
    const call = first.call;
    const create = async (alias: string, number: string): Promise<string> => {
      const res = await call('POST', '/accounts', { body: validAccount({ alias, loginAccountNumber: number }) });
      expect(res.status).to.equal(200);
      return res.body.id;
    };
    const fresh = await create('Fresh one', '7000001');
    const active = await create('Active one', '7000002');
    const stopped = await create('Stopped one', '7000003');
    const deleted = await create('Deleted one', '7000004');
    const renamed = await create('Old name', '7000005');
    await call('POST', `/accounts/${active}/actions/start`);
    expect((await call('POST', `/accounts/${active}/actions/reconnect`)).status).to.equal(204);
    await call('POST', `/accounts/${stopped}/actions/start`);
    await call('POST', `/accounts/${stopped}/actions/stop`);
    await call('DELETE', `/accounts/${deleted}`);
    await call('PUT', `/accounts/${renamed}`, {
      body: accountUpdate(validAccount(), { alias: 'New name', propFirm: true, loginAccountPassword: 'changed-before-restart' }),
    });
    for (const [name, id] of Object.entries({ fresh, active, stopped, deleted, renamed })) {
      was[name as keyof typeof was] = (await call('GET', `/accounts/${id}`)).body;
    }
    auditLogsBefore = (await call('GET', `/projects/${DEFAULT_PROJECT_ID}/auditLogs?limit=1000`)).body;
    const { databaseUrl, dataDir } = first;
    await first.stop();
    first = null;

    // When: a new service starts on the same database and data directory.
    second = await startTestService({ databaseUrl, dataDir });
  });
  after(async () => {
    await first?.stop();
    await second?.stop();
  });

  it('every account is still there with its status, alias and every other member', async () => {
    for (const account of Object.values(was)) {
      const res = await second.call('GET', `/accounts/${account.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(account);
    }
    expect(was.fresh).to.deep.include({ alias: 'Fresh one', ...accountStatus(1) });
    expect(was.active).to.deep.include({ alias: 'Active one', ...accountStatus(2) });
    expect(was.stopped).to.deep.include({ alias: 'Stopped one', ...accountStatus(3) });
    expect(was.deleted).to.deep.include({ alias: 'Deleted one', ...accountStatus(4) });
    expect(was.renamed).to.deep.include({ alias: 'New name', propFirm: true, ...accountStatus(1) });
  });

  it('the list shows the same accounts in the same order, deleted ones only when asked for', async () => {
    const live = await second.call('GET', '/accounts');
    const deleted = await second.call('GET', '/accounts?accountStatusId=4');

    expect(live.body).to.deep.equal([was.fresh, was.active, was.stopped, was.renamed]);
    expect(deleted.body).to.deep.equal([was.deleted]);
  });

  it('the audit log is unchanged: starting again records no second project or key', async () => {
    const res = await second.call('GET', `/projects/${DEFAULT_PROJECT_ID}/auditLogs?limit=1000`);

    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(auditLogsBefore);
    expect(res.body.filter((l: { action: string }) => l.action === 'ProjectCreated')).to.have.length(1);
    // (every account has an account-level key of its own; the project-level bootstrap key is issued once)
    expect(
      res.body.filter((l: { action: string; changes: { level?: string } }) => l.action === 'ApiKeyIssued' && l.changes.level === 'PROJECT'),
    ).to.have.length(1);
  });

  it('the rules that depend on history still hold: a deleted account refuses changes, the reconnect limit stands', async () => {
    const revive = await second.call('POST', `/accounts/${was.deleted.id}/actions/start`);
    const reconnect = await second.call('POST', `/accounts/${was.active.id}/actions/reconnect`);

    expect(revive.status).to.equal(409);
    expect(revive.body.error).to.equal('[ACCOUNT_DELETED]');
    expect(reconnect.status).to.equal(429);
    expect(reconnect.body.error).to.equal('[RECONNECT_TOO_FREQUENT]');
  });

  it('new writes work: an existing account changes and a new account is created', async () => {
    const started = await second.call('POST', `/accounts/${was.stopped.id}/actions/start`);
    const renamed = await second.call('PUT', `/accounts/${was.renamed.id}`, {
      body: accountUpdate(was.renamed, { alias: 'After restart', loginAccountPassword: 'changed-after-restart' }),
    });
    const created = await second.call('POST', '/accounts', { body: validAccount({ alias: 'Born after restart', loginAccountNumber: '7000006' }) });

    expect(started.status).to.equal(200);
    expect(started.body).to.deep.equal(withStatus(was.stopped, 2));
    expect(renamed.status).to.equal(200);
    expect(renamed.body).to.deep.equal({ ...was.renamed, alias: 'After restart' });
    expect(created.status).to.equal(200);
    expect(created.body).to.deep.include({ alias: 'Born after restart', ...accountStatus(1) });
    const live = await second.call('GET', '/accounts');
    expect(live.body.map((a: Account) => a.id)).to.deep.equal([was.fresh.id, was.active.id, was.stopped.id, was.renamed.id, created.body.id]);
    const logs = await second.call('GET', `/accounts/${was.renamed.id}/auditLogs?limit=1`);
    expect(logs.body[0]).to.deep.include({
      action: 'AccountUpdated',
      accountAlias: 'After restart',
      changes: { alias: 'After restart', loginAccountPassword: '***' },
    });
  });
});
