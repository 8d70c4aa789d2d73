// CopierDTO forcePositionLotSize end to end over HTTP against the simulated venue: a slave lot above
// the broker's maximum (US500: 50 lots) is placed as several orders, and the master's stop changes,
// partial close and close reach every one of them. The rules: test/domain/copy/split.unit.spec.ts.
import { expect } from 'chai';
import { sql } from 'kysely';
import { simulatedLogin } from '../../../engine/venues/host.js';
import { allProjections } from '../../../projections/all.js';
import { rebuildProjection } from '../../../projections/rebuild.js';
import { startTestService, type TestService } from '../../support/service.js';
import { bookWhere, copyPair, eventually, marketHoursClock, modifyPosition, openPosition, pinQuotes, positionsOf } from '../../support/trading.js';

describe('forcePositionLotSize end to end', function () {
  this.timeout(60_000);
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock: marketHoursClock() });
    await pinQuotes(t, { US500: [5200, 5200] });
  });
  after(() => t?.stop());

  /** A pair whose slave can afford 60 lots of US500 (2,600 USD margin a lot). */
  const pair = async (name: string, copier: Record<string, unknown>) => {
    const accounts = await copyPair(t, name, { scaleType: { id: 4 }, multiplier: 120, ...copier });
    const login = simulatedLogin((await t.call('GET', `/accounts/${accounts.slave}`)).body);
    await t.service.services.venues.desk((venue) => venue.deposit(login, 990_000, 'room for 60 lots'));
    return accounts;
  };
  const volumes = (book: readonly { volume: number }[]) => book.map((p) => p.volume).sort((a, b) => b - a);

  it('places 60 lots on a 50-lot maximum as 50 + 10, and every master change reaches both orders', async () => {
    const { master, slave, copierId } = await pair('split', { forcePositionLotSize: true });
    const id = await openPosition(t, master, { symbol: 'US500', orderType: 'Buy', volume: 0.5, stopLoss: 5100 });
    const book = await bookWhere(t, slave, (b) => b.length === 2, 'two orders on the slave');
    expect(volumes(book)).to.deep.equal([50, 10]);
    for (const p of book) expect(p).to.deep.include({ symbol: 'US500', orderType: 'Buy', stopLoss: 5100, placedType: 'ByExpert' });
    expect(new Set(book.map((p) => p.clientOrderId)).size).to.equal(2);

    // The copies read model ties both orders to the one master position.
    const copiesOf = () =>
      t.service.services.db
        .selectFrom('copies')
        .select(['master_position_id', 'part', 'volume', 'status', 'closed_by'])
        .where('copier_id', '=', copierId)
        .orderBy('part')
        .execute();
    const rows = await eventually(async () => ((await copiesOf()).length === 2 ? copiesOf() : undefined), 5000, 'both parts in the copies read model');
    expect(rows).to.deep.equal([
      { master_position_id: id, part: 0, volume: 50, status: 'open', closed_by: null },
      { master_position_id: id, part: 1, volume: 10, status: 'open', closed_by: null },
    ]);

    const moved = await modifyPosition(t, master, id, { stopLoss: 5150 });
    expect(moved.status, JSON.stringify(moved.body)).to.equal(204);
    await bookWhere(t, slave, (b) => b.length === 2 && b.every((p) => p.stopLoss === 5150), 'the stop loss on both orders');

    // 0.2 of the master's 0.5 lots close: 40 % of the slave's 60 lots, from the last order back (10 whole, 14 of the 50).
    expect((await modifyPosition(t, master, id, { volume: 0.3 })).status).to.equal(204);
    const half = await bookWhere(t, slave, (b) => b.length === 1 && b[0]!.volume === 36, 'the partial close');
    expect(half[0]).to.deep.include({ stopLoss: 5150 });

    expect((await t.call('DELETE', `/accounts/${master}/positions/${id}`)).status).to.equal(204);
    await bookWhere(t, slave, (b) => b.length === 0, 'the close of what is left');
    const closed = await eventually(
      async () => {
        const now = await copiesOf();
        // Closed by the copier: the engine's own record of the close is in too (the venue's may come first).
        return now.every((row) => row.status === 'closed' && row.closed_by === 'COPIER') ? now.map(({ part, status }) => ({ part, status })) : undefined;
      },
      5000,
      'both parts closed in the copies read model',
    );
    expect(closed).to.deep.equal([
      { part: 0, status: 'closed' },
      { part: 1, status: 'closed' },
    ]);

    // Rebuilt from the events, the copies read model is the same.
    const snapshot = async () =>
      (await sql<Record<string, unknown>>`SELECT * FROM copies WHERE copier_id = ${copierId} ORDER BY part`.execute(t.service.services.db)).rows;
    const before = await snapshot();
    await rebuildProjection(
      t.service.services.db,
      t.service.services.store,
      allProjections.find((p) => p.name === 'copies')!,
    );
    expect(await snapshot()).to.deep.equal(before);
  });

  it('closes both orders when the master closes at once', async () => {
    const { master, slave } = await pair('split-close', { forcePositionLotSize: true });
    const id = await openPosition(t, master, { symbol: 'US500', orderType: 'Sell', volume: 0.5 });
    expect(volumes(await bookWhere(t, slave, (b) => b.length === 2, 'two orders on the slave'))).to.deep.equal([50, 10]);
    expect((await t.call('DELETE', `/accounts/${master}/positions/${id}`)).status).to.equal(204);
    await bookWhere(t, slave, (b) => b.length === 0, 'both closed');
  });

  it('without it, caps the lot at the maximum: one order of 50', async () => {
    const { master, slave } = await pair('capped', {});
    await openPosition(t, master, { symbol: 'US500', orderType: 'Buy', volume: 0.5 });
    const book = await bookWhere(t, slave, (b) => b.length === 1, 'one order on the slave');
    expect(book[0]).to.deep.include({ volume: 50 });
    expect(await positionsOf(t, slave)).to.have.length(1);
  });
});
