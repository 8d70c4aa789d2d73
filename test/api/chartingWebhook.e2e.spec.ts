// The inbound charting webhook end to end (issue 22, spec FeatureChartingWebhookDTO and the charting data
// operations), over real HTTP: the feature issues a secret address; an alert posted there opens a trade
// on a master that the copy engine copies to its slave; a refused alert leaves its reason; a retry
// succeeds once the market opens; rotation, the rate limit and the size limit; the data routes and
// project isolation.
import { expect } from 'chai';
import { createOtherProject, startTestService, type TestService } from '../support/service.js';
import { bookWhere, copyPair, eventually, featureBody, movableClock, pinQuotes, positionsOf, startedAccount } from '../support/trading.js';

const OTHER_PROJECT = '66666666-6666-4666-8666-666666666666';
const OTHER_KEY = 'charting-other-project-key-0123456789';

/** Attaches a FeatureChartingWebhookDTO to the account; answers the feature as answered. */
const chartingWebhook = async (t: TestService, accountId: string, members: Record<string, unknown> = {}) => {
  const res = await t.call('POST', `/accounts/${accountId}/features`, { body: featureBody({ type: 'FeatureChartingWebhookDTO', ...members }) });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body as { id: string; setting: { webhookId: string; webhookUrl: string; rotateWebhookId: boolean; maxAllowedVolume: number } };
};

/** POSTs an alert to a webhook address without an API key. */
const alert = (t: TestService, webhookId: string, body: string, contentType = 'text/plain') =>
  t.call('POST', `/webhooks/charting/${webhookId}`, { rawBody: body, key: null, headers: { 'content-type': contentType } });

describe('charting webhook (issue 22)', function () {
  this.timeout(120_000);
  // Sunday 21:30 UTC: forex opens at 22:00, bitcoin trades.
  const clock = movableClock(Date.parse('2026-01-11T21:30:00.000Z'));
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock, openRetryIntervalMs: 200 });
    await createOtherProject(t, OTHER_PROJECT, OTHER_KEY);
    await pinQuotes(t, { BTCUSD: [42000, 42010] });
  });
  after(async () => {
    await t?.stop();
  });

  it('issues a long random address when added, answers it, and rotates it with a PUT', async () => {
    const account = await startedAccount(t, 'cw-rotate');
    const feature = await chartingWebhook(t, account);
    expect(feature.setting.webhookId).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(feature.setting.webhookUrl).to.equal(`/rest/api/v1/webhooks/charting/${feature.setting.webhookId}`);
    expect(feature.setting).to.include({ maxAllowedVolume: 0, openRetry: true, openRetryTimeoutInMinutes: 5, rotateWebhookId: false });
    const again = await t.call('GET', `/accounts/${account}/features/${feature.id}`);
    expect(again.body.setting.webhookId).to.equal(feature.setting.webhookId);
    // A PUT without rotateWebhookId keeps the address; a value sent for webhookId is ignored.
    const kept = await t.call('PUT', `/accounts/${account}/features/${feature.id}`, {
      body: featureBody({ type: 'FeatureChartingWebhookDTO', maxAllowedVolume: 1, webhookId: 'mine' }),
    });
    expect(kept.body.setting).to.include({ webhookId: feature.setting.webhookId, maxAllowedVolume: 1 });
    const rotated = await t.call('PUT', `/accounts/${account}/features/${feature.id}`, {
      body: featureBody({ type: 'FeatureChartingWebhookDTO', rotateWebhookId: true }),
    });
    expect(rotated.status).to.equal(200);
    expect(rotated.body.setting.webhookId)
      .to.match(/^[A-Za-z0-9_-]{43}$/)
      .and.not.equal(feature.setting.webhookId);
    expect(rotated.body.setting.rotateWebhookId).to.equal(false);
    const old = await alert(t, feature.setting.webhookId, 'buy BTCUSD 0.01');
    expect(old.status).to.equal(404);
    expect(old.body.error).to.equal('[WEBHOOK_NOT_FOUND]');
    expect(await positionsOf(t, account)).to.have.length(0);
    // The audit log shows only the first characters of the secret.
    const audit = await t.call('GET', `/accounts/${account}/auditLogs`);
    expect(JSON.stringify(audit.body)).to.not.include(rotated.body.setting.webhookId).and.not.include(feature.setting.webhookId);
  });

  it('refuses bad settings and a second webhook on the account', async () => {
    const account = await startedAccount(t, 'cw-settings');
    for (const setting of [{ openRetryTimeoutInMinutes: 0 }, { openRetryTimeoutInMinutes: 61 }, { maxAllowedVolume: -1 }, { rateLimitPerMinute: 0 }]) {
      const res = await t.call('POST', `/accounts/${account}/features`, { body: featureBody({ type: 'FeatureChartingWebhookDTO', ...setting }) });
      expect(res.status, JSON.stringify(setting)).to.equal(400);
    }
    await chartingWebhook(t, account, { maxAllowedVolume: null });
    const second = await t.call('POST', `/accounts/${account}/features`, { body: featureBody({ type: 'FeatureChartingWebhookDTO' }) });
    expect(second.status).to.equal(409);
  });

  it("an alert opens a trade on a master, and the copy engine copies it to the master's slave", async () => {
    const { master, slave } = await copyPair(t, 'cw-copy');
    const { setting } = await chartingWebhook(t, master);
    const res = await alert(t, setting.webhookId, '{"ticker":"BTCUSD","action":"buy","contracts":"0.02","comment":"tv strategy"}', 'application/json');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ status: 'COMPLETED', format: 'JSON', attempts: 1 });
    expect(res.body.outcomes).to.have.length(1);
    expect(res.body.outcomes[0]).to.include({ kind: 'OPENED', leg: 1, volume: 0.02 });
    const [opened] = await positionsOf(t, master);
    expect(opened).to.include({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.02, comment: 'tv strategy' });
    expect(res.body.outcomes[0].positionId).to.equal(opened!.id);
    await bookWhere(t, slave, (book) => book.some((p) => p.symbol === 'BTCUSD' && p.volume === 0.02), 'the copy on the slave', 15_000);
    // "close" closes it, and the slave's copy follows.
    const closed = await alert(t, setting.webhookId, 'close BTCUSD');
    expect(closed.status).to.equal(200);
    expect(closed.body.outcomes[0]).to.include({ kind: 'CLOSED', positionId: opened!.id });
    expect(await positionsOf(t, master)).to.have.length(0);
    await bookWhere(t, slave, (book) => book.length === 0, 'the copy closed on the slave', 15_000);
  });

  it('opens one position per take profit, each capped by maxAllowedVolume', async () => {
    const account = await startedAccount(t, 'cw-legs');
    const { setting } = await chartingWebhook(t, account, { maxAllowedVolume: 0.03 });
    const res = await alert(t, setting.webhookId, 'buy BTCUSD 0.1 sl=41000 tp=43000/44000');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const book = await positionsOf(t, account);
    expect(book.map((p) => [p.volume, p.stopLoss, p.takeProfit]).sort()).to.deep.equal([
      [0.03, 41000, 43000],
      [0.03, 41000, 44000],
    ]);
    // "modify" moves the stop loss of both legs.
    const modified = await alert(t, setting.webhookId, 'modify BTCUSD sl=41500');
    expect(modified.status, JSON.stringify(modified.body)).to.equal(200);
    expect(modified.body.outcomes.map((o: { kind: string }) => o.kind)).to.deep.equal(['MODIFIED', 'MODIFIED']);
    expect((await positionsOf(t, account)).map((p) => p.stopLoss)).to.deep.equal([41500, 41500]);
  });

  it('places a pending order, and close cancels it', async () => {
    const account = await startedAccount(t, 'cw-pending');
    const { setting } = await chartingWebhook(t, account);
    const placed = await alert(t, setting.webhookId, 'buy limit BTCUSD 0.01 @40000 sl=39000');
    expect(placed.status, JSON.stringify(placed.body)).to.equal(200);
    expect(placed.body.outcomes[0]).to.include({ kind: 'PLACED', volume: 0.01 });
    const [order] = await positionsOf(t, account);
    expect(order).to.include({ id: placed.body.outcomes[0].positionId, orderType: 'BuyLimit', openPrice: 40000, stopLoss: 39000 });
    const cancelled = await alert(t, setting.webhookId, 'flat BTCUSD');
    expect(cancelled.body.outcomes[0]).to.include({ kind: 'CLOSED', positionId: order!.id });
    expect(await positionsOf(t, account)).to.have.length(0);
  });

  it('a refused alert trades nothing and leaves its reason in the charting data', async () => {
    const account = await startedAccount(t, 'cw-refused');
    const { setting } = await chartingWebhook(t, account);
    const cases: [string, string, string][] = [
      ['buy BTCUSD 0.01 sl=50000', '[ALERT_REFUSED]', 'the stop loss 50000 is not below the entry'],
      ['buy BTCUSD -5', '[ALERT_UNREADABLE]', 'must be more than 0'],
      ['{"symbol":"BTCUSD","side":"buy","volume":1e308}', '[ALERT_UNREADABLE]', 'out of range'],
      ['buy NOSUCHSYMBOL 0.1', '[SYMBOL_NOT_FOUND]', 'unknown symbol NOSUCHSYMBOL'],
      ['buy BTCUSD risk=1% sl=41000', '[ALERT_REFUSED]', 'FeatureRiskPerTradeDTO'],
    ];
    for (const [body, code, reason] of cases) {
      const res = await alert(t, setting.webhookId, body);
      expect(res.status, body).to.equal(422);
      expect(res.body.error, body).to.equal(code);
      expect(res.body.message, body).to.include(reason);
      const data = await t.call('GET', `/webhooks/charting/accounts/${account}/data/${res.body.details.dataId}`);
      expect(data.status).to.equal(200);
      expect(data.body).to.include({ status: 'REFUSED', message: body });
      expect(data.body.outcomes[0]).to.include({ kind: 'REFUSED', code });
    }
    expect(await positionsOf(t, account)).to.have.length(0);
    const list = await t.call('GET', `/webhooks/charting/accounts/${account}/data`);
    expect(list.body).to.have.length(cases.length);
    expect(list.body[0].message).to.equal(cases[cases.length - 1]![0]);
  });

  it('sizes riskPercent with the account-level FeatureRiskPerTradeDTO', async () => {
    const account = await startedAccount(t, 'cw-risk');
    const rpt = await t.call('POST', `/accounts/${account}/features`, {
      body: featureBody({ type: 'FeatureRiskPerTradeDTO', tickValue: 0.01, tickValueAutomaticAdjustement: false }),
    });
    expect(rpt.status, JSON.stringify(rpt.body)).to.equal(200);
    const { setting } = await chartingWebhook(t, account);
    // 1 % of 10,000 = 100 over (42010 - 41010) / 0.01 = 100,000 points at 0.01 a point = 0.1 lots.
    const res = await alert(t, setting.webhookId, 'buy BTCUSD risk=1% sl=41010');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect((await positionsOf(t, account))[0]).to.include({ volume: 0.1, stopLoss: 41010 });
  });

  it('with openRetry off, an open the broker refuses is refused at once', async () => {
    const account = await startedAccount(t, 'cw-noretry');
    const { setting } = await chartingWebhook(t, account, { openRetry: false });
    // Sunday before 22:00 UTC: forex is still closed.
    const res = await alert(t, setting.webhookId, 'buy EURUSD 0.1');
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error).to.equal('[MARKET_CLOSED]');
    expect(res.body.message).to.include('openRetry is off');
    const data = await t.call('GET', `/webhooks/charting/accounts/${account}/data/${res.body.details.dataId}`);
    expect(data.body.outcomes.map((o: { kind: string; code: string }) => [o.kind, o.code])).to.deep.equal([
      ['REFUSED', '[MARKET_CLOSED]'],
      ['GAVE_UP', '[OPEN_RETRY_EXPIRED]'],
    ]);
  });

  it('a refused open is retried and opens once the market opens; the data shows every attempt', async () => {
    const account = await startedAccount(t, 'cw-retry');
    const { setting } = await chartingWebhook(t, account, { openRetryTimeoutInMinutes: 60 });
    const res = await alert(t, setting.webhookId, 'buy EURUSD 0.1');
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect(res.body.status).to.equal('RETRYING');
    expect(res.body.outcomes.map((o: { kind: string }) => o.kind)).to.deep.equal(['REFUSED', 'RETRYING']);
    expect(res.body.outcomes[0].code).to.equal('[MARKET_CLOSED]');
    const dataId = res.body.id as string;
    // Still closed: the retries keep being refused.
    await eventually(
      async () => {
        const data = await t.call('GET', `/webhooks/charting/accounts/${account}/data/${dataId}`);
        return data.body.attempts >= 3 ? data : undefined;
      },
      10_000,
      'three attempts',
    );
    clock.advance(35 * 60_000);
    const done = await eventually(
      async () => {
        const data = await t.call('GET', `/webhooks/charting/accounts/${account}/data/${dataId}`);
        return data.body.status === 'COMPLETED' ? data : undefined;
      },
      15_000,
      'the retry that opens',
    );
    const opened = done.body.outcomes.filter((o: { kind: string }) => o.kind === 'OPENED');
    expect(opened).to.have.length(1);
    const book = await positionsOf(t, account);
    expect(book.filter((p) => p.symbol === 'EURUSD')).to.have.length(1);
    expect(book[0]!.id).to.equal(opened[0].positionId);
  });

  it('limits the rate of a webhook (429) and the size of an alert (413); neither is stored', async () => {
    const account = await startedAccount(t, 'cw-limits');
    const { setting } = await chartingWebhook(t, account, { rateLimitPerMinute: 2 });
    const big = await alert(t, setting.webhookId, `buy BTCUSD 0.01 comment=${'x'.repeat(1024 * 1024)}`);
    expect(big.status).to.equal(413);
    expect(big.body.error).to.equal('[PAYLOAD_TOO_LARGE]');
    expect((await alert(t, setting.webhookId, 'buy BTCUSD 0.01')).status).to.equal(200);
    expect((await alert(t, setting.webhookId, 'close BTCUSD')).status).to.equal(200);
    const third = await alert(t, setting.webhookId, 'buy BTCUSD 0.01');
    expect(third.status).to.equal(429);
    expect(third.body.error).to.equal('[RATE_LIMITED]');
    expect(Number(third.headers.get('retry-after'))).to.be.greaterThan(0);
    const list = await t.call('GET', `/webhooks/charting/accounts/${account}/data`);
    expect(list.body).to.have.length(2);
    expect(await positionsOf(t, account)).to.have.length(0);
  });

  it('an unknown webhookId answers 404 and trades nothing', async () => {
    for (const id of ['x', 'A'.repeat(43), 'A'.repeat(200)]) {
      const res = await alert(t, id, 'buy BTCUSD 0.01');
      expect(res.status, id).to.equal(404);
      expect(res.body.error).to.equal('[WEBHOOK_NOT_FOUND]');
    }
  });

  it('deletes charting data, and another project sees none of it', async () => {
    const account = await startedAccount(t, 'cw-data');
    const { setting } = await chartingWebhook(t, account);
    const res = await alert(t, setting.webhookId, 'buy BTCUSD 0.01');
    const dataId = res.body.id as string;
    const other = { key: OTHER_KEY };
    expect((await t.call('GET', `/webhooks/charting/accounts/${account}/data`, other)).status).to.equal(404);
    expect((await t.call('GET', `/webhooks/charting/accounts/${account}/data/${dataId}`, other)).status).to.equal(404);
    expect((await t.call('DELETE', `/webhooks/charting/accounts/${account}/data/${dataId}`, other)).status).to.equal(404);
    expect((await t.call('DELETE', `/webhooks/charting/accounts/${account}/data/${dataId}`)).status).to.equal(200);
    const gone = await t.call('GET', `/webhooks/charting/accounts/${account}/data/${dataId}`);
    expect(gone.status).to.equal(404);
    expect(gone.body.error).to.equal('[CHARTING_DATA_NOT_FOUND]');
    expect((await t.call('DELETE', `/webhooks/charting/accounts/${account}/data/${dataId}`)).status).to.equal(404);
    // What it opened stays open.
    expect(await positionsOf(t, account)).to.have.length(1);
  });
});

describe('charting webhook: a retry carries on after a restart', function () {
  this.timeout(180_000);
  const clock = movableClock(Date.parse('2026-01-11T21:30:00.000Z'));
  let first: TestService | undefined;
  let second: TestService | undefined;
  after(async () => {
    await first?.stop();
    await second?.stop();
  });

  it('an alert retried when the service stops is opened, once, by the service started again', async () => {
    first = await startTestService({ clock, openRetryIntervalMs: 200 });
    const account = await startedAccount(first, 'cw-restart');
    const { setting } = await chartingWebhook(first, account, { openRetryTimeoutInMinutes: 60 });
    const res = await alert(first, setting.webhookId, 'buy EURUSD 0.1 comment=restart');
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    const { databaseUrl, dataDir } = first;
    await first.stop();
    first = undefined;
    clock.advance(35 * 60_000);
    second = await startTestService({ clock, openRetryIntervalMs: 200, databaseUrl, dataDir });
    const t2 = second;
    const done = await eventually(
      async () => {
        const data = await t2.call('GET', `/webhooks/charting/accounts/${account}/data/${res.body.id}`);
        return data.body.status === 'COMPLETED' ? data : undefined;
      },
      20_000,
      'the retry after the restart',
    );
    expect(done.body.outcomes.filter((o: { kind: string }) => o.kind === 'OPENED')).to.have.length(1);
    expect((await positionsOf(t2, account)).filter((p) => p.comment === 'restart')).to.have.length(1);
  });
});
