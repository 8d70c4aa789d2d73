// Feature scopes at work, over HTTP against the simulated venue (the reference's scopes on top of the
// spec's): a project's maintenance window pauses copying into every account of the project; a
// project's fallback setting applies to every copier of the project, an account's instead for the
// copiers of that account; a max open positions on an account counts the copies of all its copiers,
// while a copier's own instance applies to that copier instead; a risk per trade on a copier sizes
// that copier's copies only; a keep-alive trade on an account places one trade for the account, an
// approval on a copier holds that copier's opens only. Its own service, so the project holds only these accounts.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../../domain/project/decider.js';
import { startTestService, type TestService } from '../../support/service.js';
import * as trading from '../../support/trading.js';
import { bookWhere, eventually, movableClock, pinQuotes, positionsOf, startedAccount } from '../../support/trading.js';

const QUOTES = { EURUSD: [1.085, 1.0851], GBPUSD: [1.27, 1.27009] } as const;

describe('feature scopes end to end', function () {
  this.timeout(120_000);
  // A Wednesday morning, UTC: forex markets are open.
  const clock = movableClock(Date.parse('2026-01-07T10:00:05.000Z'));
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock });
    await pinQuotes(t, QUOTES);
  });
  after(() => t?.stop());

  const copier = async (master: string, slave: string, body: Record<string, unknown> = {}) => {
    const res = await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master, ...body } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as string;
  };
  const open = (accountId: string, body: Record<string, unknown>) => trading.openPosition(t, accountId, body);
  const project = `/projects/${DEFAULT_PROJECT_ID}`;
  const mode = async (accountId: string, id: string) => {
    const body = (await t.call('GET', `/accounts/${accountId}/copiers/${id}`)).body as { active: boolean; monitorOnly: boolean };
    return { active: body.active, monitorOnly: body.monitorOnly };
  };
  const removeAll = async (owner: string) => {
    for (const f of (await t.call('GET', `${owner}/features`)).body as { id: string }[]) {
      expect((await t.call('DELETE', `${owner}/features/${f.id}`)).status).to.equal(200);
    }
  };

  it("FeatureMaintenanceWindowDTO on a project pauses copying into every account of the project and gives the copiers' modes back at its end", async () => {
    const master = await startedAccount(t, 'window-master');
    const slaveA = await startedAccount(t, 'window-slave-a');
    const slaveB = await startedAccount(t, 'window-slave-b');
    const copierA = await copier(master, slaveA);
    const copierB = await copier(master, slaveB);
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slaveA, (b) => b.length === 1, 'the copy on A');
    await bookWhere(t, slaveB, (b) => b.length === 1, 'the copy on B');

    const startsAt = clock().getTime() + 20_000;
    const endsAt = startsAt + 120_000;
    const added = await t.call('POST', `${project}/features`, {
      body: trading.featureBody({
        type: 'FeatureMaintenanceWindowDTO',
        startTime: new Date(startsAt).toISOString(),
        endTime: new Date(endsAt).toISOString(),
        closeAllPositions: false,
        broker: '.*',
      }),
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    expect(added.body).to.include({ projectId: DEFAULT_PROJECT_ID });
    expect(added.body).not.to.have.property('accountId');
    expect(added.body.setting).to.deep.include({ entryActionsExecuted: false, affectedCopierStates: [], positionsClosedForAccounts: [] });
    const featureId = added.body.id as string;
    const feature = async () => (await t.call('GET', `${project}/features/${featureId}`)).body.setting as Record<string, unknown>;

    clock.advance(startsAt - clock().getTime());
    const entered = await eventually(async () => ((await feature()).entryActionsExecuted === true ? feature() : undefined), 10_000, 'the entry actions');
    expect(entered.affectedCopierStates).to.have.deep.members([
      { copierId: copierA, active: true, monitorOnly: false },
      { copierId: copierB, active: true, monitorOnly: false },
    ]);
    expect(await mode(slaveA, copierA)).to.deep.equal({ active: true, monitorOnly: true });
    expect(await mode(slaveB, copierB)).to.deep.equal({ active: true, monitorOnly: true });
    // Nothing is copied into either account meanwhile; the copies already there stay (closeAllPositions false).
    await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.1 });
    await trading.logWith(t, slaveA, 'MONITOR_ONLY');
    await trading.logWith(t, slaveB, 'MONITOR_ONLY');
    expect(await positionsOf(t, slaveA)).to.have.length(1);
    expect(await positionsOf(t, slaveB)).to.have.length(1);
    expect(((await t.call('GET', `${project}/features`)).body as { id: string }[]).map((f) => f.id)).to.include(featureId);

    clock.advance(endsAt - clock().getTime());
    await eventually(async () => ((await mode(slaveB, copierB)).monitorOnly === false ? true : undefined), 10_000, 'the modes given back');
    expect(await mode(slaveA, copierA)).to.deep.equal({ active: true, monitorOnly: false });
    expect((await t.call('DELETE', `${project}/features/${featureId}`)).status).to.equal(200);
    await open(master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.1 });
    await bookWhere(t, slaveA, (b) => b.length === 2, 'copying again after the window');
  });

  it("FeatureFallbackSettingDTO on a project applies to every copier of the project; an account's own applies instead to its copiers", async () => {
    const master = await startedAccount(t, 'fallback-master');
    const slaveA = await startedAccount(t, 'fallback-slave-a');
    const slaveB = await startedAccount(t, 'fallback-slave-b');
    // 0.05 lots x 0.1 = 0.005, below the minimum lot 0.01: the copier's sizing refuses it.
    await copier(master, slaveA, { multiplier: 0.1, forceMinTrade: false });
    await copier(master, slaveB, { multiplier: 0.1, forceMinTrade: false });
    const projectFallback = await t.call('POST', `${project}/features`, {
      body: trading.featureBody({ type: 'FeatureFallbackSettingDTO', noFallback: true, fallbackLotSize: 0.03 }),
    });
    expect(projectFallback.status, JSON.stringify(projectFallback.body)).to.equal(200);
    await trading.addFeature(t, `/accounts/${slaveB}`, { type: 'FeatureFallbackSettingDTO', fallbackLotSize: 0.02 });
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.05 });
    const [onA] = await bookWhere(t, slaveA, (b) => b.length === 1, 'the project fallback lot on A');
    const [onB] = await bookWhere(t, slaveB, (b) => b.length === 1, 'the account fallback lot on B');
    expect(onA!.volume).to.equal(0.03);
    expect(onB!.volume).to.equal(0.02);
    // A second one on the project is refused; the project's is removed again for the next specs.
    const second = await t.call('POST', `${project}/features`, { body: trading.featureBody({ type: 'FeatureFallbackSettingDTO' }) });
    expect([second.status, second.body.error]).to.deep.equal([409, '[FEATURE_ALREADY_EXISTS]']);
    expect((await t.call('DELETE', `${project}/features/${projectFallback.body.id}`)).status).to.equal(200);
  });

  it('FeatureMaxOpenPositionsDTO on an account counts the copies of all its copiers; a copier with its own instance follows that one', async () => {
    const masterA = await startedAccount(t, 'max-master-a');
    const masterB = await startedAccount(t, 'max-master-b');
    const masterC = await startedAccount(t, 'max-master-c');
    const slave = await startedAccount(t, 'max-slave');
    await copier(masterA, slave);
    const copierB = await copier(masterB, slave);
    const copierC = await copier(masterC, slave);
    await trading.addFeature(t, `/accounts/${slave}`, { type: 'FeatureMaxOpenPositionsDTO', maxOpenPositions: 2 });
    await trading.addFeature(t, `/accounts/${slave}/copiers/${copierC}`, { type: 'FeatureMaxOpenPositionsDTO', maxOpenPositions: 5 });
    await open(masterA, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the first copy');
    await open(masterB, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 2, 'the second copy');
    // The account holds 2 copies (one per copier): the account's limit refuses copier B's next.
    await open(masterB, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.1 });
    const skipped = await trading.logWith(t, slave, 'MAX_OPEN_POSITIONS_REACHED');
    expect(skipped.text).to.match(/2 copies of this account are open, the most allowed is 2/);
    expect(skipped).to.include({ copierId: copierB });
    // Copier C follows its own limit (5), counted over its own copies.
    await open(masterC, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 3, "copier C's copy");
  });

  it('FeatureRiskPerTradeDTO on a copier sizes that copier’s copies only', async () => {
    const master = await startedAccount(t, 'risk-master');
    const slave = await startedAccount(t, 'risk-slave');
    const other = await startedAccount(t, 'risk-other');
    const sized = await copier(master, slave);
    await copier(master, other);
    await trading.addFeature(t, `/accounts/${slave}/copiers/${sized}`, {
      type: 'FeatureRiskPerTradeDTO',
      relativeRisk: 1,
      correctLotSizeBasedOnTheStopLoss: true,
      autoCloseOnRiskThresholdReached: false,
    });
    // Bought at the ask 1.0851, stop loss 500 points below: 1 % of 10,000 = 100 USD over 500 USD a lot.
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 1, stopLoss: 1.0801 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the sized copy');
    expect(copy).to.deep.include({ symbol: 'EURUSD', volume: 0.2 });
    const [unsized] = await bookWhere(t, other, (b) => b.length === 1, "the other copier's copy");
    expect(unsized!.volume).to.equal(1);
  });

  it('FeatureKeepAliveTradeDTO on an account (the reference) places one trade per firing for the account, however many copiers it has', async () => {
    const masterA = await startedAccount(t, 'keep-alive-master-a');
    const masterB = await startedAccount(t, 'keep-alive-master-b');
    const slave = await startedAccount(t, 'keep-alive-slave');
    await copier(masterA, slave);
    await copier(masterB, slave);
    const added = await t.call('POST', `/accounts/${slave}/features`, {
      body: trading.featureBody({
        type: 'FeatureKeepAliveTradeDTO',
        symbol: 'EURUSD',
        volume: 0.02,
        cronExpressions: ['0 * * ? * *'],
        closeAfterInSeconds: 3600,
      }),
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    const minute = Math.ceil((clock().getTime() + 5000) / 60_000) * 60_000;
    clock.advance(minute + 1000 - clock().getTime());
    const [placed] = await bookWhere(t, slave, (b) => b.length === 1, 'the keep-alive trade', 10_000);
    expect(placed).to.deep.include({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.02 });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(
      (await positionsOf(t, slave)).map((p) => p.id),
      'one trade, not one per copier',
    ).to.deep.equal([placed!.id]);
    const due = (await trading.logsOf(t, slave)).filter((l) => l.text.startsWith('Keep-alive trade due'));
    expect(due).to.have.length(1);
    await removeAll(`/accounts/${slave}`);
    expect((await t.call('POST', `/accounts/${slave}/actions/closeAllPositions`)).status).to.equal(204);
  });

  it("FeatureApprovalDTO on a copier (the reference) holds that copier's opens only; the account's other copier copies at once", async () => {
    const masterA = await startedAccount(t, 'approval-master-a');
    const masterB = await startedAccount(t, 'approval-master-b');
    const slave = await startedAccount(t, 'approval-slave');
    const asking = await copier(masterA, slave);
    await copier(masterB, slave);
    const added = await t.call('POST', `/accounts/${slave}/copiers/${asking}/features`, {
      body: trading.featureBody({ type: 'FeatureApprovalDTO', expirySeconds: 600 }),
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    const held = await open(masterA, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.3 });
    await open(masterB, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.2 });
    const [copied] = await bookWhere(t, slave, (b) => b.length === 1, "the other copier's copy, at once");
    expect(copied).to.deep.include({ symbol: 'GBPUSD', volume: 0.2 });
    const waiting = await eventually(
      async () => {
        const res = await t.call('GET', `/accounts/${slave}/approvals`);
        return (res.body as unknown[]).length === 1 ? (res.body as { masterPositionId: string; masterAccountId: string }[]) : undefined;
      },
      8000,
      'one waiting approval',
    );
    expect(waiting[0]).to.deep.include({ masterPositionId: held, masterAccountId: masterA });
    expect(((await t.call('GET', `/accounts/${slave}/information`)).body as { pendingApprovals: unknown[] }).pendingApprovals).to.have.length(1);
    expect((await t.call('POST', `/accounts/${slave}/approvals`, { body: { accountFromId: masterA, ticket: Number(held) } })).status).to.equal(204);
    const book = await bookWhere(t, slave, (b) => b.length === 2, 'the approved copy');
    expect(book.map((p) => p.symbol).sort()).to.deep.equal(['EURUSD', 'GBPUSD']);
    await removeAll(`/accounts/${slave}/copiers/${asking}`);
    for (const id of [masterA, masterB, slave]) expect((await t.call('POST', `/accounts/${id}/actions/closeAllPositions`)).status).to.equal(204);
  });

  it('takes each scope the reference or the spec names and refuses the others with 400 [FEATURE_SCOPE_NOT_ALLOWED]', async () => {
    const master = await startedAccount(t, 'scope-master');
    const slave = await startedAccount(t, 'scope-slave');
    const copierId = await copier(master, slave);
    const onCopier = `/accounts/${slave}/copiers/${copierId}`;
    for (const [owner, type] of [
      [`/accounts/${slave}`, 'FeatureBreakEvenDTO'],
      [`/accounts/${slave}`, 'FeatureTrailingStopDTO'],
      [onCopier, 'FeatureFallbackSettingDTO'],
      [`/accounts/${slave}`, 'FeatureMaintenanceWindowDTO'],
    ] as const) {
      const setting =
        type === 'FeatureMaintenanceWindowDTO'
          ? { type, startTime: '2027-01-01T02:00:00Z', endTime: '2027-01-01T06:00:00Z' }
          : type === 'FeatureBreakEvenDTO'
            ? { type, triggerInPoints: 100 }
            : { type };
      const res = await t.call('POST', `${owner}/features`, { body: trading.featureBody(setting) });
      expect(res.status, `${type} on ${owner}: ${JSON.stringify(res.body)}`).to.equal(200);
    }
    for (const [owner, type] of [
      [project, 'FeatureMaxOpenPositionsDTO'],
      [project, 'FeatureRiskPerTradeDTO'],
      [`/accounts/${slave}`, 'FeatureCopierFilterDTO'],
      [onCopier, 'FeatureMaintenanceWindowDTO'],
    ] as const) {
      const res = await t.call('POST', `${owner}/features`, { body: trading.featureBody({ type }) });
      expect([res.status, res.body.error], `${type} on ${owner}`).to.deep.equal([400, '[FEATURE_SCOPE_NOT_ALLOWED]']);
    }
    await removeAll(`/accounts/${slave}`);
    await removeAll(onCopier);
  });
});
