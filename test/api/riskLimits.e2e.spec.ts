// Risk limits end to end (spec "RiskLimitDTO"; issue 5): over HTTP against the simulated venue, prices
// pinned by the spec so every loss is known: US500 has no spread (bid = ask), no commission and
// 10 USD per point and lot, so a slave holding 1 lot loses 10 USD per point. TIME_ZONE is
// Europe/Berlin: the day begins at 23:00 UTC in winter and at 22:00 UTC in summer.
import { expect } from 'chai';
import { sql } from 'kysely';
import { allProjections } from '../../projections/all.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { startTestService, type TestService } from '../support/service.js';
import { bookWhere, eventually, movableClock, pinQuotes, positionsOf, startedAccount } from '../support/trading.js';

interface LogEntry {
  readonly message: string;
  readonly code: string | null;
  readonly category: string;
  readonly logTypeId: number;
}

const BERLIN = { TIME_ZONE: 'Europe/Berlin' };

/** What every spec of this file does with a service: pairs, limits, logs, the monitor's ticks. */
const helpers = (get: () => TestService) => {
  const call: TestService['call'] = (...args) => get().call(...args);
  /** Made flat after each spec, so a failed one leaves no position to slow the venue's catching up with the clock. */
  const created: string[] = [];
  afterEach(async () => {
    for (const id of created.splice(0)) await call('POST', `/accounts/${id}/actions/closeAllPositions`).catch(() => undefined);
  });
  const open = async (accountId: string, body: Record<string, unknown>) => {
    const res = await call('POST', `/accounts/${accountId}/positions`, { body });
    expect(res.status, JSON.stringify(res.body)).to.equal(204);
    return res.headers.get('x-position-id')!;
  };
  const close = async (accountId: string, positionId: string) =>
    expect((await call('DELETE', `/accounts/${accountId}/positions/${positionId}`)).status).to.equal(204);
  const flat = async (...accounts: string[]) => {
    for (const id of accounts) {
      expect((await call('POST', `/accounts/${id}/actions/closeAllPositions`)).status).to.equal(204);
      await bookWhere(get(), id, (b) => b.length === 0, 'a flat account');
    }
  };
  const pair = async (name: string) => {
    const master = await startedAccount(get(), `${name}-master`);
    const slave = await startedAccount(get(), `${name}-slave`);
    created.push(master, slave);
    const copier = await call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master } });
    expect(copier.status, JSON.stringify(copier.body)).to.equal(200);
    return { master, slave };
  };
  const logs = async (accountId: string): Promise<LogEntry[]> => (await call('GET', `/accounts/${accountId}/logs?limit=1000`)).body as LogEntry[];
  const logWith = (accountId: string, code: string, category?: string, timeoutMs = 10_000) =>
    eventually(async () => (await logs(accountId)).find((l) => l.code === code && (!category || l.category === category)), timeoutMs, `a ${code} log entry`);
  const addLimit = async (accountId: string, body: Record<string, unknown>) => {
    const res = await call('POST', `/accounts/${accountId}/riskLimits`, { body });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    // watched from the first look: its reference is recorded then
    await logWith(accountId, 'PERIOD_REFERENCE', 'PROTECTION');
    return res.body.id as string;
  };
  const information = async (accountId: string) => {
    const res = await call('GET', `/accounts/${accountId}/information`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as {
      riskLimitsHit: { riskLimitId: string; level: string; until: string | null; loss: number; positionsClosedAt: string | null }[];
      equity: number;
    };
  };
  const hitsOf = (accountId: string, count: number) =>
    eventually(
      async () => {
        const info = await information(accountId);
        return info.riskLimitsHit.length === count ? info.riskLimitsHit : undefined;
      },
      10_000,
      `${count} risk limit hit(s)`,
    );
  /** The monitor has looked at every account at least `n` times since the call. */
  const ticks = async (n = 1) => {
    for (let i = 0; i < n; i++) await get().service.protection.afterNextTick();
  };
  return { call, open, close, flat, pair, logs, logWith, addLimit, information, hitsOf, ticks };
};

describe('risk limits end to end', function () {
  this.timeout(120_000);
  const clock = movableClock(Date.parse('2026-01-07T10:00:00.000Z'));
  let t: TestService;
  const h = helpers(() => t);
  const moveTo = (iso: string) => clock.advance(Math.max(0, Date.parse(iso) - clock().getTime()));

  before(async () => {
    t = await startTestService({ clock, env: BERLIN });
    await pinQuotes(t, { US500: [5200, 5200] });
  });
  after(() => t?.stop());

  it('lists the risk types, and creates, reads, replaces and deletes a limit with the documented refusals', async () => {
    const types = await h.call('GET', '/types/riskTypes');
    expect(types.status).to.equal(200);
    expect(types.body).to.have.length(12);
    expect(types.body[9]).to.deep.include({ id: 10, name: 'DAILY_SMART_REFERENCE', period: 'DAILY', measure: 'SMART_REFERENCE' });

    const account = await startedAccount(t, 'crud');
    const refused = async (body: Record<string, unknown>, pattern: RegExp) => {
      const res = await h.call('POST', `/accounts/${account}/riskLimits`, { body });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error).to.equal('[VALIDATION_FAILED]');
      expect(res.body.message).to.match(pattern);
    };
    await refused({ riskTypeId: 1 }, /at least one of absoluteRiskLimit, riskLimit and relativeRiskLimit/);
    await refused({ riskTypeId: 13, absoluteRiskLimit: 100 }, /riskTypeId/);
    await refused({ riskTypeId: 1, absoluteRiskLimit: 100, fallbackAbsoluteRiskLimit: 200 }, /only when closeAllOpenPositions is false/);
    await refused({ riskTypeId: 1, riskLimit: 101 }, /riskLimit/);

    const created = await h.call('POST', `/accounts/${account}/riskLimits`, { body: { riskTypeId: 4, riskLimit: 5 } });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    expect(created.body).to.deep.include({
      accountId: account,
      riskTypeId: 4,
      absoluteRiskLimit: 0,
      riskLimit: 5,
      relativeRiskLimit: 0,
      closeAllOpenPositions: true,
      active: true,
      status: 'ARMED',
      hits: [],
    });
    expect(created.body.riskType).to.deep.include({ name: 'DAILY_BALANCE_TO_EQUITY' });
    const id = created.body.id as string;
    expect((await h.call('GET', `/accounts/${account}/riskLimits`)).body.map((l: { id: string }) => l.id)).to.deep.equal([id]);

    // a GET answer sent back as it is, with one change: the read-only members are ignored
    const replaced = await h.call('PUT', `/accounts/${account}/riskLimits/${id}`, {
      body: { ...created.body, closeAllOpenPositions: false, fallbackRiskLimit: 8 },
    });
    expect(replaced.status, JSON.stringify(replaced.body)).to.equal(200);
    expect(replaced.body).to.deep.include({ riskLimit: 5, fallbackRiskLimit: 8, closeAllOpenPositions: false });
    const inactive = await h.call('PUT', `/accounts/${account}/riskLimits/${id}`, { body: { riskTypeId: 4, riskLimit: 5, active: false } });
    expect(inactive.body).to.deep.include({ status: 'INACTIVE', closeAllOpenPositions: true, fallbackRiskLimit: 0 });

    const unknown = crypto.randomUUID();
    for (const [method, path] of [
      ['GET', ''],
      ['PUT', '/reset'],
      ['DELETE', ''],
    ] as const) {
      const res = await h.call(method, `/accounts/${account}/riskLimits/${unknown}${path}`);
      expect(res.status, `${method} ${path}`).to.equal(404);
      expect(res.body.error).to.equal('[RISK_LIMIT_NOT_FOUND]');
    }
    expect((await h.call('GET', `/accounts/${unknown}/riskLimits`)).body.error).to.equal('[ACCOUNT_NOT_FOUND]');
    expect((await h.call('DELETE', `/accounts/${account}/riskLimits/${id}`)).status).to.equal(200);
    expect((await h.call('GET', `/accounts/${account}/riskLimits/${id}`)).status).to.equal(404);
    const audit = (await h.call('GET', `/accounts/${account}/auditLogs`)).body as { action: string; method: string | null; changes: Record<string, unknown> }[];
    const entries = audit.filter((e) => e.action.startsWith('RiskLimit'));
    expect(entries.map((e) => e.action).sort()).to.deep.equal(['RiskLimitCreated', 'RiskLimitDeleted', 'RiskLimitUpdated', 'RiskLimitUpdated']);
    expect(entries.find((e) => e.action === 'RiskLimitCreated')).to.deep.include({ method: 'POST' });
    expect(entries.find((e) => e.action === 'RiskLimitCreated')!.changes).to.deep.include({ riskLimitId: id, riskTypeId: 4, riskLimit: 5 });
  });

  it('not reached it copies on; reached it closes every position and skips new opens with RISK_LIMIT_HIT until a reset, which measures from then', async () => {
    const { master, slave } = await h.pair('close-all');
    const limitId = await h.addLimit(slave, { riskTypeId: 1, absoluteRiskLimit: 300 });
    const first = await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');

    await pinQuotes(t, { US500: [5180, 5180] });
    await h.ticks();
    expect((await h.information(slave)).riskLimitsHit, 'a loss of 200 is below 300').to.deep.equal([]);

    await pinQuotes(t, { US500: [5170, 5170] });
    const [hit] = await h.hitsOf(slave, 1);
    expect(hit).to.deep.include({ riskLimitId: limitId, level: 'LIMIT', loss: 300, until: '2026-01-07T23:00:00.000Z' });
    await bookWhere(t, slave, (b) => b.length === 0, 'every position closed by the hit');
    const triggered = await h.logWith(slave, 'RISK_LIMIT_HIT', 'PROTECTION');
    expect(triggered.message).to.match(/loss 300\.00 USD reached absoluteRiskLimit 300\.00 USD/);
    await h.logWith(slave, 'PROTECTION_POSITIONS_CLOSED', 'PROTECTION');
    expect((await h.hitsOf(slave, 1))[0]!.positionsClosedAt).to.be.a('string');

    await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    const skipped = await h.logWith(slave, 'RISK_LIMIT_HIT', 'COPY');
    expect(skipped.message).to.match(/^Buy 1 US500 \(master #\d+\) not copied: Risk limit DAILY_EQUITY_TO_EQUITY hit/);
    expect(await positionsOf(t, slave)).to.deep.equal([]);
    expect((await h.call('GET', `/accounts/${slave}/riskLimits/${limitId}`)).body.status).to.equal('HIT');

    const reset = await h.call('PUT', `/accounts/${slave}/riskLimits/${limitId}/reset`);
    expect(reset.status, JSON.stringify(reset.body)).to.equal(200);
    expect(reset.body).to.deep.include({ status: 'ARMED', hits: [] });
    const audit = (await h.call('GET', `/accounts/${slave}/auditLogs`)).body as { action: string; method: string | null; changes: Record<string, unknown> }[];
    expect(audit.find((e) => e.action === 'ProtectionReset')).to.deep.include({
      method: 'PUT',
      changes: { ruleId: limitId, ruleKind: 'RISK_LIMIT', reason: 'API' },
    });
    expect((await h.information(slave)).riskLimitsHit).to.deep.equal([]);
    await h.logWith(slave, 'RESET_REFERENCE', 'PROTECTION');
    await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'copying resumed after the reset');
    // 200 lost since the reset: the 300 lost before it no longer count
    await pinQuotes(t, { US500: [5150, 5150] });
    await h.ticks();
    expect((await h.information(slave)).riskLimitsHit).to.deep.equal([]);
    await h.flat(master, slave);
    void first;
  });

  it("with closeAllOpenPositions false keeps positions and follows the master's closes; the fallback closes everything", async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const { master, slave } = await h.pair('fallback');
    await h.addLimit(slave, { riskTypeId: 1, absoluteRiskLimit: 300, fallbackAbsoluteRiskLimit: 600, closeAllOpenPositions: false });
    const a = await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 2, 'two copies');

    await pinQuotes(t, { US500: [5185, 5185] });
    const [hit] = await h.hitsOf(slave, 1);
    expect(hit).to.deep.include({ level: 'LIMIT', loss: 300, positionsClosedAt: null });
    await h.ticks();
    expect(await positionsOf(t, slave), 'kept at the hit').to.have.length(2);

    await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await h.logWith(slave, 'RISK_LIMIT_HIT', 'COPY');
    await h.close(master, a);
    await bookWhere(t, slave, (b) => b.length === 1, "the master's close copied during the hit");

    // realised -150 and -300 floating: 450, below the fallback
    await pinQuotes(t, { US500: [5170, 5170] });
    await h.ticks();
    expect(await positionsOf(t, slave)).to.have.length(1);
    // realised -150 and -450 floating: 600
    await pinQuotes(t, { US500: [5155, 5155] });
    const hits = await h.hitsOf(slave, 2);
    expect(hits.map((x) => x.level)).to.deep.equal(['LIMIT', 'FALLBACK']);
    await bookWhere(t, slave, (b) => b.length === 0, 'everything closed at the fallback');
    expect((await h.logWith(slave, 'RISK_LIMIT_FALLBACK_HIT', 'PROTECTION')).message).to.match(
      /fallback reached: loss 600\.00 USD reached fallbackAbsoluteRiskLimit 600\.00 USD/,
    );
    await h.flat(master);
  });

  it('lifts the hit when the Berlin day ends (23:00 UTC in winter) and copies again', async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const { master, slave } = await h.pair('next-day');
    await h.addLimit(slave, { riskTypeId: 1, absoluteRiskLimit: 300 });
    await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    await pinQuotes(t, { US500: [5160, 5160] });
    await h.hitsOf(slave, 1);
    await bookWhere(t, slave, (b) => b.length === 0, 'closed by the hit');
    await h.flat(master);

    moveTo('2026-01-07T22:59:50.000Z');
    await h.ticks();
    expect((await h.information(slave)).riskLimitsHit, 'still 22:59:50 UTC, 23:59:50 in Berlin').to.have.length(1);
    moveTo('2026-01-07T23:00:05.000Z');
    await h.hitsOf(slave, 0);
    const cleared = await h.logWith(slave, 'PROTECTION_CLEARED', 'PROTECTION');
    expect(cleared.message).to.match(/its period ended/);
    const day = (await h.logs(slave)).find((l) => l.code === 'PERIOD_REFERENCE' && /Day 2026-01-08/.test(l.message));
    expect(day?.message).to.match(/^Day 2026-01-08 began at 2026-01-07T23:00:00\.000Z: risk limits and profit targets measure from balance 9600\.00 USD/);
    await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'copying again in the new day');
    await h.flat(master, slave);
  });

  it('after a restart neither hits the limit again nor lifts it', async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const { master, slave } = await h.pair('restart');
    await h.addLimit(slave, { riskTypeId: 1, absoluteRiskLimit: 300 });
    await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    await pinQuotes(t, { US500: [5170, 5170] });
    await h.hitsOf(slave, 1);
    await h.logWith(slave, 'PROTECTION_POSITIONS_CLOSED', 'PROTECTION');
    await h.flat(master);

    const { databaseUrl, dataDir } = t;
    await t.stop();
    t = await startTestService({ clock, env: BERLIN, databaseUrl, dataDir });
    await h.ticks(3);
    const protectionLogs = (await h.logs(slave)).filter((l) => l.category === 'PROTECTION');
    expect(protectionLogs.filter((l) => l.code === 'RISK_LIMIT_HIT')).to.have.length(1);
    expect(protectionLogs.filter((l) => l.code === 'PROTECTION_POSITIONS_CLOSED')).to.have.length(1);
    expect(await h.hitsOf(slave, 1)).to.have.length(1);
    await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await eventually(
      async () => ((await h.logs(slave)).filter((l) => l.code === 'RISK_LIMIT_HIT' && l.category === 'COPY').length === 1 ? true : undefined),
      10_000,
      'the skip after the restart',
    );
    await h.flat(master);
  });

  it('rebuilds the risk limits, protections and account logs from the events exactly as they are live', async () => {
    const { db, store } = t.service.services;
    const tables = ['risk_limits', 'account_protections', 'account_logs'] as const;
    const snapshot = async () => {
      const out: Record<string, unknown[]> = {};
      for (const table of tables) out[table] = (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} ORDER BY 1, 2`.execute(db)).rows;
      return out;
    };
    const live = await snapshot();
    expect(live.risk_limits!.length).to.be.greaterThan(3);
    expect(live.account_protections!.length).to.be.greaterThan(0);
    for (const name of ['risk_limits', 'protections', 'account_logs'])
      await rebuildProjection(
        db,
        store,
        allProjections.find((p) => p.name === name)!,
      );
    expect(await snapshot()).to.deep.equal(live);
  });

  it('across the daylight-saving change of Sunday 29 March 2026, a hit of the 23-hour Berlin day lasts until 22:00 UTC, not 23:00', async () => {
    moveTo('2026-03-29T10:00:00.000Z');
    await pinQuotes(t, { BTCUSD: [65_000, 65_000] });
    const { master, slave } = await h.pair('dst');
    await h.addLimit(slave, { riskTypeId: 1, absoluteRiskLimit: 300 });
    // 0.1 lot of BTCUSD: 0.10 USD per dollar of price
    await h.open(master, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    await pinQuotes(t, { BTCUSD: [62_000, 62_000] });
    const [hit] = await h.hitsOf(slave, 1);
    expect(hit).to.deep.include({ until: '2026-03-29T22:00:00.000Z' });
    await bookWhere(t, slave, (b) => b.length === 0, 'closed by the hit');
    await h.flat(master);

    moveTo('2026-03-29T21:59:50.000Z');
    await h.ticks();
    expect((await h.information(slave)).riskLimitsHit).to.have.length(1);
    moveTo('2026-03-29T22:00:05.000Z');
    await h.hitsOf(slave, 0);
    await h.open(master, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'copying again on Monday 30 March, Berlin time');
  });
});
