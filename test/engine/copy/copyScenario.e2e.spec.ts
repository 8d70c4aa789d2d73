// The copy engine end to end, over HTTP against the simulated venue: a master trades, the slave follows.
import { expect } from 'chai';
import { sql } from 'kysely';
import { allProjections } from '../../../projections/all.js';
import { rebuildProjection } from '../../../projections/rebuild.js';
import { startTestService, type TestService } from '../../support/service.js';
import { bookWhere, eventually, marketHoursClock, modifyPosition, pinQuotes, positionRequest, positionsOf, startedAccount } from '../../support/trading.js';

describe('copy engine end to end', function () {
  this.timeout(60_000);
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock: marketHoursClock() });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851], XAUUSD: [2350, 2350.25], BTCUSD: [65_000, 65_025] });
  });
  after(() => t?.stop());

  const open = async (accountId: string, body: Record<string, unknown>) => {
    const res = await t.call('POST', `/accounts/${accountId}/positions`, { body: positionRequest(body) });
    expect(res.status, JSON.stringify(res.body)).to.equal(204);
    return res.headers.get('x-position-id')!;
  };
  const logsOf = async (accountId: string, query = '') =>
    (await t.call('GET', `/accounts/${accountId}/logs${query}`)).body as {
      text: string;
      code: string | null;
      logTypeId: number;
      category: string;
    }[];

  describe('a copier with multiplier 2 that copies comments and pending orders', () => {
    let master: string;
    let slave: string;
    let copierId: string;

    before(async () => {
      master = await startedAccount(t, 'scenario-master');
      slave = await startedAccount(t, 'scenario-slave');
      const copier = await t.call('POST', `/accounts/${slave}/copiers`, {
        body: { fromAccountId: master, multiplier: 2, copyOriginalComment: true, skipPendingOrders: false },
      });
      expect(copier.status).to.equal(200);
      copierId = copier.body.id;
    });

    it('copies an open of 1.00 lot as 2.00 lots, a half close as a half close, and the close', async () => {
      const id = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 1, stopLoss: 1.08, takeProfit: 1.09, comment: 'signal 7', requestId: 7 });
      const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the slave copy');
      // The master's comment as its broker has it: with the reference's API|<requestId>| prefix.
      expect(copy).to.deep.include({ symbol: 'EURUSD', orderType: 'Buy', volume: 2, stopLoss: 1.08, takeProfit: 1.09, comment: 'API|7|signal 7' });

      expect((await modifyPosition(t, master, id, { volume: 0.5 })).status).to.equal(204);
      await bookWhere(t, slave, (b) => b.length === 1 && b[0]!.volume === 1, 'the slave half close');

      expect((await modifyPosition(t, master, id, { stopLoss: 1.081 })).status).to.equal(204);
      await bookWhere(t, slave, (b) => b[0]?.stopLoss === 1.081, 'the slave stop loss move');

      expect((await t.call('DELETE', `/accounts/${master}/positions/${id}`)).status).to.equal(204);
      await bookWhere(t, slave, (b) => b.length === 0, 'the slave close');

      const logs = await logsOf(slave);
      const copies = logs.filter((l) => l.category === 'COPY').map((l) => l.text);
      expect(copies.some((m) => /open Buy 2 EURUSD/.test(m))).to.equal(true);
      expect(copies.some((m) => /close 1 of #/.test(m))).to.equal(true);
    });

    it('reverses: a master Buy of 1 lot becomes a slave Sell of 2 with the stops swapped', async () => {
      await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body: { reverse: true } });
      const id = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 1, stopLoss: 1.08, takeProfit: 1.09 });
      const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the reversed copy');
      expect(copy).to.deep.include({ orderType: 'Sell', volume: 2, stopLoss: 1.09, takeProfit: 1.08 });
      await t.call('DELETE', `/accounts/${master}/positions/${id}`);
      await bookWhere(t, slave, (b) => b.length === 0, 'the reversed close');
      await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body: { reverse: false } });
    });

    it('copies a pending order, and holds one position once it fills on the master and then on the slave', async () => {
      await open(master, { symbol: 'EURUSD', orderType: 'BuyLimit', volume: 1, openPrice: 1.08 });
      const [pending] = await bookWhere(t, slave, (b) => b.length === 1, 'the slave pending order');
      expect(pending).to.deep.include({ orderType: 'BuyLimit', volume: 2, openPrice: 1.08 });

      await pinQuotes(t, { EURUSD: [1.0799, 1.08] });
      const [filled] = await bookWhere(t, slave, (b) => b.length === 1 && b[0]!.orderType === 'Buy', 'the slave position after the fill');
      expect(filled).to.deep.include({ orderType: 'Buy', volume: 2 });
      const masterBook = await positionsOf(t, master);
      expect(masterBook.map((p) => p.orderType)).to.deep.equal(['Buy']);

      await t.call('POST', `/accounts/${master}/actions/closeAllPositions`);
      await bookWhere(t, slave, (b) => b.length === 0, 'the close after the fill');
      await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
    });

    it('moves the slave pending order when the master moves its own, and cancels it when the master cancels', async () => {
      const id = await open(master, { symbol: 'EURUSD', orderType: 'SellStop', volume: 0.5, openPrice: 1.08, stopLoss: 1.083 });
      await bookWhere(t, slave, (b) => b.length === 1 && b[0]!.orderType === 'SellStop', 'the slave SellStop');
      expect((await modifyPosition(t, master, id, { openPrice: 1.079, takeProfit: 1.07 })).status).to.equal(204);
      const [moved] = await bookWhere(t, slave, (b) => b[0]?.openPrice === 1.079, 'the moved slave order');
      expect(moved).to.deep.include({ orderType: 'SellStop', volume: 1, openPrice: 1.079, stopLoss: 1.083, takeProfit: 1.07 });
      expect((await t.call('DELETE', `/accounts/${master}/positions/${id}`)).status).to.equal(204);
      await bookWhere(t, slave, (b) => b.length === 0, 'the cancelled slave order');
    });

    it('says in the slave logs why a trade was not copied: below the slave minimum without forceMinTrade', async () => {
      await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body: { multiplier: 0.1, forceMinTrade: false } });
      await open(master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.05 });
      const skip = await eventually(async () => (await logsOf(slave, '?logTypeId=2')).find((l) => l.code === 'VOLUME_BELOW_MINIMUM'), 5000, 'the skip');
      expect(skip.logTypeId).to.equal(2);
      expect(skip.text).to.match(/0\.005 lots is below the minimum 0\.01 of EURUSD \(forceMinTrade is off\)/);
      expect(await positionsOf(t, slave)).to.deep.equal([]);
      await t.call('POST', `/accounts/${master}/actions/closeAllPositions`);
      await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body: { multiplier: 2, forceMinTrade: true } });
    });

    it('forceMinTrade (the default) raises a lot below the slave minimum to it', async () => {
      await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body: { multiplier: 0.1 } });
      await open(master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.05 });
      const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy raised to the minimum');
      expect(copy).to.deep.include({ orderType: 'Sell', volume: 0.01 });
      await t.call('POST', `/accounts/${master}/actions/closeAllPositions`);
      await bookWhere(t, slave, (b) => b.length === 0, 'the close');
      await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body: { multiplier: 2 } });
    });

    it('a monitor-only copier records what it would have opened, placing nothing, and still closes the copies it holds', async () => {
      const held = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
      await bookWhere(t, slave, (b) => b.length === 1, 'the copy made before monitor-only');
      await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body: { monitorOnly: true } });
      await open(master, { symbol: 'XAUUSD', orderType: 'Buy', volume: 0.1 });
      const log = await eventually(async () => (await logsOf(slave)).find((l) => l.code === 'MONITOR_ONLY'), 5000, 'the monitor-only entry');
      expect(log.text).to.match(/would have: open Buy 0\.2 XAUUSD/);
      expect((await positionsOf(t, slave)).map((p) => p.symbol)).to.deep.equal(['EURUSD']);
      expect((await t.call('DELETE', `/accounts/${master}/positions/${held}`)).status).to.equal(204);
      await bookWhere(t, slave, (b) => b.length === 0, 'the copy closed by the monitor-only copier');
      await t.call('POST', `/accounts/${master}/actions/closeAllPositions`);
      await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body: { monitorOnly: false } });
    });
  });

  describe('rebuilding from the events', () => {
    it('gives the trading read models (positions, copies, martingale, account logs) exactly as live', async () => {
      const { db, store } = t.service.services;
      const tables = [
        'positions',
        'venue_activity',
        'copies',
        'copier_martingale',
        'copy_retries',
        'copy_deferrals',
        'slave_closures',
        'slave_partials',
        'account_logs',
      ] as const;
      const snapshot = async () => {
        const out: Record<string, unknown[]> = {};
        for (const table of tables) out[table] = (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} ORDER BY 1, 2`.execute(db)).rows;
        return out;
      };
      const live = await snapshot();
      expect(live.copies!.length).to.be.greaterThan(3);
      expect(live.account_logs!.length).to.be.greaterThan(20);
      for (const name of ['positions', 'copies', 'account_logs']) {
        await rebuildProjection(
          db,
          store,
          allProjections.find((p) => p.name === name)!,
        );
      }
      expect(await snapshot()).to.deep.equal(live);
    });
  });

  describe('chains', () => {
    it('copies A to B to C', async () => {
      const a = await startedAccount(t, 'chain-a');
      const b = await startedAccount(t, 'chain-b');
      const c = await startedAccount(t, 'chain-c');
      await t.call('POST', `/accounts/${b}/copiers`, { body: { fromAccountId: a, multiplier: 2 } });
      await t.call('POST', `/accounts/${c}/copiers`, { body: { fromAccountId: b, multiplier: 3 } });
      const id = await open(a, { symbol: 'BTCUSD', orderType: 'Sell', volume: 0.01 });
      const [atC] = await bookWhere(t, c, (book) => book.length === 1, 'the copy at the end of the chain');
      expect(atC).to.deep.include({ symbol: 'BTCUSD', orderType: 'Sell', volume: 0.06 });
      await t.call('DELETE', `/accounts/${a}/positions/${id}`);
      await bookWhere(t, c, (book) => book.length === 0, 'the close at the end of the chain');
    });
  });
});
