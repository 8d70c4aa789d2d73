// End to end with cTrader's deposits and withdrawals against the local fake Open API endpoint
// (test/support/fakeCTrader.ts; nothing leaves 127.0.0.1): one booked before the account starts is read
// from the history (ProtoOACashFlowHistoryListReq), one booked while it is connected is heard live (the
// DEPOSIT_WITHDRAW execution event), and one booked while the service is down is read at the restart;
// each is a BalanceChanged of the account's positions stream once, and a BALANCE line of its logs once.
import { expect } from 'chai';
import { positionsStream } from '../../domain/positions/events.js';
import { CTID, ctraderAccount, ctraderEnv, startedFakeCTrader } from '../support/ctraderService.js';
import type { FakeCTrader } from '../support/fakeCTrader.js';
import { startTestService, type TestService } from '../support/service.js';
import { eventually, type LogEntry, marketHoursClock } from '../support/trading.js';

describe('cTrader deposits and withdrawals end to end (fake Open API endpoint)', function () {
  // Two service starts: at the machine's usual load that alone can take over a minute.
  this.timeout(240_000);
  let fake: FakeCTrader;
  let t: TestService;
  const clock = marketHoursClock();

  beforeEach(async () => {
    fake = await startedFakeCTrader(clock);
  });
  afterEach(async () => {
    await t.stop();
    await fake.stop();
  });

  const balanceLines = async (account: string): Promise<string[]> =>
    ((await t.call('GET', `/accounts/${account}/logs?limit=1000`)).body as LogEntry[])
      .filter((l) => /^(Deposit|Withdrawal) of /.test(l.text))
      .map((l) => l.text);

  const recordedOperations = async (account: string): Promise<string[]> => {
    const ids: string[] = [];
    for await (const { event } of t.service.services.store.readStream(positionsStream(account)))
      if (event.type === 'BalanceChanged') ids.push((event.data as { operation: { operationId: string } }).operation.operationId);
    return ids;
  };

  it('records a deposit read from the history, one heard live and a withdrawal made while the service was down, each once', async () => {
    const before = fake.cashFlow(CTID, 2_500, { at: clock().getTime() - 3 * 24 * 3600_000, note: 'wire 118' });
    t = await startTestService({ clock, env: ctraderEnv(fake) });
    const { id: account, started } = await ctraderAccount(t, 'cTrader', '7001', 'token-good');
    expect(started!.status).to.equal(200);
    await eventually(async () => ((await balanceLines(account)).length === 1 ? true : undefined), 20_000, 'the deposit from the history');
    const live = fake.cashFlow(CTID, 1_000);
    await eventually(async () => ((await balanceLines(account)).length === 2 ? true : undefined), 20_000, 'the live deposit');
    const { databaseUrl, dataDir } = t;
    await t.stop();
    const missed = fake.cashFlow(CTID, -300.5, { note: 'card refund' });
    t = await startTestService({ clock, env: ctraderEnv(fake), databaseUrl, dataDir });
    await eventually(async () => ((await balanceLines(account)).length >= 3 ? true : undefined), 30_000, 'the withdrawal read at the restart');
    // A reconnect of the link reads the cash movements again: nothing is recorded twice.
    fake.dropAll();
    await eventually(
      async () => ((await t.call('GET', `/accounts/${account}`)).body.statusMessage === 'connected' ? true : undefined),
      20_000,
      'the link back',
    );
    expect(await recordedOperations(account)).to.deep.equal([String(before), String(live), String(missed)]);
    expect(await balanceLines(account)).to.have.members([
      'Deposit of 2500.00 (wire 118)',
      'Deposit of 1000.00 (cTrader deposit)',
      'Withdrawal of 300.50 (card refund)',
    ]);
    const info = await t.call('GET', `/accounts/${account}/information`);
    expect(info.body.balance).to.equal(10_000 + 2_500 + 1_000 - 300.5);
  });
});
