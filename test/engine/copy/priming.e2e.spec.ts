// Priming (engine/copy/priming.ts): what a master's fan-out reads is read ahead once the master is
// known and again when its copiers change. A primed master still copies by what its copiers are right
// after a change: a copier added, paused or removed just before the master trades is seen.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../support/service.js';
import { bookWhere, copyPair, marketHoursClock, openPosition, pinQuotes, positionsOf, startedAccount } from '../../support/trading.js';

describe('copy engine: a primed master sees its copiers change right after', function () {
  this.timeout(90_000);
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock: marketHoursClock() });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
  });
  after(() => t?.stop());

  it('copies to a copier added, and not to one paused or removed, each right after the master was primed', async () => {
    const engine = t.service.services.engine;
    const { master, slave: first, copierId } = await copyPair(t, 'primed');
    const buy = { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 };
    await openPosition(t, master, buy);
    await bookWhere(t, first, (b) => b.length === 1, 'the first copy');
    expect(await engine.primed(), 'the master was read ahead').to.be.greaterThan(0);

    // Added right after priming: copied.
    const second = await startedAccount(t, 'primed-second');
    await engine.primed();
    const added = await t.call('POST', `/accounts/${second}/copiers`, { body: { fromAccountId: master } });
    expect(added.status).to.equal(200);
    await openPosition(t, master, buy);
    await bookWhere(t, second, (b) => b.length === 1, 'the copy of the copier added');
    await bookWhere(t, first, (b) => b.length === 2, 'the second copy of the first');

    // Paused right after priming: not copied; removed: not copied. A copier added before priming
    // copies the trade: once its copy is there, the fan-out that decided the others is read and handled.
    const control = await startedAccount(t, 'primed-control');
    expect((await t.call('POST', `/accounts/${control}/copiers`, { body: { fromAccountId: master } })).status).to.equal(200);
    await engine.primed();
    expect((await t.call('PUT', `/accounts/${first}/copiers/${copierId}`, { body: { active: false } })).status).to.equal(200);
    expect((await t.call('DELETE', `/accounts/${second}/copiers/${added.body.id}`)).status).to.be.oneOf([200, 204]);
    await openPosition(t, master, buy);
    await bookWhere(t, control, (b) => b.length === 1, 'the copy of the control copier');
    await engine.idle();
    expect(await positionsOf(t, master)).to.have.length(3);
    expect(await positionsOf(t, first), 'paused').to.have.length(2);
    expect(await positionsOf(t, second), 'removed').to.have.length(1);
  });
});
