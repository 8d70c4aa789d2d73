// A customer's block job stopped part-way by an unblock (issue 23), over HTTP with the service's own
// leased block job: the job has stopped the first of the customer's two accounts when the operator
// lifts the block. The job stops nothing more, the block is never completed, and the unblock, run by
// the same loop, starts the stopped account again, so both accounts trade as before the block.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { type FakeSmtp, startFakeSmtp } from '../support/fakeSmtp.js';
import { startTestService, type TestService, validAccount } from '../support/service.js';
import { eventually, featureBody } from '../support/trading.js';

const BRAND = 'trade.interrupted.test';

describe('a customer block job stopped part-way by an unblock, end to end', function () {
  this.timeout(180_000);
  let t: TestService;
  let smtp: FakeSmtp;

  before(async () => {
    smtp = await startFakeSmtp();
    t = await startTestService({ env: { SMTP_URL: smtp.url, SMTP_FROM: 'Operator <ops@operator.test>' } });
  });
  after(async () => {
    await t?.stop();
    await smtp?.close();
  });

  it('stops nothing more once unblocked, and starts again the account it had stopped', async () => {
    const brand = await t.call('POST', `/projects/${DEFAULT_PROJECT_ID}/features`, {
      body: featureBody({ type: 'FeatureWhiteLabelDTO', name: 'Interrupted', logo: 'https://cdn.acme.test/logo.svg', subdomain: BRAND, stripeApiKey: '' }),
    });
    expect(brand.status, JSON.stringify(brand.body)).to.equal(200);
    const brandPath = `/projects/${DEFAULT_PROJECT_ID}/features/${brand.body.id}/whitelabel/customers`;

    // A customer registered by mailed code, with a project and two started accounts.
    const before = smtp.mails.length;
    const asked = await t.call('POST', `/whitelabel/${BRAND}/customers/code`, { key: null, body: { email: 'ann@acme.test' } });
    expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
    const code = await smtp.codeFor('ann@acme.test', before);
    const session = await t.call('POST', `/whitelabel/${BRAND}/customers/session`, { key: null, body: { codeId: asked.body.codeId, code } });
    expect(session.status, JSON.stringify(session.body)).to.equal(200);
    const bearer = { authorization: `Bearer ${session.body.token}` };
    const project = await t.call('POST', '/customer/projects', { key: null, headers: bearer, body: { name: 'Ann desk' } });
    expect(project.status, JSON.stringify(project.body)).to.equal(201);
    const key = project.body.key as string;
    const accounts: string[] = [];
    for (const login of ['7300001', '7300002']) {
      const created = await t.call('POST', '/accounts', { key, body: validAccount({ loginAccountNumber: login }) });
      expect(created.status, JSON.stringify(created.body)).to.be.oneOf([200, 201]);
      const started = await t.call('POST', `/accounts/${created.body.id}/actions/start`, { key });
      expect(started.status, JSON.stringify(started.body)).to.be.oneOf([200, 204]);
      accounts.push(created.body.id as string);
    }

    // The job is held right after it stopped its first account (the broker session's close).
    const connections = t.service.services.connections;
    const disconnect = connections.disconnect.bind(connections);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reached!: (accountId: string) => void;
    const firstStopped = new Promise<string>((resolve) => (reached = resolve));
    const stoppedByJob: string[] = [];
    connections.disconnect = async (accountId: string, ...rest: unknown[]) => {
      stoppedByJob.push(accountId);
      if (stoppedByJob.length === 1) {
        reached(accountId);
        await held;
      }
      return (disconnect as (id: string, ...more: unknown[]) => Promise<void>)(accountId, ...rest);
    };
    try {
      const blocked = await t.call('PUT', `${brandPath}/block`, { body: { email: 'ann@acme.test', reason: 'review' } });
      expect(blocked.status, JSON.stringify(blocked.body)).to.equal(202);
      const first = await firstStopped;
      expect(accounts).to.include(first);

      const unblocked = await t.call('PUT', `${brandPath}/unblock`, { body: { email: 'ann@acme.test' } });
      expect(unblocked.status, JSON.stringify(unblocked.body)).to.equal(202);
      expect(unblocked.body.accountIds, 'the account the job had stopped').to.deep.equal([first]);
    } finally {
      release();
    }

    const done = await eventually(
      async () => {
        const list = (await t.call('GET', brandPath)).body as { unblockCompleted: boolean }[];
        return list[0]?.unblockCompleted ? list[0] : undefined;
      },
      60_000,
      'the unblock job',
    );
    expect(done).to.deep.include({ blockCompleted: true, unblockCompleted: true });
    expect(stoppedByJob, 'the job stopped nothing after the unblock').to.have.length(1);
    for (const accountId of accounts) {
      const account = await t.call('GET', `/accounts/${accountId}`, { key });
      expect(account.status, JSON.stringify(account.body)).to.equal(200);
      expect(account.body.status, `${accountId} trades again`).to.deep.include({ id: 2 });
    }
    const summary = await eventually(
      async () => smtp.mails.find((m) => m.to === 'ops@operator.test' && m.raw.includes('unblocked')),
      15_000,
      'the unblock e-mail',
    );
    expect(summary.raw).to.include('Accounts started again: 1');
    expect(
      smtp.mails.some((m) => m.to === 'ops@operator.test' && /customer ann@acme\.test blocked/.test(m.raw)),
      'no block summary: the block never completed',
    ).to.equal(false);
  });
});
