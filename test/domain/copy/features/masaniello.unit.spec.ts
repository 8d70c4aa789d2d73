import { expect } from 'chai';
import { marginCap } from '../../../../domain/copy/features/marginCap.js';
import { MASANIELLO_DEFAULTS, masaniello, masanielloSeries, outcomeOf, type MasanielloSettings } from '../../../../domain/copy/features/masaniello.js';
import { masanielloP, masanielloStakeShare, roundLot } from '../../../../domain/copy/features/masanielloFormula.js';
import { Decimal, exact } from '../../../../domain/shared/decimal.js';
import { given, masterOpened, symbolSpec } from '../given.js';
import { afterCopy, closedCopies } from './closedCopies.js';

// Worked examples. EURUSD's point is worth contract size 100,000 x 0.00001 = 1 USD a lot, and a trade
// risks assumedPointRisk 100 points: a lot risks 100 USD, lots = stake / 100. The slave's equity is
// 10,000 plus the results of the history, so the bankroll at the series start is 10 % of 10,000 = 1,000.
// P(n, k) is the chance of at least k wins in n at p = l / (w + l).
//
// Classic series: N 5, K 3, w 1, l 1 (p 1/2), target 100 % of the bankroll: P(5,3) = 1/2, so the
// capital at risk c = min(1000, 1000 x (1/2) / (1/2)) = 1000 and the stake is
// c x (P(n-1,k-1) - P(n-1,k)) / (2 P(n,k)):
//   trade 1: n 5, k 3: 1000 x (11/16 - 5/16) / (2 x 1/2) = 375 -> 3.75
//   lost 375 -> 625, n 4, k 3: 625 x (4/8 - 1/8) / (2 x 5/16) = 375 -> 3.75
//   won 375 -> 1000, n 3, k 2: 1000 x (3/4 - 1/4) / (2 x 1/2) = 500 -> 5
//   won 500 -> 1500, n 2, k 1: 1500 x (1 - 1/2) / (2 x 3/4) = 500 -> 5
//   won 500 -> 2000 = c / P(5,3): three wins, +1000 = the target. The next series: equity 11,000, bankroll
//   1,100, stake 412.5 -> 4.125 -> 4.12 (rounded down to the lot step).
describe('feature: FeatureMasanielloDTO', () => {
  const classic: Partial<MasanielloSettings> = { totalEvents: 5, expectedWins: 3, bankrollPercentage: 10, targetProfitPercentage: 100 };
  const settingsOf = (settings: Partial<MasanielloSettings> = {}): MasanielloSettings => ({
    ...MASANIELLO_DEFAULTS,
    symbolsConfiguration: {},
    ...classic,
    ...settings,
  });
  const configured = (settings: Partial<MasanielloSettings> = {}, resets: Record<string, string> = {}) => ({
    feature: masaniello,
    settings: settingsOf(settings),
    resets,
  });
  const account = (equity: number) => ({ balance: equity, equity, usedMargin: 0, freeMargin: equity, leverage: 100, currency: 'USD' });
  const sum = (results: readonly (number | null)[]) => results.reduce<number>((total, r) => total + (r ?? 0), 0);
  const lotAfter = (results: readonly (number | null)[], settings: Partial<MasanielloSettings> = {}, resets: Record<string, string> = {}) =>
    given({ features: [configured(settings, resets)], history: closedCopies(results), slaveAccount: account(10_000 + sum(results)) }).when(
      masterOpened({ volume: 1 }),
    );

  describe('the formula', () => {
    it('P(n, k) is the chance of at least k wins in n at p = l / (w + l)', () => {
      expect(masanielloP(5, 3, exact(1)).toFixed()).to.equal('0.5');
      expect(masanielloP(10, 6, exact(1)).toFixed()).to.equal(new Decimal(386).dividedBy(1024).toFixed());
      // w 0.75, l 1: p = 4/7; P(2,1) = 1 - (3/7)^2 = 40/49.
      expect(masanielloP(2, 1, exact(0.75)).toFixed()).to.equal(new Decimal(40).dividedBy(49).toFixed());
      // w 2, l 1: p = 1/3; P(5,3) = (10 x 4 + 5 x 2 + 1) / 243 = 17/81.
      expect(masanielloP(5, 3, exact(2)).toFixed()).to.equal(new Decimal(17).dividedBy(81).toFixed());
      expect(masanielloP(2, 3, exact(1)).toFixed()).to.equal('0');
      expect(masanielloP(4, 0, exact(1)).toFixed()).to.equal('1');
    });

    it('the stake share brings the capital to c / P(N, K) after K wins and to 0 after N - K + 1 losses, in any order', () => {
      // w 1, l 0.5 (expectedLossRMultiple -0.5): p = 1/3, N 2, K 1: P(2,1) = 5/9; share (1 - 1/3) / (1.5 x 5/9) = 0.8.
      expect(masanielloStakeShare(2, 1, exact(1), exact(0.5)).toFixed()).to.equal('0.8');
      // Win: 1 + 0.8 = 1.8 = 1 / P(2,1). Lose: 1 - 0.4 = 0.6, then all of it twice over: share 2, a win of 1.2 -> 1.8.
      expect(masanielloStakeShare(1, 1, exact(1), exact(0.5)).toFixed()).to.equal('2');
      expect(masanielloStakeShare(3, 0, exact(1)).toFixed()).to.equal('0');
      expect(masanielloStakeShare(2, 3, exact(1)).toFixed()).to.equal('0');
    });

    it('rounds to the lot step DOWN, UP or NEAREST, within the minimum and maximum lot', () => {
      const lots = exact(0.4937);
      const bounds = [exact(0.01), exact(10)] as const;
      expect(roundLot(lots, exact(0.01), 'DOWN', ...bounds).toFixed()).to.equal('0.49');
      expect(roundLot(lots, exact(0.01), 'UP', ...bounds).toFixed()).to.equal('0.5');
      expect(roundLot(lots, exact(0.01), 'NEAREST', ...bounds).toFixed()).to.equal('0.49');
      expect(roundLot(lots, exact(0.1), 'NEAREST', ...bounds).toFixed()).to.equal('0.5');
      expect(roundLot(exact(0.25), exact(0.1), 'NEAREST', ...bounds).toFixed()).to.equal('0.3');
      expect(roundLot(exact(0.003), exact(0.01), 'DOWN', ...bounds).toFixed()).to.equal('0.01');
      expect(roundLot(exact(12.5), exact(0.01), 'DOWN', ...bounds).toFixed()).to.equal('10');
    });
  });

  describe('the series', () => {
    it('stakes the hand-computed classic series, whatever the master lot, and starts the next one with the new bankroll', () => {
      given({ features: [configured()], slaveAccount: account(10_000) })
        .when(masterOpened({ volume: 0.2 }))
        .then([{ type: 'open', volume: 3.75 }]);
      lotAfter([-375]).then([{ type: 'open', volume: 3.75 }]);
      lotAfter([-375, 375]).then([{ type: 'open', volume: 5 }]);
      lotAfter([-375, 375, 500]).then([{ type: 'open', volume: 5 }]);
      lotAfter([-375, 375, 500, 500]).then([{ type: 'open', volume: 4.12 }]);
    });

    it('with the reference defaults (N 10, K 6, 5 % of the equity, target +50 %) risks what +50 % takes, not the whole bankroll', () => {
      // B 500, X 250, P(10,6) = 386/1024: c = 250 x 386/638 = 151.25; stake c x (P(9,5) - P(9,6)) / (2 P(10,6))
      // = 151.25 x (256/512 - 130/512) / (2 x 386/1024) = 250 x 252 / 1276 = 49.37 -> 0.4937 lots.
      const defaults = (settings: Partial<MasanielloSettings>) =>
        given({
          features: [{ feature: masaniello, settings: { ...MASANIELLO_DEFAULTS, symbolsConfiguration: {}, ...settings }, resets: {} }],
          slaveAccount: account(10_000),
        }).when(masterOpened({ volume: 1 }));
      defaults({}).then([{ type: 'open', volume: 0.49 }]);
      defaults({ lotRoundingMode: 'UP' }).then([{ type: 'open', volume: 0.5 }]);
      defaults({ lotStep: 0.1, lotRoundingMode: 'NEAREST' }).then([{ type: 'open', volume: 0.5 }]);
      defaults({ lotStep: 0.1 }).then([{ type: 'open', volume: 0.4 }]);
    });

    it('a smaller target risks less of the bankroll: +50 % of 1,000 in 3 of 5 risks c = 500', () =>
      // c = min(1000, 500 x (1/2) / (1/2)) = 500: stake 187.5 -> 1.875 -> 1.87.
      lotAfter([], { targetProfitPercentage: 50 }).then([{ type: 'open', volume: 1.87 }]));

    it('takes the bankroll of BALANCE, EQUITY (default) or FREE_MARGIN', () => {
      const figures = { balance: 10_000, equity: 12_000, usedMargin: 4000, freeMargin: 8000, leverage: 100, currency: 'USD' };
      const on = (bankrollBase: MasanielloSettings['bankrollBase']) =>
        given({ features: [configured({ bankrollBase })], slaveAccount: figures }).when(masterOpened({ volume: 1 }));
      on('BALANCE').then([{ type: 'open', volume: 3.75 }]);
      on('EQUITY').then([{ type: 'open', volume: 4.5 }]);
      on('FREE_MARGIN').then([{ type: 'open', volume: 3 }]);
    });

    it('PAYOUT_FACTOR 0.75: 1 win of 2 stakes (1 - 4/7) / (1.75 x 40/49) = 0.3 of the capital; the loss branch stakes all that is left', () => {
      const binary: Partial<MasanielloSettings> = { totalEvents: 2, expectedWins: 1, payoutModel: 'PAYOUT_FACTOR' };
      lotAfter([], binary).then([{ type: 'open', volume: 3 }]);
      // Lost 300: 700 left, one event that must win: the stake is 700 (a win of 525 brings 1225 = 1000 / (40/49)).
      lotAfter([-300], binary).then([{ type: 'open', volume: 7 }]);
    });

    it('expectedLossRMultiple -0.5: 1 win of 2 stakes 0.8 of the capital', () =>
      lotAfter([], { totalEvents: 2, expectedWins: 1, expectedLossRMultiple: -0.5 }).then([{ type: 'open', volume: 8 }]));

    it('REALIZED_R takes the mean R of the won trades in the statistics window', () => {
      // Copy 0 won 200 on 1 lot (risk 100: 2R), copy 1 lost 100; the reset after them starts a series with
      // w 2: p 1/3, P(5,3) = 17/81, bankroll 1010, c = min(1010, 1010 x 17/64) = 268.28; stake c x (33/81 - 9/81)
      // / (3 x 17/81) = 126.25 -> 1.26. R_MULTIPLE (w 1) stakes 1010 x 0.375 = 378.75 -> 3.78.
      lotAfter([200, -100], { payoutModel: 'REALIZED_R', outcomePolicy: 'SIGN' }, { '*': afterCopy(1) }).then([{ type: 'open', volume: 1.26 }]);
      lotAfter([200, -100], { outcomePolicy: 'SIGN' }, { '*': afterCopy(1) }).then([{ type: 'open', volume: 3.78 }]);
    });

    it('moves the capital by the real results, not the theoretical ones', () =>
      // Lost 100 only: 900 left, n 4, k 3: 900 x 0.6 = 540.
      lotAfter([-100]).then([{ type: 'open', volume: 5.4 }]));

    it('keeps one series per slave symbol', () =>
      given({
        features: [configured()],
        history: [...closedCopies([-375, 375], { symbol: 'GBPUSD' }), ...closedCopies([-375, -375])],
        slaveAccount: account(10_000 - 750),
      })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 2.5 }]));

    it('a reset of all or of the symbol starts the series over: copies closed before it no longer count', () => {
      // Lost 100, won 200: 1100 left, n 3, k 2: 1100 x 0.5 = 550.
      lotAfter([-100, 200]).then([{ type: 'open', volume: 5.5 }]);
      // Reset between them, only the win counts: base 10,100 - 200 (the series' result) -> bankroll 990,
      // c 990 + 200 = 1190, n 4, k 2: (P(3,1) - P(3,2)) / (2 P(4,2)) = (7/8 - 4/8) / (22/16) = 3/11 -> 324.5 -> 3.24.
      lotAfter([-100, 200], {}, { '*': afterCopy(0) }).then([{ type: 'open', volume: 3.24 }]);
      lotAfter([-100, 200], {}, { eurusd: afterCopy(0) }).then([{ type: 'open', volume: 3.24 }]);
      // Reset after both: a new series on base 10,100: 1010 x 0.375 = 378.75.
      lotAfter([-100, 200], {}, { EURUSD: afterCopy(1) }).then([{ type: 'open', volume: 3.78 }]);
      lotAfter([-100, 200], {}, { GBPUSD: afterCopy(1) }).then([{ type: 'open', volume: 5.5 }]);
    });
  });

  describe('outcomes', () => {
    // +30 on 1 lot (risk 100): a win by SIGN, break-even by THRESHOLD at 50 % of the risk.
    it('THRESHOLD at 50 % of the risk counts +30 as break-even (no event used); SIGN as a win', () => {
      // Break-even: c 1030, n 5, k 3: 1030 x 0.375 = 386.25 -> 3.86.
      lotAfter([30], { winThresholdPercentage: 50 }).then([{ type: 'open', volume: 3.86 }]);
      // Win: c 1030, n 4, k 2: 1030 x 3/11 = 280.9 -> 2.8.
      lotAfter([30], { outcomePolicy: 'SIGN' }).then([{ type: 'open', volume: 2.8 }]);
      lotAfter([30], { winThresholdPercentage: 30 }).then([{ type: 'open', volume: 2.8 }]);
      // An absolute threshold of 40 USD: break-even again.
      lotAfter([30], { winThresholdBase: 'ABSOLUTE', winThresholdPercentage: 40 }).then([{ type: 'open', volume: 3.86 }]);
    });

    it('with excludeBreakEvenTrades false a break-even trade uses an event without a win', () =>
      // c 1030, n 4, k 3: 1030 x 0.6 = 618 -> 6.18.
      lotAfter([30], { winThresholdPercentage: 50, excludeBreakEvenTrades: false }).then([{ type: 'open', volume: 6.18 }]));

    it('R_BASED: a win from half the expected R, a loss from half the expected loss', () => {
      lotAfter([30], { outcomePolicy: 'R_BASED' }).then([{ type: 'open', volume: 3.86 }]);
      // 0.6 R is a win: c 1060, n 4, k 2: 1060 x 3/11 = 289.1 -> 2.89.
      lotAfter([60], { outcomePolicy: 'R_BASED' }).then([{ type: 'open', volume: 2.89 }]);
    });

    it('does not count a cancelled pending order, nor a close at exactly 0', () => {
      lotAfter([0, null, -375, 375]).then([{ type: 'open', volume: 5 }]);
      lotAfter([-375, -375, 0]).then([{ type: 'open', volume: 2.5 }]);
    });
  });

  describe('partialWinPolicy', () => {
    const market = { pointValue: exact(1), contractSize: 100_000 };
    const outcome = (partialWinPolicy: MasanielloSettings['partialWinPolicy'], trade: Parameters<typeof outcomeOf>[1]) =>
      outcomeOf(settingsOf({ outcomePolicy: 'SIGN', partialWinPolicy }), trade, market, exact(1));
    const at = '2026-01-07T10:00:00.000Z';
    // A take profit on half (+50), the rest stopped out (-80): net -30, half the volume in profit.
    const tpThenStop = { closedAt: at, result: -30, volume: 0.5, closePrice: null, partials: [{ volume: 0.5, result: 50 }] };
    // +50 on 0.7 lots, -20 on the last 0.3: net +30.
    const mostlyWon = { closedAt: at, result: 30, volume: 0.3, closePrice: null, partials: [{ volume: 0.7, result: 50 }] };
    // -40 on 0.6 lots closed first, +100 on the last 0.4: net +60, no partial win.
    const mostlyLost = { closedAt: at, result: 60, volume: 0.4, closePrice: null, partials: [{ volume: 0.6, result: -40 }] };
    const whole = { closedAt: at, result: -30, volume: 1, closePrice: null };

    it('IGNORE (default) classifies a trade with partial closes by its net result', () => {
      expect(MASANIELLO_DEFAULTS.partialWinPolicy).to.equal('IGNORE');
      expect([tpThenStop, mostlyWon, mostlyLost].map((t) => outcome('IGNORE', t))).to.deep.equal(['loss', 'win', 'win']);
    });

    it('COUNT_AS_WIN counts a partial win as a win whatever its net result; a trade without one by its net result', () =>
      expect([tpThenStop, mostlyWon, mostlyLost].map((t) => outcome('COUNT_AS_WIN', t))).to.deep.equal(['win', 'win', 'win']));

    it('COUNT_AS_LOSS counts a partial win as a loss whatever its net result; a trade without one by its net result', () =>
      expect([tpThenStop, mostlyWon, mostlyLost].map((t) => outcome('COUNT_AS_LOSS', t))).to.deep.equal(['loss', 'loss', 'win']));

    it('PROPORTIONAL weighs each part by its volume: more in profit wins, more in loss loses, as much is break-even', () =>
      expect([tpThenStop, mostlyWon, mostlyLost].map((t) => outcome('PROPORTIONAL', t))).to.deep.equal(['breakEven', 'win', 'loss']));

    it('a trade without partial closes counts by outcomePolicy under every value', () => {
      for (const policy of ['IGNORE', 'COUNT_AS_WIN', 'COUNT_AS_LOSS', 'PROPORTIONAL'] as const) {
        expect(outcome(policy, whole), policy).to.equal('loss');
        expect(outcome(policy, { ...whole, partials: [] }), policy).to.equal('loss');
      }
    });

    it('the series counts the partial win by the policy: with COUNT_AS_WIN it uses one of the wins needed, with IGNORE none', () => {
      const account = { balance: 10_000, equity: 10_000, freeMargin: 10_000 };
      const series = (partialWinPolicy: MasanielloSettings['partialWinPolicy']) =>
        masanielloSeries(settingsOf({ outcomePolicy: 'SIGN', partialWinPolicy }), [tpThenStop], account, market, null);
      expect([series('IGNORE').eventsLeft, series('IGNORE').winsNeeded]).to.deep.equal([4, 3]);
      expect([series('COUNT_AS_WIN').eventsLeft, series('COUNT_AS_WIN').winsNeeded]).to.deep.equal([4, 2]);
      expect([series('COUNT_AS_LOSS').eventsLeft, series('COUNT_AS_LOSS').winsNeeded]).to.deep.equal([4, 3]);
      // Break-even uses no event (excludeBreakEvenTrades, the default).
      expect([series('PROPORTIONAL').eventsLeft, series('PROPORTIONAL').winsNeeded]).to.deep.equal([5, 3]);
    });
  });

  describe('the end of a series', () => {
    it('stakes all that is left when every remaining trade must win, and starts over when the bankroll is depleted', () => {
      lotAfter([-375, -375]).then([{ type: 'open', volume: 2.5 }]);
      // Lost it all: equity 9,000, bankroll 900.
      lotAfter([-375, -375, -250]).then([{ type: 'open', volume: 3.37 }]);
      lotAfter([-375, -375, -250], { resetOnBankrollDepleted: false }).thenSkips('MASANIELLO_SERIES_OVER', /bankroll is depleted/);
    });

    it('autoResetOnSeriesComplete false: when the wins can no longer come, opens are skipped until a reset', () => {
      lotAfter([-100, -100, -100], { autoResetOnSeriesComplete: false }).thenSkips('MASANIELLO_SERIES_OVER', /3 wins needed in 2 events left/);
      // Equity 9,700: bankroll 970, 970 x 0.375 = 363.75.
      lotAfter([-100, -100, -100]).then([{ type: 'open', volume: 3.63 }]);
      lotAfter([-100, -100, -100], { autoResetOnSeriesComplete: false }, { '*': afterCopy(2) }).then([{ type: 'open', volume: 3.63 }]);
    });

    it('resetOnTargetReached false: K wins, or the target profit early, skip every open until a reset', () => {
      lotAfter([-375, 375, 500, 500], { resetOnTargetReached: false }).thenSkips(
        'MASANIELLO_SERIES_OVER',
        /series of EURUSD ended at .* \(3 of 3 wins reached\)/,
      );
      lotAfter([1200], { outcomePolicy: 'SIGN', resetOnTargetReached: false }).thenSkips('MASANIELLO_SERIES_OVER', /target profit 1000 reached/);
      // With the flag, a new series on equity 11,200: 1120 x 0.375 = 420.
      lotAfter([1200], { outcomePolicy: 'SIGN' }).then([{ type: 'open', volume: 4.2 }]);
    });

    it('maxConsecutiveLosses ends the series after that many losses in a row', () =>
      // Two losses: a new series on equity 9,250: 925 x 0.375 = 346.875 -> 3.46.
      lotAfter([-375, -375], { maxConsecutiveLosses: 2 }).then([{ type: 'open', volume: 3.46 }]));

    it('cooldownAfterResetMinutes skips opens after an end or a reset for that long', () => {
      // The second loss closed at 08:03; now is 10:00.
      lotAfter([-375, -375], { maxConsecutiveLosses: 2, cooldownAfterResetMinutes: 60 }).then([{ type: 'open', volume: 3.46 }]);
      lotAfter([-375, -375], { maxConsecutiveLosses: 2, cooldownAfterResetMinutes: 120 }).thenSkips(
        'MASANIELLO_COOLDOWN',
        /starts again at 2026-01-07T10:03:00.000Z/,
      );
      lotAfter([-375], { cooldownAfterResetMinutes: 120 }, { '*': afterCopy(0) }).thenSkips('MASANIELLO_COOLDOWN');
    });
  });

  describe('the historical win rate', () => {
    // Before the reset: 1 win and 3 losses (SIGN): h = 1/4. After it, equity 9,800: bankroll 980.
    const history = [100, -100, -100, -100];
    const adjusted = (settings: Partial<MasanielloSettings>) =>
      lotAfter(history, { outcomePolicy: 'SIGN', useHistoricalWinRate: true, minimumTradesForHistoricalWinRate: 4, ...settings }, { '*': afterCopy(3) });

    it('adjusts K to the smoothed win rate once enough trades are known', () => {
      // s 1: K = round(5 x 1/4) = 1: P(5,1) = 31/32, stake 980 x (1 - 15/16) / (2 x 31/32) = 980/31 = 31.6 -> 0.31.
      adjusted({ winRateSmoothingFactor: 1 }).then([{ type: 'open', volume: 0.31 }]);
      // s 0.3: K = round(5 x (0.7 x 3/5 + 0.3 x 1/4)) = round(2.475) = 2: 980 x (15/16 - 11/16) / (2 x 26/32) = 150.8 -> 1.5.
      adjusted({}).then([{ type: 'open', volume: 1.5 }]);
      // Bounded by minExpectedWins.
      adjusted({ winRateSmoothingFactor: 1, minExpectedWins: 2 }).then([{ type: 'open', volume: 1.5 }]);
    });

    it('keeps expectedWins with too few trades, or without the flag', () => {
      adjusted({ minimumTradesForHistoricalWinRate: 5 }).then([{ type: 'open', volume: 3.67 }]);
      adjusted({ useHistoricalWinRate: false }).then([{ type: 'open', volume: 3.67 }]);
    });
  });

  describe('lots', () => {
    it("turns the stake into lots with the broker's value of a point, else contract size x point", () => {
      given({ features: [configured()], slaveAccount: account(10_000), pointValue: 2 })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 1.87 }]);
      // USDJPY: 100,000 x 0.001 = 100 a point a lot: 375 / (100 x 100) = 0.0375 -> 0.03.
      given({ features: [configured()], slaveAccount: account(10_000), slaveSymbols: [symbolSpec({ symbol: 'USDJPY', digits: 3, point: 0.001 })] })
        .when(masterOpened({ symbol: 'USDJPY', volume: 1 }))
        .then([{ type: 'open', volume: 0.03 }]);
    });

    it('bounds the lot by maximumLotSize and raises it to minimumLotSize', () => {
      lotAfter([], { maximumLotSize: 2 }).then([{ type: 'open', volume: 2 }]);
      lotAfter([], { targetProfitPercentage: 1, minimumLotSize: 0.5 }).then([{ type: 'open', volume: 0.5 }]);
    });

    it("replaces the copier's sizing but stays within its maxLotSize and a margin cap", () => {
      given({
        settings: { multiplier: 7, martingaleStrategy: true, maxLotSize: 2 },
        slave: { martingale: { consecutiveLosses: 2 } },
        features: [configured()],
        slaveAccount: account(10_000),
      })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 2 }]);
      given({
        features: [configured(), { feature: marginCap, settings: { marginCapPercentage: 10, kind: 'PER_TRADE' } }],
        slaveAccount: account(10_000),
        marginPerLot: 1000,
      })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 1 }]);
    });

    it('gives a symbol its own members through symbolsConfiguration', () => {
      // EURUSD: 1 win of 2 at p 1/2: P(2,1) = 3/4, c = min(1000, 1000 x 3) = 1000, stake 1000 x (1 - 1/2) / (2 x 3/4) = 333.3.
      lotAfter([], { symbolsConfiguration: { eurusd: { totalEvents: 2, expectedWins: 1 } } }).then([{ type: 'open', volume: 3.33 }]);
      lotAfter([], { symbolsConfiguration: { GBPUSD: { totalEvents: 2, expectedWins: 1 } } }).then([{ type: 'open', volume: 3.75 }]);
    });
  });

  it('refuses more expected wins than events, crossed bounds and a loss of 0 R; answers the validity flags as true', () => {
    const check = (settings: Partial<MasanielloSettings>) => masaniello.check!(settingsOf(settings));
    expect(check({ totalEvents: 3, expectedWins: 4 })).to.equal('expectedWins 4 is above totalEvents 3');
    expect(check({ totalEvents: 3, expectedWins: 3 })).to.equal(null);
    expect(check({ minExpectedWins: 5, maxExpectedWins: 4 })).to.match(/minExpectedWins 5 is above maxExpectedWins 4/);
    expect(check({ minimumLotSize: 20, maximumLotSize: 10 })).to.match(/minimumLotSize/);
    expect(check({ expectedLossRMultiple: 0 })).to.match(/below 0/);
    expect(check({ symbolsConfiguration: { EURUSD: { expectedWins: 9 } } })).to.match(/symbolsConfiguration\.EURUSD: expectedWins 9 is above totalEvents 5/);
    expect(masaniello.stateMembers).to.deep.equal(['autoTuneBoundsValid', 'expectedWinsValid']);
    expect(masaniello.defaults).to.deep.include({
      autoTuneBoundsValid: true,
      expectedWinsValid: true,
      bankrollBase: 'EQUITY',
      totalEvents: 10,
      expectedWins: 6,
    });
  });
});
