// GET /accounts/{accountId}/logs: the last N entries newest first, offset, the time window and the
// level filter (spec: logTypeId 3 returns 1, 2 and 3).
import { expect } from 'chai';
import { createOtherProject, startTestService, type TestService } from '../support/service.js';
import { marketHoursClock, pinQuotes, positionRequest, startedAccount } from '../support/trading.js';

const OTHER_PROJECT = '77777777-7777-4777-8777-777777777777';
const OTHER_KEY = 'logs-other-project-key-0123456789';

interface LogEntry {
  readonly id: string;
  readonly time: string;
  readonly logTypeId: number;
  readonly logType: string;
  readonly category: string;
  readonly message: string;
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
    await t.call('POST', `/accounts/${account}/positions`, { body: positionRequest({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.015 }) });
    await t.call('POST', `/accounts/${account}/positions`, { body: positionRequest({ symbol: 'EURUSD', orderType: 'Buy', volume: 50 }) });
    all = await logs('?limit=1000');
  });
  after(() => t?.stop());

  it('lists every entry newest first, with its level by number and name', () => {
    expect(all.length).to.equal(7);
    const times = all.map((l) => Date.parse(l.time));
    expect(times).to.deep.equal([...times].sort((a, b) => b - a));
    expect(all[0]).to.deep.include({ logTypeId: 1, logType: 'Error', category: 'TRADING', code: '[NOT_ENOUGH_MONEY]' });
    expect(all.at(-1)).to.deep.include({ logTypeId: 3, logType: 'Info', category: 'CONNECTION' });
    expect(all.filter((l) => /^Position #\d+ opened: Buy 0.01 lots EURUSD/.test(l.message))).to.have.length(3);
  });

  it('limit is the last N entries, offset skips from the newest', async () => {
    expect((await logs('?limit=2')).map((l) => l.id)).to.deep.equal(all.slice(0, 2).map((l) => l.id));
    expect((await logs('?limit=2&offset=2')).map((l) => l.id)).to.deep.equal(all.slice(2, 4).map((l) => l.id));
    expect(await logs('?offset=100')).to.deep.equal([]);
  });

  it('logTypeId 1 returns errors, 2 errors and warnings, 3 everything', async () => {
    expect((await logs('?logTypeId=1')).map((l) => l.code)).to.deep.equal(['[NOT_ENOUGH_MONEY]', '[INVALID_VOLUME]']);
    expect(await logs('?logTypeId=2')).to.have.length(2);
    expect(await logs('?logTypeId=3')).to.have.length(7);
  });

  it('start and stop bound the time, inclusive', async () => {
    const pivot = all[3]!.time;
    const newer = await logs(`?start=${encodeURIComponent(pivot)}`);
    expect(newer.map((l) => l.id)).to.deep.equal(all.filter((l) => l.time >= pivot).map((l) => l.id));
    const older = await logs(`?stop=${encodeURIComponent(pivot)}`);
    expect(older.map((l) => l.id)).to.deep.equal(all.filter((l) => l.time <= pivot).map((l) => l.id));
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
});
