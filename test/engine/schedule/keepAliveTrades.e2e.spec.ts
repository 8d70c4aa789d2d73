// An account's keep-alive trade (FeatureKeepAliveTradeDTO on the account, the reference's scope) over
// HTTP against the simulated venue, on the engine's clock: the keep-alive executor places one trade per
// firing on the account whatever its copiers (none, the master of one, the slave of several), closes it
// closeAfterInSeconds later, and logs every firing and every refusal in the account's log.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../support/service.js';
import * as trading from '../../support/trading.js';
import { bookWhere, eventually, movableClock, pinQuotes, positionsOf, startedAccount } from '../../support/trading.js';

describe('keep-alive trades of an account, without a copier', function () {
  this.timeout(120_000);
  // A Wednesday morning, UTC: forex markets are open.
  const clock = movableClock(Date.parse('2026-01-07T10:00:05.000Z'));
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
  });
  after(() => t?.stop());

  const copier = async (master: string, slave: string) => {
    const res = await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  };
  const keepAlive = async (accountId: string, setting: Record<string, unknown> = {}) => {
    const res = await t.call('POST', `/accounts/${accountId}/features`, {
      body: trading.featureBody({
        type: 'FeatureKeepAliveTradeDTO',
        symbol: 'EURUSD',
        volume: 0.02,
        cronExpressions: ['0 * * ? * *'],
        closeAfterInSeconds: 30,
        ...setting,
      }),
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as string;
  };
  /** The next firing of '0 * * ? * *' (every minute), one second after it. */
  const toNextMinute = () => {
    const minute = Math.ceil((clock().getTime() + 1000) / 60_000) * 60_000;
    clock.advance(minute + 1000 - clock().getTime());
    return new Date(minute).toISOString();
  };
  const keepAliveLines = async (accountId: string) => (await trading.logsOf(t, accountId)).filter((l) => l.text.startsWith('Keep-alive trade'));
  const flat = async (accountId: string) => {
    for (const f of (await t.call('GET', `/accounts/${accountId}/features`)).body as { id: string }[]) {
      expect((await t.call('DELETE', `/accounts/${accountId}/features/${f.id}`)).status).to.equal(200);
    }
    expect((await t.call('POST', `/accounts/${accountId}/actions/closeAllPositions`)).status).to.equal(204);
  };

  it('a lone account (no copier) gets its trade at the firing, closed closeAfterInSeconds later, each in its log once', async () => {
    const lone = await startedAccount(t, 'keep-alive-lone');
    await keepAlive(lone);
    const firing = toNextMinute();
    const [placed] = await bookWhere(t, lone, (b) => b.length === 1, 'the keep-alive trade', 10_000);
    expect(placed).to.deep.include({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.02 });
    const opened = await eventually(
      async () => (await keepAliveLines(lone)).find((l) => l.text.startsWith('Keep-alive trade due')),
      5000,
      'the open in the log',
    );
    expect(opened.text).to.equal(
      `Keep-alive trade due at ${firing} (to close after 30 seconds): Buy 0.02 EURUSD opened as #${placed!.id} at ${placed!.openPrice}`,
    );
    expect(opened).to.deep.include({ category: 'TRADING', code: 'KEEP_ALIVE_TRADE' });
    // The same firing places nothing more.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await positionsOf(t, lone)).map((p) => p.id)).to.deep.equal([placed!.id]);
    clock.advance(30_000);
    await bookWhere(t, lone, (b) => b.length === 0, 'closed 30 seconds later', 10_000);
    const closed = await eventually(
      async () => (await keepAliveLines(lone)).find((l) => l.text.startsWith(`Keep-alive trade #${placed!.id}`)),
      5000,
      'the close',
    );
    expect(closed.text).to.match(
      new RegExp(`^Keep-alive trade #${placed!.id} \\(Buy 0.02 EURUSD, opened at .*, held 30 seconds\\) closed at [0-9.]+, result -?[0-9]+\\.[0-9]{2}$`),
    );
    expect(await keepAliveLines(lone)).to.have.length(2);
    await flat(lone);
  });

  it('a master gets one too, and an account with several copiers one per firing', async () => {
    const master = await startedAccount(t, 'keep-alive-master');
    const slave = await startedAccount(t, 'keep-alive-slave');
    const other = await startedAccount(t, 'keep-alive-other-master');
    await copier(master, slave);
    await copier(other, slave);
    await keepAlive(master, { closeAfterInSeconds: 3600 });
    await keepAlive(slave, { closeAfterInSeconds: 3600 });
    const firing = toNextMinute();
    await bookWhere(t, master, (b) => b.length >= 1, "the master's keep-alive trade", 10_000);
    await eventually(
      async () => (await keepAliveLines(slave)).find((l) => l.text.startsWith(`Keep-alive trade due at ${firing}`)),
      10_000,
      "the slave's trade",
    );
    await new Promise((resolve) => setTimeout(resolve, 2500));
    for (const account of [master, slave]) {
      const due = (await keepAliveLines(account)).filter((l) => l.text.startsWith(`Keep-alive trade due at ${firing}`));
      expect(due, account === master ? 'the master' : 'the slave of two copiers').to.have.length(1);
    }
    // The master's keep-alive trade is the master account's own: not copied, the slave's log says why.
    const notCopied = await eventually(
      async () => (await trading.logsOf(t, slave)).find((l) => l.code === 'MASTER_KEEP_ALIVE_TRADE'),
      10_000,
      "the slave's line for the master's keep-alive trade",
    );
    expect(notCopied.text).to.contain("it is the master account's own keep-alive trade");
    expect(await positionsOf(t, slave), "the slave's own keep-alive trade only").to.have.length(1);
    // The next firing, the trade before still open: logged, not placed.
    const next = toNextMinute();
    const skipped = await eventually(
      async () => (await keepAliveLines(slave)).find((l) => l.text.startsWith(`Keep-alive trade due at ${next}`)),
      10_000,
      'the next firing in the log',
    );
    expect(skipped).to.deep.include({
      code: 'PREVIOUS_STILL_OPEN',
      text: `Keep-alive trade due at ${next} not placed: the keep-alive trade before it is still open`,
    });
    await flat(master);
    await flat(slave);
  });

  it("logs the broker's refusal once, and a symbol the broker does not have at its firing", async () => {
    const lone = await startedAccount(t, 'keep-alive-refused');
    await keepAlive(lone, { volume: 500 });
    const firing = toNextMinute();
    const refused = await eventually(
      async () => (await keepAliveLines(lone)).find((l) => l.text.startsWith(`Keep-alive trade due at ${firing} (Buy`)),
      10_000,
      'the refusal',
    );
    expect(refused.text).to.match(/refused: .*; trying again every second until the next firing$/);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await keepAliveLines(lone)).filter((l) => l.code === refused.code)).to.have.length(1);
    await flat(lone);
    const other = await startedAccount(t, 'keep-alive-no-symbol');
    await keepAlive(other, { symbol: 'NOSUCH' });
    const next = toNextMinute();
    const skipped = await eventually(async () => (await keepAliveLines(other)).find((l) => l.code === 'SYMBOL_NOT_FOUND'), 10_000, 'the skip');
    expect(skipped.text).to.equal(`Keep-alive trade due at ${next} not placed: the account's broker has no symbol NOSUCH`);
    await flat(other);
  });
});
