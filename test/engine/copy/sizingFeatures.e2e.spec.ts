// The sizing and risk features at work, over HTTP against the simulated venue: the margin cap (both
// behaviors, both kinds, following the balance), the Masaniello series and its reset endpoint, the
// guardrail's time limit on a copier (test/api/tradeGuardrails.e2e.spec.ts has the rest) and the signal
// follower's monitor-only. A demo account holds 10,000 USD at 1:100; one lot of EURUSD (100,000 EUR at
// about 1.085) needs about 1,085 USD of margin.
import { expect } from 'chai';
import { simulatedLogin } from '../../../engine/venues/host.js';
import { startTestService, type TestService } from '../../support/service.js';
import * as trading from '../../support/trading.js';
import { bookWhere, eventually, featureBody, type LogEntry, marketHoursClock, pinQuotes, positionsOf, startedAccount } from '../../support/trading.js';

describe('sizing features end to end', function () {
  this.timeout(60_000);
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock: marketHoursClock() });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851], GBPUSD: [1.27, 1.27009] });
  });
  after(() => t?.stop());

  const pair = (name: string, copierBody: Record<string, unknown> = {}) => trading.copyPair(t, name, copierBody);
  const feature = (slave: string, copierId: string, featureSetting: Record<string, unknown>) =>
    trading.addFeature(t, `/accounts/${slave}/copiers/${copierId}`, featureSetting);
  const open = (accountId: string, body: Record<string, unknown>) => trading.openPosition(t, accountId, body);
  const close = async (master: string, slave: string, positionId: string) => {
    expect((await t.call('DELETE', `/accounts/${master}/positions/${positionId}`)).status).to.equal(204);
    await bookWhere(t, slave, (b) => b.length === 0, 'the copy closed');
  };
  const logsWith = async (accountId: string, code: string) =>
    ((await t.call('GET', `/accounts/${accountId}/logs`)).body as LogEntry[]).filter((l) => l.code === code);
  const logWith = (accountId: string, code: string) => eventually(async () => (await logsWith(accountId, code))[0], 5000, `a ${code} log entry`);

  describe('FeatureMarginCapDTO', () => {
    it('PER_TRADE with REDUCE_LOT_SIZE opens the most that fits in the cap, and the cap follows the balance', async () => {
      const { master, slave, copierId } = await pair('cap-reduce');
      await feature(slave, copierId, { type: 'FeatureMarginCapDTO', marginCapPercentage: 5, kind: 'PER_TRADE', behavior: 'REDUCE_LOT_SIZE' });
      // 5 % of 10,000 = 500 USD: 500 / 1,085 = 0.46 lots.
      await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 1 });
      const [first] = await bookWhere(t, slave, (b) => b.length === 1, 'the reduced copy');
      expect(first!.volume).to.equal(0.46);
      // 10,000 more: 1,000 USD of margin, 0.92 lots; PER_TRADE does not count the first copy's margin.
      const login = simulatedLogin((await t.call('GET', `/accounts/${slave}`)).body);
      await t.service.services.venues.desk((venue) => venue.deposit(login, 10_000, 'second deposit'));
      await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 1 });
      const book = await bookWhere(t, slave, (b) => b.length === 2, 'the second copy');
      expect(book.map((p) => p.volume).sort()).to.deep.equal([0.46, 0.92]);
    });

    it('PER_TRADE with SKIP_TRADE skips an open over the cap and copies one inside it', async () => {
      const { master, slave, copierId } = await pair('cap-skip');
      await feature(slave, copierId, { type: 'FeatureMarginCapDTO', marginCapPercentage: 5, kind: 'PER_TRADE', behavior: 'SKIP_TRADE' });
      await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 1 });
      const skip = await logWith(slave, 'MARGIN_CAP');
      expect(skip.text).to.match(/1 lots of EURUSD need 108\d\.?\d* USD margin above the cap of 5 % of the balance \(500\)/);
      expect(await positionsOf(t, slave)).to.deep.equal([]);
      await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.4 });
      const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy inside the cap');
      expect(copy!.volume).to.equal(0.4);
    });

    it('CUMULATIVE counts the margin the account already uses', async () => {
      const { master, slave, copierId } = await pair('cap-cumulative');
      await feature(slave, copierId, { type: 'FeatureMarginCapDTO', marginCapPercentage: 5 });
      await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.3 });
      await bookWhere(t, slave, (b) => b.length === 1, 'the first copy, inside the cap');
      // About 325.5 in use: (500 - 325.5) / 1,085 = 0.16 lots.
      await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.3 });
      const book = await bookWhere(t, slave, (b) => b.length === 2, 'the reduced second copy');
      expect(book.map((p) => p.volume).sort()).to.deep.equal([0.16, 0.3]);
    });
  });

  describe('FeatureMasanielloDTO', () => {
    // The reference's members. The bankroll: 11 % of the slave's balance of 10,000 = 1,100; 4 events, 2 wins
    // expected, a win pays 1R and a loss costs 1R (p 1/2, P(4,2) = 11/16); target +100 % of the bankroll, so
    // the whole bankroll is at risk (1,100 x 11/16 / (5/16) would be more). 10,000 points of risk: a lot
    // of EURUSD risks 10,000 USD. Lots rounded to the nearest 0.01:
    //   first stake 1,100 x (P(3,1) - P(3,2)) / (2 x 11/16) = 1,100 x 3/11 = 300 -> 0.03 lots; after a small
    //   loss x (spread and commission, under 10 USD), n 3, k 2: (1,100 - x) / 2 -> 0.05; after a second,
    //   n 2, k 2: all of 1,100 - 2x -> 0.11.
    const series = {
      type: 'FeatureMasanielloDTO',
      totalEvents: 4,
      expectedWins: 2,
      bankrollBase: 'BALANCE',
      bankrollPercentage: 11,
      targetProfitPercentage: 100,
      payoutModel: 'R_MULTIPLE',
      outcomePolicy: 'SIGN',
      winThresholdBase: 'RISK',
      partialWinPolicy: 'IGNORE',
      lotRoundingMode: 'NEAREST',
      assumedPointRisk: 10_000,
    };
    it('sizes the series from the closed copies and starts it over on PUT .../masaniello/{id}/reset', async () => {
      const { master, slave, copierId } = await pair('masaniello');
      const featureId = await feature(slave, copierId, series);
      const stored = (await t.call('GET', `/accounts/${slave}/copiers/${copierId}/features/${featureId}`)).body.setting as Record<string, unknown>;
      expect(stored).to.deep.include({
        totalEvents: 4,
        bankrollPercentage: 11,
        lotStep: 0.01,
        expectedWinsValid: true,
        autoTuneBoundsValid: true,
        symbolsConfiguration: {},
      });
      const reset = (query = '') => t.call('PUT', `/accounts/${slave}/masaniello/${featureId}/reset${query}`);

      const a = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.5 });
      expect((await bookWhere(t, slave, (b) => b.length === 1, 'the first stake'))[0]!.volume).to.equal(0.03);
      await close(master, slave, a);
      const b = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.5 });
      expect((await bookWhere(t, slave, (x) => x.length === 1, 'the stake after a loss'))[0]!.volume).to.equal(0.05);
      await close(master, slave, b);

      // Another symbol's reset leaves the EURUSD series alone.
      expect((await reset('?symbol=GBPUSD')).status).to.equal(200);
      await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.5 });
      expect((await bookWhere(t, slave, (x) => x.length === 1, 'the all-in stake'))[0]!.volume).to.equal(0.11);

      // The symbol's reset: the two losses no longer count (the open copy has no result yet).
      expect((await reset('?symbol=EURUSD')).status).to.equal(200);
      await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.5 });
      const book = await bookWhere(t, slave, (x) => x.length === 2, 'the first stake of a new series');
      expect(book.map((p) => p.volume).sort()).to.deep.equal([0.03, 0.11]);
    });

    it('partialWinPolicy counts a copy partly closed in profit and then closed at a loss as the policy says', async () => {
      // Each copy: 0.03 opened at 1.0851; 0.02 closed by hand on the slave at 1.0900 (+9.80), the last 0.01
      // closed with the master at 1.0500 (-35.10): a net loss, more volume closed in profit than in loss.
      // The next stake: after a win (n 3, k 1) c / 7 -> 0.02; after a loss (n 3, k 2) c / 2 -> 0.05.
      const expected = { IGNORE: 0.05, COUNT_AS_WIN: 0.02, COUNT_AS_LOSS: 0.05, PROPORTIONAL: 0.02 } as const;
      const pairs = await Promise.all(
        Object.keys(expected).map(async (policy) => {
          const p = await pair(`masaniello-partial-${policy}`);
          await feature(p.slave, p.copierId, { ...series, partialWinPolicy: policy });
          return { ...p, policy: policy as keyof typeof expected };
        }),
      );
      try {
        const opened = [];
        for (const p of pairs) {
          const master = await open(p.master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.5 });
          const [copy] = await bookWhere(t, p.slave, (b) => b.length === 1, 'the first stake');
          expect(copy!.volume).to.equal(0.03);
          opened.push({ ...p, masterPosition: master, copy: copy! });
        }
        await pinQuotes(t, { EURUSD: [1.09, 1.0901] });
        for (const p of opened) {
          expect((await trading.modifyPosition(t, p.slave, p.copy.id, { volume: 0.01 })).status).to.equal(204);
          await bookWhere(t, p.slave, (b) => b[0]?.volume === 0.01, 'the partial close by hand');
        }
        await pinQuotes(t, { EURUSD: [1.05, 1.0501] });
        for (const p of opened) await close(p.master, p.slave, p.masterPosition);
        await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
        for (const p of opened) {
          await open(p.master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.5 });
          const [next] = await bookWhere(t, p.slave, (b) => b.length === 1, `the stake after the partly closed copy (${p.policy})`);
          expect(next!.volume, p.policy).to.equal(expected[p.policy]);
        }
      } finally {
        await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
      }
    });

    it('the reset endpoint answers 404 for a feature that is not a Masaniello of the account', async () => {
      const { slave, copierId } = await pair('masaniello-404');
      const other = await feature(slave, copierId, { type: 'FeatureMarginCapDTO', marginCapPercentage: 5 });
      expect((await t.call('PUT', `/accounts/${slave}/masaniello/${other}/reset`)).status).to.equal(404);
      // The reference's required members; every other one takes its default.
      const masaniello = await feature(slave, copierId, {
        type: 'FeatureMasanielloDTO',
        bankrollBase: 'EQUITY',
        lotRoundingMode: 'DOWN',
        outcomePolicy: 'THRESHOLD',
        partialWinPolicy: 'IGNORE',
        payoutModel: 'R_MULTIPLE',
        winThresholdBase: 'RISK',
      });
      const stranger = await startedAccount(t, 'masaniello-stranger');
      expect((await t.call('PUT', `/accounts/${stranger}/masaniello/${masaniello}/reset`)).status).to.equal(404);
      expect((await t.call('PUT', `/accounts/${slave}/masaniello/${masaniello}/reset`)).status).to.equal(200);
    });
  });

  describe('FeatureMultiplierDTO', () => {
    it('replaces the multiplier for every symbol, and GBPUSD sizes with its own fixed lot (symbolsConfiguration)', async () => {
      const { master, slave, copierId } = await pair('multiplier-symbols');
      const featureId = await feature(slave, copierId, {
        type: 'FeatureMultiplierDTO',
        multiplier: 2,
        symbolsConfiguration: { GBPUSD: { scaleType: { id: 3 }, fixedLotSize: 0.05 } },
      });
      const stored = await t.call('GET', `/accounts/${slave}/copiers/${copierId}/features/${featureId}`);
      // scaleType not set (the copier's own) is left out, as the reference types it as an object.
      expect(stored.body.setting).to.not.have.property('scaleType');
      expect(stored.body.setting).to.deep.include({
        multiplier: 2,
        fixedLotSize: 0.01,
        symbolsConfiguration: { GBPUSD: { scaleType: { id: 3, name: 'Fixed lot size' }, fixedLotSize: 0.05 } },
      });
      await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
      await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.1 });
      const book = await bookWhere(t, slave, (b) => b.length === 2, 'both copies');
      expect(book.map((p) => [p.symbol, p.volume]).sort()).to.deep.equal([
        ['EURUSD', 0.2],
        ['GBPUSD', 0.05],
      ]);
    });

    it('refuses an unknown scale type with 400 [VALIDATION_FAILED]', async () => {
      const { slave, copierId } = await pair('multiplier-bad-scale');
      const body = featureBody({ type: 'FeatureMultiplierDTO', symbolsConfiguration: { EURUSD: { scaleType: { id: 7 } } } });
      const res = await t.call('POST', `/accounts/${slave}/copiers/${copierId}/features`, { body });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.include({ error: '[VALIDATION_FAILED]' });
      expect(res.body.message).to.match(/symbolsConfiguration\.EURUSD: scaleType\.id 7 is no scale type/);
    });
  });

  describe('FeatureMaxLotSizeDTO', () => {
    it("symbolsConfiguration gives the slave's EURUSD its own cap; GBPUSD keeps the general one", async () => {
      const { master, slave, copierId } = await pair('max-lot-symbols');
      const featureId = await feature(slave, copierId, {
        type: 'FeatureMaxLotSizeDTO',
        maxLotSize: 0.5,
        symbolsConfiguration: { eurusd: { maxLotSize: 0.2 } },
      });
      const stored = await t.call('GET', `/accounts/${slave}/copiers/${copierId}/features/${featureId}`);
      expect(stored.body.setting).to.deep.include({ maxLotSize: 0.5, symbolsConfiguration: { eurusd: { maxLotSize: 0.2 } } });
      await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 1 });
      await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 1 });
      const book = await bookWhere(t, slave, (b) => b.length === 2, 'both copies');
      expect(book.map((p) => [p.symbol, p.volume]).sort()).to.deep.equal([
        ['EURUSD', 0.2],
        ['GBPUSD', 0.5],
      ]);
    });

    it('refuses a symbol configured twice in another case with 400 [VALIDATION_FAILED] and stores nothing', async () => {
      const { slave, copierId } = await pair('max-lot-twice');
      const body = featureBody({ type: 'FeatureMaxLotSizeDTO', maxLotSize: 1, symbolsConfiguration: { EURUSD: { maxLotSize: 1 }, eurusd: { maxLotSize: 2 } } });
      const res = await t.call('POST', `/accounts/${slave}/copiers/${copierId}/features`, { body });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('[VALIDATION_FAILED]');
      expect(res.body.message).to.match(/symbol eurusd is configured twice/);
      expect((await t.call('GET', `/accounts/${slave}/copiers/${copierId}/features`)).body).to.deep.equal([]);
    });
  });

  it("FeatureMaximumLotDTO's symbolsConfiguration caps the open lots on EURUSD; GBPUSD is under the general cap only", async () => {
    const { master, slave, copierId } = await pair('maximum-lot-symbols');
    await feature(slave, copierId, { type: 'FeatureMaximumLotDTO', maximumLot: 2, symbolsConfiguration: { EURUSD: { maximumLot: 0.3 } } });
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.2 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the first EURUSD copy');
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.2 });
    const skipped = await logWith(slave, 'MAXIMUM_LOT_REACHED');
    expect(skipped.text).to.match(/open lots on EURUSD to 0\.4, above its maximum 0\.3/);
    await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.5 });
    const book = await bookWhere(t, slave, (b) => b.length === 2, 'the GBPUSD copy');
    expect(book.map((p) => [p.symbol, p.volume]).sort()).to.deep.equal([
      ['EURUSD', 0.2],
      ['GBPUSD', 0.5],
    ]);
  });

  it("FeatureMaxOpenPositionsDTO's symbolsConfiguration lets EURUSD hold one copy while GBPUSD takes two", async () => {
    const { master, slave, copierId } = await pair('max-open-symbols');
    await feature(slave, copierId, { type: 'FeatureMaxOpenPositionsDTO', maxOpenPositions: 3, symbolsConfiguration: { EURUSD: { maxOpenPositions: 1 } } });
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the EURUSD copy');
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    const skipped = await logWith(slave, 'MAX_OPEN_POSITIONS_REACHED');
    expect(skipped.text).to.match(/1 copies of this copier are open on EURUSD, the most allowed is 1/);
    await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.1 });
    await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.1 });
    const book = await bookWhere(t, slave, (b) => b.length === 3, 'two GBPUSD copies');
    expect(book.map((p) => p.symbol).sort()).to.deep.equal(['EURUSD', 'GBPUSD', 'GBPUSD']);
  });

  it('FeatureTradeGuardrailsDTO closes a copy held longer than maxOpenTimeSeconds while the master keeps its position', async () => {
    const { master, slave, copierId } = await pair('guardrail');
    await feature(slave, copierId, { type: 'FeatureTradeGuardrailsDTO', maxOpenTimeSeconds: 1 });
    await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.1 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    await bookWhere(t, slave, (b) => b.length === 0, 'the copy closed by the guardrail', 10_000);
    expect((await positionsOf(t, master)).map((p) => [p.symbol, p.volume])).to.deep.equal([['GBPUSD', 0.1]]);
    const closed = await eventually(
      async () => ((await t.call('GET', `/accounts/${slave}/logs`)).body as LogEntry[]).find((l) => l.code === 'GUARDRAIL_MAX_OPEN_TIME'),
      5000,
      'the log of the close',
    );
    expect(closed).to.deep.include({ copierId, positionId: copy!.id });
    expect(closed.text).to.match(/longer than maxOpenTimeSeconds 1$/);
  });

  it("FeatureTradeGuardrailsDTO's symbolsConfiguration gives GBPUSD its own time: its copy closes, the EURUSD copy stays", async () => {
    const { master, slave, copierId } = await pair('guardrail-symbols');
    await feature(slave, copierId, { type: 'FeatureTradeGuardrailsDTO', maxOpenTimeSeconds: 0, symbolsConfiguration: { GBPUSD: { maxOpenTimeSeconds: 1 } } });
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 2, 'both copies');
    const left = await bookWhere(t, slave, (b) => b.length === 1, 'the GBPUSD copy closed by the guardrail', 10_000);
    expect(left.map((p) => p.symbol)).to.deep.equal(['EURUSD']);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((await positionsOf(t, slave)).map((p) => p.symbol)).to.deep.equal(['EURUSD']);
  });

  it('a monitor-only copier opens nothing new but its features still manage its copies (CopierDTO monitorOnly)', async () => {
    const { master, slave, copierId } = await pair('monitor-manage');
    await open(master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy, before monitor-only');
    expect((await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body: { monitorOnly: true } })).status).to.equal(200);
    await open(master, { symbol: 'XAUUSD', orderType: 'Buy', volume: 0.01 });
    await logWith(slave, 'MONITOR_ONLY');
    await feature(slave, copierId, { type: 'FeatureTradeGuardrailsDTO', maxOpenTimeSeconds: 1 });
    await bookWhere(t, slave, (b) => b.length === 0, 'the copy closed by the guardrail', 10_000);
  });
});
