// The auditor's timeline (issue 20): GET /accounts/{accountId}/timeline lists the account's events in
// order with who caused each, and GET /accounts/{accountId}/stateAt replays them to any instant.
import { expect } from 'chai';
import { createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';
import { bookWhere, eventually, marketHoursClock, openPosition, pinQuotes } from '../support/trading.js';

const OTHER_PROJECT = '66666666-6666-4666-8666-666666666666';
const OTHER_KEY = 'timeline-other-project-key-0123456789';

interface Entry {
  readonly position: string;
  readonly time: string;
  readonly type: string;
  readonly stream: string;
  readonly cause: { kind: string; apiKeyId: string | null; method: string | null; path: string | null };
  readonly data: Record<string, unknown>;
  readonly after: { status: string | null; openPositions: number; copiers: number; balance: number };
}

describe('console: the account timeline and its state at an instant', function () {
  this.timeout(90_000);
  let t: TestService;
  let master: string;
  let slave: string;
  let slaveKey: string;
  let timeline: Entry[];

  const created = async (alias: string, login: string) => {
    const res = await t.call('POST', '/accounts', { body: validAccount({ alias, loginServer: 'Sim-Demo', loginAccountNumber: login }) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect((await t.call('POST', `/accounts/${res.body.id}/actions/start`)).status).to.equal(200);
    return { id: res.body.id as string, key: res.headers.get('x-account-api-key')! };
  };

  before(async () => {
    t = await startTestService({ clock: marketHoursClock() });
    await createOtherProject(t, OTHER_PROJECT, OTHER_KEY);
    await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
    master = (await created('timeline master', `${process.pid}71`)).id;
    const s = await created('timeline slave', `${process.pid}72`);
    slave = s.id;
    slaveKey = s.key;
    expect((await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master, multiplier: 2 } })).status).to.equal(200);
    await openPosition(t, master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.01 });
    await bookWhere(t, slave, (book) => book.length === 1, 'the copy');
    timeline = await eventually(
      async () => {
        const res = await t.call('GET', `/accounts/${slave}/timeline`);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const entries = res.body.entries as Entry[];
        // The engine's CopyExecuted and the slave venue's PositionOpened are recorded by two writers,
        // in either order: wait for both.
        return entries.some((e) => e.type === 'CopyExecuted') && entries.some((e) => e.type === 'PositionOpened') ? entries : undefined;
      },
      10_000,
      'the CopyExecuted and the PositionOpened in the timeline',
    );
  });
  after(() => t?.stop());

  it("lists the slave's events in order, each with who caused it and the account after it", () => {
    const types = timeline.map((e) => e.type);
    expect(types[0]).to.equal('AccountCreated');
    const times = timeline.map((e) => Date.parse(e.time));
    expect(types).to.include.members(['AccountCreated', 'AccountStarted', 'VenueConnected', 'CopierCreated', 'PositionOpened', 'CopyExecuted']);
    const byType = (type: string) => timeline.find((e) => e.type === type)!;
    expect(byType('AccountCreated').cause).to.deep.include({ kind: 'API_KEY', method: 'POST', path: '/rest/api/v1/accounts' });
    expect(byType('AccountCreated').cause.apiKeyId).to.be.a('string');
    expect(JSON.stringify(byType('AccountCreated').data)).to.not.include('Ciphertext":"v');
    expect((byType('AccountCreated').data.settings as Record<string, unknown>).passwordCiphertext).to.equal('***');
    expect(byType('CopierCreated').cause.kind).to.equal('API_KEY');
    expect(byType('VenueConnected').cause.kind).to.equal('VENUE');
    expect(byType('PositionOpened').cause.kind).to.equal('VENUE');
    expect(byType('CopyExecuted').cause.kind).to.equal('ENGINE');
    expect(byType('AccountStarted').after).to.deep.include({ status: 'Active', openPositions: 0 });
    expect(byType('PositionOpened').after).to.deep.include({ openPositions: 1, copiers: 1 });
    expect(times.length).to.equal(timeline.length);
  });

  it('stateAt replays to the instant: no position before the trade, the copy after it', async () => {
    const opened = timeline.find((e) => e.type === 'PositionOpened')!;
    // An instant is a millisecond: the engine's CopyExecuted may share the fill's, so the instant
    // before the trade is the last event's strictly earlier than the PositionOpened.
    const before = timeline
      .slice(0, timeline.indexOf(opened))
      .filter((e) => Date.parse(e.time) < Date.parse(opened.time))
      .at(-1)!;
    const then = await t.call('GET', `/accounts/${slave}/stateAt?instant=${encodeURIComponent(before.time)}`);
    expect(then.status, JSON.stringify(then.body)).to.equal(200);
    expect(then.body.account.positions).to.deep.equal([]);
    expect(then.body.account.copiers).to.have.length(1);
    expect(then.body.account.copiers[0]).to.deep.include({ fromAccountId: master });
    expect(then.body.account.status).to.deep.equal({ id: 2, name: 'Active' });
    const now = await t.call('GET', `/accounts/${slave}/stateAt?instant=${encodeURIComponent(new Date().toISOString())}`);
    expect(now.body.account.positions).to.have.length(1);
    expect(now.body.account.positions[0]).to.deep.include({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.02 });
    expect(now.body.account.settings.passwordCiphertext).to.equal('***');
    const beforeAll = await t.call('GET', `/accounts/${slave}/stateAt?instant=2000-01-01T00:00:00Z`);
    expect(beforeAll.body).to.deep.include({ eventsReplayed: 0, lastEvent: null });
    expect(beforeAll.body.account).to.deep.include({ exists: false, positions: [] });
  });

  it('stateAt by position stops right after that event, exact within a millisecond', async () => {
    const opened = timeline.find((e) => e.type === 'PositionOpened')!;
    const before = timeline[timeline.indexOf(opened) - 1]!;
    const after = async (entry: Entry) => {
      const res = await t.call('GET', `/accounts/${slave}/stateAt?position=${encodeURIComponent(entry.position)}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body;
    };
    const then = await after(before);
    expect(then.account.positions).to.deep.equal([]);
    expect(then.eventsReplayed).to.equal(timeline.indexOf(opened));
    expect(then.lastEvent).to.deep.include({ position: before.position, type: before.type });
    expect(then.instant).to.equal(before.time);
    const filled = await after(opened);
    expect(filled.account.positions).to.have.length(1);
    expect(filled.eventsReplayed).to.equal(timeline.indexOf(opened) + 1);
    const both = await t.call('GET', `/accounts/${slave}/stateAt?position=${encodeURIComponent(opened.position)}&instant=2026-01-01T00:00:00Z`);
    expect(both.status).to.equal(400);
    expect(both.body.error).to.equal('[VALIDATION_FAILED]');
    expect((await t.call('GET', `/accounts/${slave}/stateAt?position=yesterday`)).status).to.equal(400);
  });

  it('until, offset and limit page through the timeline', async () => {
    const page = await t.call('GET', `/accounts/${slave}/timeline?offset=1&limit=2`);
    expect(page.body.entries.map((e: Entry) => e.type)).to.deep.equal(timeline.slice(1, 3).map((e) => e.type));
    const until = await t.call('GET', `/accounts/${slave}/timeline?until=${encodeURIComponent(timeline[0]!.time)}`);
    expect(until.body.entries.length).to.be.at.least(1);
    expect(until.body.entries.length).to.be.below(timeline.length);
  });

  it("keeps to the account routes' isolation: account-level keys, other projects, bad input", async () => {
    expect((await t.call('GET', `/accounts/${slave}/timeline`, { key: slaveKey })).status).to.equal(200);
    expect((await t.call('GET', `/accounts/${master}/timeline`, { key: slaveKey })).body).to.deep.include({ error: '[ACCOUNT_NOT_FOUND]' });
    expect((await t.call('GET', `/accounts/${master}/stateAt?instant=2026-01-01T00:00:00Z`, { key: slaveKey })).status).to.equal(404);
    expect((await t.call('GET', `/accounts/${slave}/timeline`, { key: OTHER_KEY })).status).to.equal(404);
    expect((await t.call('GET', `/accounts/${slave}/stateAt`)).status).to.equal(400);
    expect((await t.call('GET', `/accounts/${slave}/stateAt?instant=yesterday`)).status).to.equal(400);
    expect((await t.call('GET', `/accounts/${slave}/timeline`, { key: null })).status).to.equal(401);
  });
});
