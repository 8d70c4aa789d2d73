// Venue latency in /metrics on an instance that takes the venue sessions over from another one: it
// counts the orders of its new term at once (app/venueSessions.ts keeps one VenueOrderTimings for the
// instance's life and hands it to every venue host it starts), not only after a restart.
import { expect } from 'chai';
import type { VenueSessions } from '../../app/venueSessions.js';
import { startTestService, type TestService } from '../support/service.js';
import { eventually, openPosition, startedAccount } from '../support/trading.js';

const placeOrders = async (t: TestService): Promise<number> => {
  const text = await (await fetch(`${t.url.replace(/\/rest\/api\/v1$/, '')}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('copytrade_venue_order_duration_seconds_count{') &&
        l.includes('venue="simulated"') &&
        l.includes('operation="placeOrder"') &&
        l.includes('outcome="ok"'),
    );
  return line ? Number(line.split(' ').pop()) : 0;
};

describe('venue latency after a takeover of the venue sessions', function () {
  // Two services start on one database.
  this.timeout(120_000);
  let a: TestService | undefined;
  let b: TestService | undefined;

  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('the instance that takes the sessions over counts the orders of its term in its own /metrics', async () => {
    a = await startTestService({ venueTicker: false });
    b = await startTestService({ databaseUrl: a.databaseUrl, dataDir: a.dataDir, venueTicker: false });
    const sessionsOf = (t: TestService) => t.service.services.connections as VenueSessions;
    expect(sessionsOf(a).holds, 'the first instance holds the sessions').to.equal(true);
    expect(sessionsOf(b).holds).to.equal(false);
    const account = await startedAccount(a, 'Taken over');
    await openPosition(a, account, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 });
    expect(await placeOrders(a)).to.equal(1);
    expect(await placeOrders(b), 'an instance without the sessions counts nothing').to.equal(0);

    await a.stop();
    a = undefined;
    const taker = b;
    await eventually(async () => (sessionsOf(taker).holds ? true : undefined), 60_000, 'the second instance to hold the venue sessions');
    await eventually(async () => (sessionsOf(taker).isConnected(account) ? true : undefined), 60_000, 'the account connected again');
    await openPosition(taker, account, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 });
    expect(await placeOrders(taker), 'the order of the new term').to.equal(1);
  });
});
