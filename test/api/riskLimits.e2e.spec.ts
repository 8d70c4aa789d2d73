// Risk limits end to end (spec "RiskLimitDTO"; issue 5): over HTTP against the simulated venue, prices
// pinned by the spec so every loss is known: US500 has no spread (bid = ask), no commission and
// 10 USD per point and lot, so a slave holding 1 lot loses 10 USD per point. TIME_ZONE is
// Europe/Berlin: the day begins at 23:00 UTC in winter and at 22:00 UTC in summer.
import { expect } from 'chai';
import { sql } from 'kysely';
import { allProjections } from '../../projections/all.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { referenceExample } from '../support/reference.js';
import { startTestService, type TestService } from '../support/service.js';
import { bookWhere, eventually, movableClock, pinQuotes, positionRequest, positionsOf, startedAccount } from '../support/trading.js';

interface LogEntry {
  readonly text: string;
  readonly code: string | null;
  readonly category: string;
  readonly logTypeId: number;
}

const BERLIN = { TIME_ZONE: 'Europe/Berlin' };
/** A daily equity-to-equity limit (risk type 5) of a 300 USD loss that acts at once, in the reference's shape. */
const LOSS_300 = { riskType: { id: 5 }, riskLimit: 0, absoluteRiskLimit: 300, fulfillSeconds: 0 };

/** What every spec of this file does with a service: pairs, limits, logs, the monitor's ticks. */
const helpers = (get: () => TestService) => {
  const call: TestService['call'] = (...args) => get().call(...args);
  /** Made flat after each spec, so a failed one leaves no position to slow the venue's catching up with the clock. */
  const created: string[] = [];
  afterEach(async () => {
    for (const id of created.splice(0)) await call('POST', `/accounts/${id}/actions/closeAllPositions`).catch(() => undefined);
  });
  const open = async (accountId: string, body: Record<string, unknown>) => {
    const res = await call('POST', `/accounts/${accountId}/positions`, { body: positionRequest(body) });
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
      riskLimitsStatus: { riskLimitId: string; limitIsHit: boolean; referenceBalance?: number; balanceLastUpdate?: string }[];
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
    expect(types.body).to.have.length(13);
    expect(types.body.slice(0, 10).map((x: { id: number; name: string }) => `${x.id} ${x.name}`)).to.deep.equal([
      '1 Daily',
      '2 Weekly',
      '3 Monthly',
      '4 Actual',
      '5 Equity-equity daily',
      '6 Equity-equity weekly',
      '7 Equity-equity monthly',
      '8 Smart reference daily',
      '9 Smart reference weekly',
      '10 Smart reference monthly',
    ]);
    expect(types.body[7]).to.deep.include({ id: 8, code: 'DAILY_SMART_REFERENCE', period: 'DAILY', measure: 'SMART_REFERENCE' });

    const account = await startedAccount(t, 'crud');
    const refused = async (body: Record<string, unknown>, pattern: RegExp) => {
      const res = await h.call('POST', `/accounts/${account}/riskLimits`, { body });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error).to.equal('[VALIDATION_FAILED]');
      expect(res.body.message).to.match(pattern);
    };
    await refused({ riskType: { id: 14 }, riskLimit: 0.05 }, /riskType\.id: no risk type 14/);
    await refused({ riskType: { id: 1 }, riskLimit: 5 }, /riskLimit/);
    await refused(
      { riskType: { id: 1 }, riskLimit: 0.05, closeAllOpenPositions: false, fallbackRiskLimit: 0.04 },
      /fallbackRiskLimit \(0\.04\) must be above riskLimit/,
    );
    const noCopier = await h.call('POST', `/accounts/${account}/riskLimits`, { body: { riskType: { id: 1 }, riskLimit: 0.05, copierId: crypto.randomUUID() } });
    expect([noCopier.status, noCopier.body.error]).to.deep.equal([404, '[COPIER_NOT_FOUND]']);
    await refused({ riskType: { id: 1 }, riskLimit: 0.05, accountId: crypto.randomUUID() }, /accountId/);
    await refused({ riskType: { id: 1 }, riskLimit: 0.05, resetTime: 'noon' }, /resetTime/);
    await refused({ riskTypeId: 1, riskLimit: 0.05 }, /riskTypeId|riskType/);

    const created = await h.call('POST', `/accounts/${account}/riskLimits`, { body: { riskType: { id: 1 }, riskLimit: 0.05, accountId: account } });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    expect(created.body).to.deep.include({
      accountId: account,
      absoluteRiskLimit: 0,
      riskLimit: 0.05,
      relativeRiskLimit: 0,
      closeAllOpenPositions: true,
      active: true,
      fulfillSeconds: 60,
      status: 'ARMED',
      hits: [],
    });
    expect(created.body).not.to.have.property('resetTime');
    expect(created.body).not.to.have.property('riskTypeId');
    expect(created.body.riskType).to.deep.include({ id: 1, name: 'Daily', code: 'DAILY_BALANCE_TO_EQUITY' });
    const id = created.body.id as string;
    expect((await h.call('GET', `/accounts/${account}/riskLimits`)).body.map((l: { id: string }) => l.id)).to.deep.equal([id]);

    // a GET answer sent back as it is, with one change: the read-only members are ignored
    const replaced = await h.call('PUT', `/accounts/${account}/riskLimits/${id}`, {
      body: { ...created.body, closeAllOpenPositions: false, fallbackRiskLimit: 0.08, resetTime: '2023-12-30 22:00:00+00:00' },
    });
    expect(replaced.status, JSON.stringify(replaced.body)).to.equal(200);
    expect(replaced.body).to.deep.include({ riskLimit: 0.05, fallbackRiskLimit: 0.08, closeAllOpenPositions: false, resetTime: '2023-12-30T22:00:00.000Z' });
    const inactive = await h.call('PUT', `/accounts/${account}/riskLimits/${id}`, { body: { riskType: { id: 1 }, riskLimit: 0.05, active: false } });
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
    expect(entries.find((e) => e.action === 'RiskLimitCreated')!.changes).to.deep.include({ riskLimitId: id, riskTypeId: 1, riskLimit: 0.05 });
  });

  it('not reached it copies on; reached it closes every position and skips new opens with RISK_LIMIT_HIT until a reset, which measures from then', async () => {
    const { master, slave } = await h.pair('close-all');
    const limitId = await h.addLimit(slave, LOSS_300);
    const first = await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');

    await pinQuotes(t, { US500: [5180, 5180] });
    await h.ticks();
    expect((await h.information(slave)).riskLimitsHit, 'a loss of 200 is below 300').to.deep.equal([]);
    const [armed] = (await h.information(slave)).riskLimitsStatus;
    expect(armed).to.deep.include({ riskLimitId: limitId, limitIsHit: false, referenceBalance: 10_000 });

    await pinQuotes(t, { US500: [5170, 5170] });
    const [hit] = await h.hitsOf(slave, 1);
    expect(hit).to.deep.include({ riskLimitId: limitId, level: 'LIMIT', loss: 300, until: '2026-01-07T23:00:00.000Z' });
    expect((await h.information(slave)).riskLimitsStatus).to.deep.equal([{ ...armed, limitIsHit: true }]);
    await bookWhere(t, slave, (b) => b.length === 0, 'every position closed by the hit');
    const triggered = await h.logWith(slave, 'RISK_LIMIT_HIT', 'PROTECTION');
    expect(triggered.text).to.match(/loss 300\.00 USD reached absoluteRiskLimit 300\.00 USD/);
    await h.logWith(slave, 'PROTECTION_POSITIONS_CLOSED', 'PROTECTION');
    expect((await h.hitsOf(slave, 1))[0]!.positionsClosedAt).to.be.a('string');

    await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    const skipped = await h.logWith(slave, 'RISK_LIMIT_HIT', 'COPY');
    expect(skipped.text).to.match(/^Buy 1 US500 \(master #\d+\) not copied: Risk limit DAILY_EQUITY_TO_EQUITY hit/);
    // Nor through the Trading API: refused with the hit's code, nothing placed.
    const refused = await h.call('POST', `/accounts/${slave}/positions`, { body: positionRequest({ symbol: 'US500', orderType: 'Buy', volume: 0.1 }) });
    expect([refused.status, refused.body.error]).to.deep.equal([409, '[RISK_LIMIT_HIT]']);
    expect(await positionsOf(t, slave)).to.deep.equal([]);
    expect((await h.call('GET', `/accounts/${slave}/riskLimits/${limitId}`)).body.status).to.equal('HIT');

    const reset = await h.call('PUT', `/accounts/${slave}/riskLimits/${limitId}/reset`);
    expect(reset.status, JSON.stringify(reset.body)).to.equal(200);
    expect(reset.body, 'no body, as the reference').to.equal(undefined);
    expect((await h.call('GET', `/accounts/${slave}/riskLimits/${limitId}`)).body).to.deep.include({ status: 'ARMED', hits: [] });
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

  it("a copier's limit (copierId) measures the account but stops and closes only that copier's copies", async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const { master, slave } = await h.pair('copier-scoped');
    const other = await startedAccount(t, 'copier-scoped-other-master');
    const copierOf = async (from: string) =>
      ((await h.call('GET', `/accounts/${slave}/copiers`)).body as { id: string; fromAccountId: string }[]).find((c) => c.fromAccountId === from)!.id;
    expect((await h.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: other } })).status).to.equal(200);
    const scoped = await copierOf(master);
    const limitId = await h.addLimit(slave, { ...LOSS_300, copierId: scoped });
    const limit = (await h.call('GET', `/accounts/${slave}/riskLimits/${limitId}`)).body;
    expect(limit).to.deep.include({ copierId: scoped, accountId: slave });
    // read-only after creation: the same id (or none) is accepted, another is refused
    expect((await h.call('PUT', `/accounts/${slave}/riskLimits/${limitId}`, { body: { ...LOSS_300, copierId: scoped } })).status).to.equal(200);
    const moved = await h.call('PUT', `/accounts/${slave}/riskLimits/${limitId}`, { body: { ...LOSS_300, copierId: await copierOf(other) } });
    expect([moved.status, moved.body.error]).to.deep.equal([400, '[VALIDATION_FAILED]']);
    expect((await h.call('PUT', `/accounts/${slave}/riskLimits/${limitId}`, { body: LOSS_300 })).body.copierId).to.equal(scoped);

    await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    const [ofScoped] = await bookWhere(t, slave, (b) => b.length === 1, "the scoped copier's copy");
    await h.open(other, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    const kept = (await bookWhere(t, slave, (b) => b.length === 2, 'one copy of each master')).find((p) => p.id !== ofScoped!.id);
    // 2 lots lose 20 USD a point: 15 points is 300 USD on the account
    await pinQuotes(t, { US500: [5185, 5185] });
    const [hit] = await h.hitsOf(slave, 1);
    expect(hit).to.deep.include({ riskLimitId: limitId, loss: 300 });
    const triggered = await h.logWith(slave, 'RISK_LIMIT_HIT', 'PROTECTION');
    expect(triggered.text).to.match(new RegExp(`of copier ${scoped}.*New copies of copier ${scoped} to this account stop`));
    const left = await bookWhere(t, slave, (b) => b.length === 1, "only the scoped copier's copy closed");
    expect(left[0]!.id).to.equal(kept!.id);
    await h.logWith(slave, 'PROTECTION_POSITIONS_CLOSED', 'PROTECTION');

    await h.open(master, { symbol: 'US500', orderType: 'Sell', volume: 1 });
    const skipped = await h.logWith(slave, 'RISK_LIMIT_HIT', 'COPY');
    expect(skipped.text).to.match(/not copied: Risk limit DAILY_EQUITY_TO_EQUITY of copier/);
    await h.open(other, { symbol: 'US500', orderType: 'Sell', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 2, 'the other copier copies on');
    // A copier's limit does not lock the account: the Trading API opens on it.
    await h.open(slave, { symbol: 'US500', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 3, 'opened through the Trading API');
    await h.flat(master, other, slave);
  });

  it("with closeAllOpenPositions false keeps positions and follows the master's closes; the fallback closes everything", async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const { master, slave } = await h.pair('fallback');
    await h.addLimit(slave, { ...LOSS_300, fallbackAbsoluteRiskLimit: 600, closeAllOpenPositions: false });
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
    expect((await h.logWith(slave, 'RISK_LIMIT_FALLBACK_HIT', 'PROTECTION')).text).to.match(
      /fallback reached: loss 600\.00 USD reached fallbackAbsoluteRiskLimit 600\.00 USD/,
    );
    await h.flat(master);
  });

  it('lifts the hit when the Berlin day ends (23:00 UTC in winter) and copies again', async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const { master, slave } = await h.pair('next-day');
    await h.addLimit(slave, LOSS_300);
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
    expect(cleared.text).to.match(/its period ended/);
    const day = (await h.logs(slave)).find((l) => l.code === 'PERIOD_REFERENCE' && /Day 2026-01-08/.test(l.text));
    expect(day?.text).to.match(/^Day 2026-01-08 began at 2026-01-07T23:00:00\.000Z: risk limits and profit targets measure from balance 9600\.00 USD/);
    await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'copying again in the new day');
    await h.flat(master, slave);
  });

  it("a reference client's limit (the reference's example values, riskLimit 0.05) acts at a 5 % loss and not before, once it held fulfillSeconds 5", async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const { master, slave } = await h.pair('reference-example');
    const example = referenceExample('RiskLimitDTO') as Record<string, unknown>;
    expect(example).to.deep.include({ fulfillSeconds: 5, closeAllOpenPositions: true, riskType: { name: 'name', id: 9 } });
    // As the example, but for the limit under test: a 5 % loss. Its absoluteRiskLimit (0.08 USD) would act at once,
    // its copierId and accountId name no copier or account of ours; its fallbacks are ignored (closeAllOpenPositions true).
    const body: Record<string, unknown> = { ...example, accountId: slave, riskLimit: 0.05, absoluteRiskLimit: 0 };
    delete body.copierId;
    const limitId = await h.addLimit(slave, body);
    const limit = (await h.call('GET', `/accounts/${slave}/riskLimits/${limitId}`)).body;
    expect(limit).to.deep.include({
      riskLimit: 0.05,
      fulfillSeconds: 5,
      fallbackRiskLimit: example.fallbackRiskLimit,
      relativeRiskLimit: example.relativeRiskLimit,
    });
    expect(limit.riskType).to.deep.include({ id: 9, name: 'Smart reference weekly' });

    await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    // 10,000 USD at the reference; 1 lot of US500 (one decimal) loses 10 USD a point: 5150.1 is a loss of 499 (4.99 %).
    await pinQuotes(t, { US500: [5150.1, 5150.1] });
    await h.ticks(2);
    clock.advance(10_000);
    await h.ticks(2);
    expect((await h.information(slave)).riskLimitsHit, 'below 5 %').to.deep.equal([]);
    expect((await h.logs(slave)).filter((l) => l.code === 'RISK_LIMIT_REACHED')).to.deep.equal([]);

    await pinQuotes(t, { US500: [5150, 5150] });
    const reached = await h.logWith(slave, 'RISK_LIMIT_REACHED', 'PROTECTION');
    expect(reached.text).to.match(/loss 500\.00 USD \(5 % of the reference\) reached riskLimit 0\.05 \(5 %\); it acts if it still holds 5 s from now/);
    await h.ticks(2);
    expect((await h.information(slave)).riskLimitsHit, 'reached, not yet held 5 s').to.deep.equal([]);
    expect(await positionsOf(t, slave)).to.have.length(1);
    clock.advance(5_000);
    const [hit] = await h.hitsOf(slave, 1);
    expect(hit).to.deep.include({ riskLimitId: limitId, level: 'LIMIT', loss: 500, threshold: 0.05, thresholdMember: 'riskLimit' });
    await bookWhere(t, slave, (b) => b.length === 0, 'every position closed by the hit');
    await h.flat(master);
  });

  it('a limit whose members are all 0 is deactivated: it never acts, whatever the loss', async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const { master, slave } = await h.pair('zero');
    const limitId = await h.addLimit(slave, { riskType: { id: 1 }, riskLimit: 0, fulfillSeconds: 0 });
    expect((await h.call('GET', `/accounts/${slave}/riskLimits/${limitId}`)).body).to.deep.include({ riskLimit: 0, absoluteRiskLimit: 0, status: 'ARMED' });
    await h.open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    await pinQuotes(t, { US500: [5000, 5000] });
    await h.ticks(3);
    expect((await h.information(slave)).riskLimitsHit, 'a 20 % loss').to.deep.equal([]);
    expect(await positionsOf(t, slave)).to.have.length(1);
    await h.flat(master, slave);
  });

  it('after a restart neither hits the limit again nor lifts it', async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const { master, slave } = await h.pair('restart');
    await h.addLimit(slave, LOSS_300);
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
    await h.addLimit(slave, LOSS_300);
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

describe('risk limits end to end: a close the broker refuses', function () {
  this.timeout(120_000);
  // Friday 9 January 2026, 21:00 UTC: US500 trades until 22:00 UTC, then the market closes for the weekend.
  const clock = movableClock(Date.parse('2026-01-09T21:00:00.000Z'));
  let t: TestService;
  const h = helpers(() => t);

  before(async () => {
    t = await startTestService({ clock, env: BERLIN });
    await pinQuotes(t, { US500: [5200, 5200] });
  });
  after(() => t?.stop());

  it("reaches the account log as the broker's refusal (ProtectionCloseFailed), once, while the limit keeps the account stopped", async () => {
    const slave = await startedAccount(t, 'refused-close');
    const positionId = await h.open(slave, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    // Saturday: the market is closed, and the price the position is valued at is 40 points lower.
    clock.advance(Date.parse('2026-01-10T10:00:00.000Z') - clock().getTime());
    await pinQuotes(t, { US500: [5160, 5160] });
    // Actual (4): the floating loss of 400 against the balance now reaches 300 at the first look.
    await h.addLimit(slave, { riskType: { id: 4 }, riskLimit: 0, absoluteRiskLimit: 300, fulfillSeconds: 0 });
    await h.hitsOf(slave, 1);
    await h.logWith(slave, 'RISK_LIMIT_HIT', 'PROTECTION');
    const refused = await h.logWith(slave, '[MARKET_CLOSED]', 'PROTECTION');
    expect(refused.logTypeId, 'an error').to.equal(1);
    expect(refused.text).to.match(new RegExp(`^Protection [0-9a-f-]{36} could not close #${positionId}: US500 is closed at .*; trying again every second$`));
    // Tried again every tick, logged once; the position is still there, the limit still stops the account.
    await h.ticks(3);
    expect((await h.logs(slave)).filter((l) => l.code === '[MARKET_CLOSED]' && l.category === 'PROTECTION')).to.have.length(1);
    expect((await positionsOf(t, slave)).map((p) => p.id)).to.deep.equal([positionId]);
    expect((await h.information(slave)).riskLimitsHit[0]!.positionsClosedAt).to.equal(null);
  });
});
