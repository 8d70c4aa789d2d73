// GET /accounts/{accountId}/logs: the last N entries newest first, offset, the time window and the
// level filter (spec: logTypeId 3 returns 1, 2 and 3), in the reference's LogDTO; the project's logs,
// their acknowledgement (single, bulk, all), and the same ids and flags after a rebuild.
import { expect } from 'chai';
import { sql } from 'kysely';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { allProjections } from '../../projections/all.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';
import { marketHoursClock, pinQuotes, positionRequest, startedAccount } from '../support/trading.js';

const OTHER_PROJECT = '77777777-7777-4777-8777-777777777777';
const OTHER_KEY = 'logs-other-project-key-0123456789';

const PROJECT = DEFAULT_PROJECT_ID;
const OTHER_LOGS = `/projects/${OTHER_PROJECT}/logs`;
const LOGS = `/projects/${PROJECT}/logs`;

interface LogEntry {
  readonly id: number;
  readonly date: string;
  readonly accountId: string;
  readonly projectId: string;
  readonly acknowledged: boolean;
  readonly logTypeId: number;
  readonly logType: string;
  readonly category: string;
  readonly text: string;
  readonly code: string | null;
}

describe('account logs end to end', function () {
  this.timeout(60_000);
  let t: TestService;
  let account: string;
  let all: LogEntry[];
  const logs = async (query = '') => {
    const res = await t.call('GET', `/accounts/${account}/logs${query}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as LogEntry[];
  };

  before(async () => {
    t = await startTestService({ clock: marketHoursClock() });
    await createOtherProject(t, OTHER_PROJECT, OTHER_KEY);
    await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
    account = await startedAccount(t, 'logs');
    // Info entries (connection, deposit, positions), two errors (refusals), no warnings.
    for (let i = 0; i < 3; i++)
      await t.call('POST', `/accounts/${account}/positions`, { body: positionRequest({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.01 }) });
    await t.call('POST', `/accounts/${account}/positions`, { body: positionRequest({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.01, stopLoss: 1.09 }) });
    await t.call('POST', `/accounts/${account}/positions`, { body: positionRequest({ symbol: 'EURUSD', orderType: 'Buy', volume: 50 }) });
    all = await logs('?limit=1000');
  });
  after(() => t?.stop());

  it('lists every entry newest first, with its level by number and name, an integer id, its account and project', () => {
    expect(all.length).to.equal(7);
    const times = all.map((l) => Date.parse(l.date));
    expect(times).to.deep.equal([...times].sort((a, b) => b - a));
    expect(all[0]).to.deep.include({ logTypeId: 1, logType: 'Error', category: 'TRADING', code: '[NOT_ENOUGH_MONEY]' });
    expect(all.at(-1)).to.deep.include({ logTypeId: 3, logType: 'Info', category: 'CONNECTION' });
    expect(all.filter((l) => /^Position #\d+ opened: Buy 0.01 lots EURUSD/.test(l.text))).to.have.length(3);
    for (const l of all) {
      expect(l.id).to.be.a('number').that.satisfies(Number.isSafeInteger);
      expect(l).to.deep.include({ accountId: account, projectId: PROJECT, acknowledged: false });
    }
    expect(new Set(all.map((l) => l.id)).size).to.equal(all.length);
  });

  it('GET /types/logTypes lists the levels as LogTypeDTO', async () => {
    const res = await t.call('GET', '/types/logTypes');
    expect(res.body).to.deep.equal([
      { id: 1, name: 'Error' },
      { id: 2, name: 'Warning' },
      { id: 3, name: 'Info' },
    ]);
  });

  it('limit is the last N entries, offset skips from the newest', async () => {
    expect((await logs('?limit=2')).map((l) => l.id)).to.deep.equal(all.slice(0, 2).map((l) => l.id));
    expect((await logs('?limit=2&offset=2')).map((l) => l.id)).to.deep.equal(all.slice(2, 4).map((l) => l.id));
    expect(await logs('?offset=100')).to.deep.equal([]);
  });

  it('logTypeId 1 returns errors, 2 errors and warnings, 3 everything', async () => {
    expect((await logs('?logTypeId=1')).map((l) => l.code)).to.deep.equal(['[NOT_ENOUGH_MONEY]', '[INVALID_STOPS]']);
    expect(await logs('?logTypeId=2')).to.have.length(2);
    expect(await logs('?logTypeId=3')).to.have.length(7);
  });

  it('start and stop bound the time, inclusive', async () => {
    const pivot = all[3]!.date;
    const newer = await logs(`?start=${encodeURIComponent(pivot)}`);
    expect(newer.map((l) => l.id)).to.deep.equal(all.filter((l) => l.date >= pivot).map((l) => l.id));
    const older = await logs(`?stop=${encodeURIComponent(pivot)}`);
    expect(older.map((l) => l.id)).to.deep.equal(all.filter((l) => l.date <= pivot).map((l) => l.id));
  });

  it('refuses a level outside 1 to 3, a limit above 1000 and a time that is not ISO 8601, with 400', async () => {
    for (const query of ['?logTypeId=4', '?logTypeId=0', '?limit=1001', '?limit=0', '?offset=-1', '?start=yesterday']) {
      const res = await t.call('GET', `/accounts/${account}/logs${query}`);
      expect(res.status, query).to.equal(400);
      expect(res.body.error).to.equal('[VALIDATION_FAILED]');
    }
  });

  it("another project's key sees no logs of this account: 404", async () => {
    const res = await t.call('GET', `/accounts/${account}/logs`, { key: OTHER_KEY });
    expect(res.status).to.equal(404);
    expect(res.body.error).to.equal('[ACCOUNT_NOT_FOUND]');
  });

  describe("a project's logs and their acknowledgement", () => {
    let second: string;
    let projectLogs: LogEntry[];
    const projectPage = async (query = '?limit=1000') => {
      const res = await t.call('GET', `${LOGS}${query}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body as LogEntry[];
    };
    const flags = async () => new Map((await projectPage()).map((l) => [l.id, l.acknowledged]));

    before(async () => {
      second = await startedAccount(t, 'logs second');
      projectLogs = await projectPage();
    });

    it("lists the entries of every account of the project, newest first, with the account logs' query", async () => {
      expect(projectLogs.map((l) => l.id)).to.include.members(all.map((l) => l.id));
      expect(projectLogs.some((l) => l.accountId === second)).to.equal(true);
      const dates = projectLogs.map((l) => Date.parse(l.date));
      expect(dates).to.deep.equal([...dates].sort((a, b) => b - a));
      expect((await projectPage('?logTypeId=1')).map((l) => l.code)).to.deep.equal(['[NOT_ENOUGH_MONEY]', '[INVALID_STOPS]']);
      expect((await projectPage('?limit=2&offset=1')).map((l) => l.id)).to.deep.equal(projectLogs.slice(1, 3).map((l) => l.id));
    });

    it('acknowledges one entry: 200 without a body, and the entry says so; again changes nothing', async () => {
      const target = all[0]!.id;
      const res = await t.call('PUT', `${LOGS}/${target}/acknowledge`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.equal(undefined);
      expect((await flags()).get(target)).to.equal(true);
      expect((await logs('?limit=1')).at(0)).to.deep.include({ id: target, acknowledged: true });
      expect((await t.call('PUT', `${LOGS}/${target}/acknowledge`)).status).to.equal(200);
      const others = [...(await flags()).entries()].filter(([id, seen]) => id !== target && seen);
      expect(others).to.deep.equal([]);
    });

    it('acknowledges a list; one id that is not an entry of the project acknowledges none: 404', async () => {
      const [a, b, c] = all.slice(1, 4).map((l) => l.id);
      const unknown = Math.max(...projectLogs.map((l) => l.id)) + 1_000_000;
      const refused = await t.call('PUT', `${LOGS}/acknowledge/bulk`, { body: [a, unknown] });
      expect(refused.status).to.equal(404);
      expect(refused.body.error).to.equal('[LOG_NOT_FOUND]');
      expect((await flags()).get(a!)).to.equal(false);
      const res = await t.call('PUT', `${LOGS}/acknowledge/bulk`, { body: [a, b, b] });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const now = await flags();
      expect([now.get(a!), now.get(b!), now.get(c!)]).to.deep.equal([true, true, false]);
      expect((await t.call('PUT', `${LOGS}/acknowledge/bulk`, { body: [] })).status).to.equal(200);
      expect((await t.call('PUT', `${LOGS}/${unknown}/acknowledge`)).body.error).to.equal('[LOG_NOT_FOUND]');
    });

    it('refuses ids that are not integers and bodies that are not lists: 400, nothing changes', async () => {
      const before = await flags();
      for (const body of [['1'], [1.5], { ids: [1] }, [-1]]) {
        const res = await t.call('PUT', `${LOGS}/acknowledge/bulk`, { body });
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.error).to.equal('[VALIDATION_FAILED]');
      }
      expect((await t.call('PUT', `${LOGS}/abc/acknowledge`)).status).to.equal(400);
      expect(await flags()).to.deep.equal(before);
    });

    it("keeps projects apart: another project's key gets 404 for this project's logs, and cannot acknowledge its entries through its own project", async () => {
      const before = await flags();
      expect((await t.call('GET', LOGS, { key: OTHER_KEY })).body.error).to.equal('[PROJECT_NOT_FOUND]');
      expect((await t.call('PUT', `${LOGS}/acknowledgeAll`, { key: OTHER_KEY })).status).to.equal(404);
      const own = await t.call('GET', OTHER_LOGS, { key: OTHER_KEY });
      expect(own.status).to.equal(200);
      expect(own.body).to.deep.equal([]);
      const mine = all[4]!.id;
      expect((await t.call('PUT', `${OTHER_LOGS}/${mine}/acknowledge`, { key: OTHER_KEY })).body.error).to.equal('[LOG_NOT_FOUND]');
      expect((await t.call('PUT', `${OTHER_LOGS}/acknowledge/bulk`, { key: OTHER_KEY, body: [mine] })).body.error).to.equal('[LOG_NOT_FOUND]');
      expect((await t.call('PUT', `${OTHER_LOGS}/acknowledgeAll`, { key: OTHER_KEY })).status).to.equal(200);
      expect(await flags()).to.deep.equal(before);
    });

    it('an account-level key may read its account logs, not the project logs: 403', async () => {
      const created = await t.call('POST', '/accounts', { body: validAccount({ alias: 'logs account key', loginAccountNumber: '7700123' }) });
      const accountKey = created.headers.get('x-account-api-key')!;
      expect(accountKey).to.be.a('string');
      expect((await t.call('GET', `/accounts/${created.body.id}/logs`, { key: accountKey })).status).to.equal(200);
      for (const [method, path] of [
        ['GET', LOGS],
        ['PUT', `${LOGS}/acknowledgeAll`],
        ['PUT', `${LOGS}/${all[5]!.id}/acknowledge`],
      ] as const) {
        const res = await t.call(method, path, { key: accountKey });
        expect(res.status, `${method} ${path}`).to.equal(403);
        expect(res.body.error).to.equal('[PROJECT_LEVEL_API_KEY_REQUIRED]');
      }
    });

    it('acknowledges every entry written so far; later entries are not', async () => {
      expect((await t.call('PUT', `${LOGS}/acknowledgeAll`)).status).to.equal(200);
      expect([...(await flags()).values()].every(Boolean)).to.equal(true);
      await t.call('POST', `/accounts/${account}/positions`, { body: positionRequest({ symbol: 'EURUSD', orderType: 'Buy', volume: 50 }) });
      const newest = (await logs('?limit=1'))[0]!;
      expect(newest).to.deep.include({ code: '[NOT_ENOUGH_MONEY]', acknowledged: false });
    });

    it('a rebuild of the account logs gives every entry the same id and the same acknowledgement', async () => {
      const { db, store } = t.service.services;
      const snapshot = async () =>
        (await sql<Record<string, unknown>>`SELECT id, position_prepare, project_id, acknowledged, message FROM account_logs ORDER BY id`.execute(db)).rows;
      const live = await snapshot();
      const answered = await projectPage();
      await rebuildProjection(
        db,
        store,
        allProjections.find((p) => p.name === 'account_logs')!,
      );
      expect(await snapshot()).to.deep.equal(live);
      expect(await projectPage()).to.deep.equal(answered);
    });
  });
});
