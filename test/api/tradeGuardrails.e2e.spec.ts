// Trade guardrails end to end (FeatureTradeGuardrailsDTO as the reference defines it: an account feature
// that closes open positions above maxLotSizeThreshold and positions open longer than maxOpenTimeSeconds),
// over HTTP against the simulated venue. "Outside" positions are placed at the venue as a person does in
// the broker's terminal (SimulatedVenue.terminalTrade: no client order id of ours); the service learns of
// them through its venue session, as it would from a real venue.
import { expect } from 'chai';
import { simulatedLogin } from '../../engine/venues/host.js';
import type { OrderRequest } from '../../engine/venues/port.js';
import { GUARDRAIL_NAMESPACE, guardrailCloseId } from '../../engine/protection/tradeGuardrails.js';
import { type GuardrailEvent, guardrailEventKey, guardrailStream } from '../../domain/tradeGuardrail/events.js';
import { v5 as uuidv5 } from 'uuid';
import { startTestService, type TestService } from '../support/service.js';
import {
  addFeature,
  bookWhere,
  copyPair,
  eventually,
  type LogEntry,
  logsOf,
  movableClock,
  openPosition,
  pinQuotes,
  positionsOf,
  startedAccount,
} from '../support/trading.js';

const GUARDRAIL_CODES = ['GUARDRAIL_MAX_LOT_SIZE', 'GUARDRAIL_MAX_OPEN_TIME'];

const guardrailLogOf = (t: TestService, accountId: string, positionId: string) =>
  eventually(
    async () => (await logsOf(t, accountId)).find((l) => GUARDRAIL_CODES.includes(l.code ?? '') && l.positionId === positionId),
    10_000,
    `the guardrail's log of #${positionId}`,
  );

describe('trade guardrails end to end', function () {
  this.timeout(60_000);
  const clock = movableClock();
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851], GBPUSD: [1.27, 1.27009] });
  });
  after(() => t?.stop());

  /** A trade placed in the broker's terminal: the service did not place it. Answers its position id. */
  const terminalTrade = async (accountId: string, request: Partial<OrderRequest> & { volume: number }): Promise<string> => {
    const login = simulatedLogin((await t.call('GET', `/accounts/${accountId}`)).body);
    const result = await t.service.services.venues.desk((venue) =>
      venue.terminalTrade(login, { symbol: 'EURUSD', orderType: 'buy', ...request } as OrderRequest),
    );
    if (result.status !== 'filled' || result.positionId === null) throw new Error(`terminal trade: ${JSON.stringify(result)}`);
    await bookWhere(t, accountId, (b) => b.some((p) => p.id === result.positionId), 'the terminal trade seen by the service');
    return result.positionId;
  };
  const guardrailLogs = async (accountId: string): Promise<LogEntry[]> => (await logsOf(t, accountId)).filter((l) => GUARDRAIL_CODES.includes(l.code ?? ''));

  it('on an account, closes every position above maxLotSizeThreshold, placed by the service or outside it, each with its reason in the log', async () => {
    const account = await startedAccount(t, 'guard-lots');
    const ours = await openPosition(t, account, { symbol: 'EURUSD', orderType: 'Buy', volume: 1 });
    const outside = await terminalTrade(account, { volume: 0.8, orderType: 'sell' });
    const small = await terminalTrade(account, { volume: 0.2 });
    const res = await t.call('POST', `/accounts/${account}/features`, {
      body: {
        type: { id: 37 },
        setting: { enabled: true, maxLotSizeThreshold: 0.5, aggregatePerSymbol: false, maxOpenTimeSeconds: 0, symbolsConfiguration: {} },
      },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ accountId: account, type: { id: 37, name: 'FeatureTradeGuardrailsDTO' } });

    const left = await bookWhere(t, account, (b) => b.length === 1, 'both positions above 0.5 lots closed', 10_000);
    expect(left.map((p) => p.id)).to.deep.equal([small]);
    const oursLog = await guardrailLogOf(t, account, ours);
    expect(oursLog).to.deep.include({ code: 'GUARDRAIL_MAX_LOT_SIZE', category: 'PROTECTION', logTypeId: 2, copierId: null });
    expect(oursLog.text).to.match(
      new RegExp(
        `^Trade guardrail closed #${ours} \\(Buy 1 lot EURUSD, placed by the service\\) at [\\d.]+, result -?[\\d.]+: 1 lot, above maxLotSizeThreshold 0\\.5$`,
      ),
    );
    const outsideLog = await guardrailLogOf(t, account, outside);
    expect(outsideLog.text).to.match(
      new RegExp(
        `^Trade guardrail closed #${outside} \\(Sell 0\\.8 lots EURUSD, placed outside the service\\) at .*: 0\\.8 lots, above maxLotSizeThreshold 0\\.5$`,
      ),
    );
  });

  it('aggregatePerSymbol closes the newest positions of a symbol until the rest is at or below the threshold', async () => {
    const account = await startedAccount(t, 'guard-aggregate');
    const first = await terminalTrade(account, { volume: 0.3 });
    clock.advance(1000);
    const second = await terminalTrade(account, { volume: 0.3 });
    clock.advance(1000);
    const third = await openPosition(t, account, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.3 });
    await addFeature(t, `/accounts/${account}`, { type: 'FeatureTradeGuardrailsDTO', maxLotSizeThreshold: 0.5, aggregatePerSymbol: true });
    const left = await bookWhere(t, account, (b) => b.length === 1, 'the two newest closed', 10_000);
    expect(left.map((p) => p.id)).to.deep.equal([first]);
    expect((await guardrailLogOf(t, account, third)).text).to.match(/0\.9 lots open on EURUSD together, above maxLotSizeThreshold 0\.5/);
    expect((await guardrailLogOf(t, account, second)).text).to.include('placed outside the service');
  });

  it('on an account, closes positions open longer than maxOpenTimeSeconds, ours and outside ones, and leaves younger ones', async () => {
    const account = await startedAccount(t, 'guard-time');
    const ours = await openPosition(t, account, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.1 });
    const outside = await terminalTrade(account, { volume: 0.1 });
    await addFeature(t, `/accounts/${account}`, { type: 'FeatureTradeGuardrailsDTO', maxOpenTimeSeconds: 3600 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await positionsOf(t, account), 'both younger than an hour').to.have.length(2);
    clock.advance(3600_000);
    const young = await terminalTrade(account, { volume: 0.1 });
    const left = await bookWhere(t, account, (b) => b.length === 1, 'the two positions older than an hour closed', 10_000);
    expect(left.map((p) => p.id)).to.deep.equal([young]);
    const oursLog = await guardrailLogOf(t, account, ours);
    expect(oursLog.code).to.equal('GUARDRAIL_MAX_OPEN_TIME');
    expect(oursLog.text).to.match(
      new RegExp(
        `^Trade guardrail closed #${ours} \\(Sell 0\\.1 lots GBPUSD, placed by the service\\) .*: open since .*, longer than maxOpenTimeSeconds 3600$`,
      ),
    );
    expect((await guardrailLogOf(t, account, outside)).text).to.include('(Buy 0.1 lots EURUSD, placed outside the service)');
  });

  it("on a copier (the spec's scope), closes only that copier's copies: the master keeps its position, an outside position of the slave stays", async () => {
    const { master, slave, copierId } = await copyPair(t, 'guard-copier');
    const outside = await terminalTrade(slave, { volume: 1 });
    await addFeature(t, `/accounts/${slave}/copiers/${copierId}`, { type: 'FeatureTradeGuardrailsDTO', maxLotSizeThreshold: 0.5 });
    const masterPosition = await openPosition(t, master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.7 });
    const copy = await eventually(async () => (await guardrailLogs(slave)).find((l) => l.positionId !== outside), 10_000, 'the copy closed by the guardrail');
    expect(copy).to.deep.include({ code: 'GUARDRAIL_MAX_LOT_SIZE', copierId });
    expect(copy.text).to.match(new RegExp(`^Trade guardrail of copier ${copierId} closed #\\d+ \\(Buy 0\\.7 lots EURUSD, placed by the service\\)`));
    expect((await positionsOf(t, slave)).map((p) => p.id)).to.deep.equal([outside]);
    expect((await positionsOf(t, master)).map((p) => p.id)).to.deep.equal([masterPosition]);

    // With the account's guardrail too, the most specific applies: the copier's to its copies (0.4 lots
    // stays under its 0.5), the account's to the rest (the outside position above its 0.3 closes).
    await openPosition(t, master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.4 });
    const second = (await bookWhere(t, slave, (b) => b.length === 2, 'the second copy')).find((p) => p.id !== outside);
    await addFeature(t, `/accounts/${slave}`, { type: 'FeatureTradeGuardrailsDTO', maxLotSizeThreshold: 0.3 });
    const closedOutside = await guardrailLogOf(t, slave, outside);
    expect(closedOutside).to.deep.include({ copierId: null });
    expect(closedOutside.text).to.match(/placed outside the service\)/);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((await positionsOf(t, slave)).map((p) => p.id)).to.deep.equal([second!.id]);
  });

  it('refuses bad members and changes nothing', async () => {
    const account = await startedAccount(t, 'guard-bad');
    for (const setting of [{ maxLotSizeThreshold: -1 }, { maxOpenTimeSeconds: 1.5 }, { symbolsConfiguration: { EURUSD: { maxLotSizeThreshold: 'x' } } }]) {
      const res = await t.call('POST', `/accounts/${account}/features`, { body: { type: { id: 37 }, setting } });
      expect(res.status, JSON.stringify(setting)).to.equal(400);
      expect(res.body.error).to.be.a('string');
    }
    expect((await t.call('GET', `/accounts/${account}/features`)).body).to.deep.equal([]);
  });
});

describe('trade guardrails across a restart', function () {
  this.timeout(90_000);
  const clock = movableClock();

  it('finishes a close a crash cut short, with the same client request id: the venue closes once, the log says it once', async () => {
    const t = await startTestService({ clock });
    try {
      await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
      const account = await startedAccount(t, 'guard-crash');
      const login = simulatedLogin((await t.call('GET', `/accounts/${account}`)).body);
      const placed = await t.service.services.venues.desk((venue) => venue.terminalTrade(login, { symbol: 'EURUSD', orderType: 'buy', volume: 2 }));
      const positionId = placed.status === 'filled' ? placed.positionId! : '';
      await bookWhere(t, account, (b) => b.length === 1, 'the outside position');
      // As if an earlier run decided, sent the close, and died before recording the outcome.
      const decided: GuardrailEvent = {
        type: 'GuardrailCloseDecided',
        data: {
          accountId: account,
          featureId: 'f',
          copierId: null,
          positionId,
          symbol: 'EURUSD',
          side: 'Buy',
          volume: 2,
          openTime: clock().toISOString(),
          outside: true,
          rule: 'MAX_LOT_SIZE',
          reason: '2 lots, above maxLotSizeThreshold 1',
          at: clock().toISOString(),
        },
      };
      await t.service.services.store.appendToStream(guardrailStream(account), [
        { id: uuidv5(guardrailEventKey(decided), GUARDRAIL_NAMESPACE), type: decided.type, data: decided.data, metadata: {} },
      ]);
      const venue = t.service.services.venues.venueFor(1).connection({ login, password: 'secret-password' });
      await venue.connect();
      await venue.closePosition(positionId, undefined, guardrailCloseId(account, positionId));
      await venue.disconnect();
      await bookWhere(t, account, (b) => b.length === 0, 'closed by the cut-short run');
      // The next run watches the account (a guardrail on it) and takes the decision up again.
      await addFeature(t, `/accounts/${account}`, { type: 'FeatureTradeGuardrailsDTO', maxLotSizeThreshold: 1 });
      const entry = await guardrailLogOf(t, account, positionId);
      expect(entry.text).to.match(new RegExp(`^Trade guardrail closed #${positionId} \\(Buy 2 lots EURUSD, placed outside the service\\) at 1\\.085, result`));
      const trades = await t.service.services.venues.desk(async (v) => {
        const c = v.connection({ login, password: 'secret-password' });
        await c.connect();
        const entries = await c.history(new Date(0).toISOString(), new Date(clock().getTime() + 86_400_000).toISOString());
        await c.disconnect();
        return entries.filter((e) => e.kind === 'trade');
      });
      expect(trades, 'one closing trade').to.have.length(1);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(
        (await logsOf(t, account)).filter((l) => GUARDRAIL_CODES.includes(l.code ?? '')),
        'one log entry',
      ).to.have.length(1);
    } finally {
      await t.stop();
    }
  });

  it('closes nothing twice and logs each close once after the service restarts', async () => {
    let t = await startTestService({ clock });
    const { databaseUrl, dataDir } = t;
    try {
      await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
      const account = await startedAccount(t, 'guard-restart');
      const login = simulatedLogin((await t.call('GET', `/accounts/${account}`)).body);
      const outside = await t.service.services.venues.desk((venue) => venue.terminalTrade(login, { symbol: 'EURUSD', orderType: 'buy', volume: 2 }));
      const ours = await openPosition(t, account, { symbol: 'EURUSD', orderType: 'Sell', volume: 2 });
      await addFeature(t, `/accounts/${account}`, { type: 'FeatureTradeGuardrailsDTO', maxLotSizeThreshold: 1 });
      await bookWhere(t, account, (b) => b.length === 0, 'both closed', 10_000);
      const logged = async () => (await logsOf(t, account)).filter((l) => l.code === 'GUARDRAIL_MAX_LOT_SIZE');
      await eventually(async () => ((await logged()).length === 2 ? true : undefined), 10_000, 'two guardrail log entries');
      const trades = async () => {
        const history = await t.service.services.venues.desk((venue) => venue.connection({ login, password: 'secret-password' }));
        await history.connect();
        const entries = await history.history(new Date(0).toISOString(), new Date(clock().getTime() + 86_400_000).toISOString());
        await history.disconnect();
        return entries.filter((e) => e.kind === 'trade').map((e) => (e.kind === 'trade' ? e.positionId : ''));
      };
      expect((await trades()).sort()).to.deep.equal([outside.status === 'filled' ? outside.positionId : '', ours].sort());

      await t.stop();
      // The restarted service closes a new outside position once, and nothing it closed before.
      t = await startTestService({ clock, databaseUrl, dataDir });
      await bookWhere(t, account, (b) => b.length === 0, 'still flat');
      const late = await t.service.services.venues.desk((venue) => venue.terminalTrade(login, { symbol: 'EURUSD', orderType: 'buy', volume: 1.5 }));
      await bookWhere(t, account, (b) => b.length === 0, 'the late outside position closed', 10_000);
      await eventually(async () => ((await logged()).length === 3 ? true : undefined), 10_000, 'a third guardrail log entry');
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const entries = await logged();
      expect(entries, 'one entry per close').to.have.length(3);
      expect(new Set(entries.map((l) => l.positionId)).size).to.equal(3);
      const closedTrades = await trades();
      expect(closedTrades, 'one closing trade per position at the venue').to.have.length(3);
      expect(closedTrades).to.include(late.status === 'filled' ? late.positionId : 'none');
    } finally {
      await t.stop();
    }
  });
});
