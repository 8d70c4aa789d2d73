// A position the account's positions stream knows open, gone from the venue's book at a reconciliation
// with no closing trade of it in the venue's history (a venue that lost it, or whose history does not
// reach back to its close): its close and result are unknown, and the account's log says so, once,
// however often the same reconciliation runs again (engine/venues/reconcile.ts).
import { expect } from 'chai';
import { positionsStream } from '../../domain/positions/events.js';
import { positionsEventId } from '../../engine/venues/recorder.js';
import { recordFacts } from '../../store/recorder.js';
import { startTestService, type TestService } from '../support/service.js';
import { startedAccount } from '../support/trading.js';

interface LogEntry {
  readonly logTypeId: number;
  readonly category: string;
  readonly text: string;
}

const GONE_ID = '990001';
const LINE = `Position #${GONE_ID} is gone at the venue without a closing trade in its history: Buy 0.5 lots EURUSD at 1.0851; its close and result are unknown`;

describe('a position gone at the venue without a closing trade', function () {
  this.timeout(120_000);
  let t: TestService;

  before(async () => {
    t = await startTestService();
  });
  after(() => t?.stop());

  it("is told in the account's log as a warning, once, however often the account reconnects", async () => {
    const account = await startedAccount(t, 'gone');
    expect((await t.call('POST', `/accounts/${account}/actions/stop`)).status).to.equal(200);
    // A position the service recorded open that the venue does not hold, and never closed in its history.
    const key = `opened/${GONE_ID}`;
    const at = '2026-03-04T10:00:00.000Z';
    const position = {
      positionId: GONE_ID,
      symbol: 'EURUSD',
      orderType: 'Buy',
      volume: 0.5,
      openPrice: 1.0851,
      openTime: at,
      stopLoss: null,
      takeProfit: null,
      swap: 0,
      commission: 0,
      comment: null,
      magicNumber: null,
      clientOrderId: null,
    };
    await recordFacts(
      t.service.services.store,
      positionsStream(account),
      [{ id: positionsEventId(account, key), type: 'PositionOpened', data: { accountId: account, at, position } }],
      { correlationId: 'spec' },
    );

    const goneLines = async () => {
      const res = await t.call('GET', `/accounts/${account}/logs?limit=1000`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return (res.body as LogEntry[]).filter((l) => l.text.includes(`#${GONE_ID} is gone`));
    };
    // The start reconciles, and answers once the read models include what it recorded.
    expect((await t.call('POST', `/accounts/${account}/actions/start`)).status).to.equal(200);
    const lines = await goneLines();
    expect(lines).to.have.length(1);
    expect(lines[0]).to.deep.include({ logTypeId: 2, category: 'TRADING', text: LINE });

    // The same reconciliation again (a stop and a start, then a reconnect): no second line.
    expect((await t.call('POST', `/accounts/${account}/actions/stop`)).status).to.equal(200);
    expect((await t.call('POST', `/accounts/${account}/actions/start`)).status).to.equal(200);
    expect((await t.call('POST', `/accounts/${account}/actions/reconnect`)).status).to.equal(204);
    expect(await goneLines()).to.have.length(1);
    // The position stays as the read model knew it: a later history that shows its close still records it.
    const known = await t.service.services.db.selectFrom('positions').select('id').where('account_id', '=', account).execute();
    expect(known.map((row) => row.id)).to.include(GONE_ID);
  });
});
