import { expect } from 'chai';
import { marginCap } from '../../../../domain/copy/features/marginCap.js';
import { masaniello, masanielloP, type MasanielloSettings } from '../../../../domain/copy/features/masaniello.js';
import { Decimal, exact } from '../../../../domain/shared/decimal.js';
import { given, masterOpened, symbolSpec } from '../given.js';
import { afterCopy, closedCopies } from './closedCopies.js';

// Capital 1000, 5 trades, 3 wins expected at odds 2 (p = 1/2), 100 points of risk a trade. EURUSD's point
// is worth contract size 100,000 x 0.00001 = 1 USD a lot, so a lot risks 100 USD: lots = stake / 100.
// By hand, with P(n, k) = (number of ways to win at least k of n) / 2^n:
//   trade 1: n 5, k 3: stake = 1000 x (1 - P(4,3) / P(5,3)) = 1000 x (1 - (5/16) / (16/32)) = 375 -> 3.75
//   lost 375 -> 625, n 4, k 3: 625 x (1 - (1/8) / (5/16)) = 375 -> 3.75
//   won 375 -> 1000, n 3, k 2: 1000 x (1 - (1/4) / (4/8)) = 500 -> 5
//   won 500 -> 1500, n 2, k 1: 1500 x (1 - (1/2) / (3/4)) = 500 -> 5
//   won 500 -> 2000 = 1000 / P(5,3): three wins, the series is over; the next trade starts again (3.75).
// The losing branch: lost twice -> 250, n 3, k 3: the stake is all that is left (2.5); lost three times:
// 3 wins in 2 trades cannot come, the series is over.
describe('feature: FeatureMasanielloDTO', () => {
  const series: MasanielloSettings = { capital: 1000, trades: 5, expectedWins: 3, odds: 2, assumedPointRisk: 100, restartSeriesAutomatically: true };
  const configured = (settings: Partial<MasanielloSettings> = {}, resets: Record<string, string> = {}) => ({
    feature: masaniello,
    settings: { ...series, ...settings },
    resets,
  });
  const lotAfter = (results: readonly (number | null)[], settings: Partial<MasanielloSettings> = {}, resets: Record<string, string> = {}) =>
    given({ features: [configured(settings, resets)], history: closedCopies(results) }).when(masterOpened({ volume: 1 }));

  it('P(n, k) is the chance of at least k wins in n at 1 / odds', () => {
    expect(masanielloP(5, 3, exact(2)).toFixed()).to.equal('0.5');
    expect(masanielloP(2, 1, exact(3)).toFixed()).to.equal(new Decimal(5).dividedBy(9).toFixed());
    expect(masanielloP(2, 3, exact(2)).toFixed()).to.equal('0');
    expect(masanielloP(4, 0, exact(2)).toFixed()).to.equal('1');
  });

  it('stakes the hand-computed series, whatever the master lot', () => {
    given({ features: [configured()] })
      .when(masterOpened({ volume: 0.2 }))
      .then([{ type: 'open', volume: 3.75 }]);
    lotAfter([-375]).then([{ type: 'open', volume: 3.75 }]);
    lotAfter([-375, 375]).then([{ type: 'open', volume: 5 }]);
    lotAfter([-375, 375, 500]).then([{ type: 'open', volume: 5 }]);
  });

  it('starts a new series once the expected wins are reached', () => lotAfter([-375, 375, 500, 500]).then([{ type: 'open', volume: 3.75 }]));

  it('stakes all that is left when every remaining trade must win, and starts over when the wins can no longer come', () => {
    lotAfter([-375, -375]).then([{ type: 'open', volume: 2.5 }]);
    lotAfter([-375, -375, -250]).then([{ type: 'open', volume: 3.75 }]);
  });

  it('moves the capital by the real results, not the theoretical ones', () =>
    // Lost 100 only: 900 left, n 4, k 3: 900 x 3/5 = 540.
    lotAfter([-100]).then([{ type: 'open', volume: 5.4 }]));

  it('does not count a close at exactly 0 or a cancelled pending order', () => {
    lotAfter([0, null, -375, 375]).then([{ type: 'open', volume: 5 }]);
    lotAfter([-375, -375, 0]).then([{ type: 'open', volume: 2.5 }]);
  });

  it('keeps one series per slave symbol', () =>
    given({ features: [configured()], history: [...closedCopies([-375, 375], { symbol: 'GBPUSD' }), ...closedCopies([-375, -375])] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2.5 }]));

  it('a reset of all or of the symbol starts the series over: copies closed before it no longer count', () => {
    // Lost 100, won 200: 1100 left, n 3, k 2: 1100 x (1 - (1/4) / (4/8)) = 550.
    lotAfter([-100, 200]).then([{ type: 'open', volume: 5.5 }]);
    // Reset between them, only the win counts: 1200, n 4, k 2: 1200 x (1 - (4/8) / (11/16)) = 327.27.
    lotAfter([-100, 200], {}, { '*': afterCopy(0) }).then([{ type: 'open', volume: 3.27 }]);
    lotAfter([-100, 200], {}, { eurusd: afterCopy(0) }).then([{ type: 'open', volume: 3.27 }]);
    lotAfter([-100, 200], {}, { EURUSD: afterCopy(1) }).then([{ type: 'open', volume: 3.75 }]);
  });

  it("another symbol's reset leaves this series alone; the later of two resets counts", () => {
    lotAfter([-100, 200], {}, { GBPUSD: afterCopy(1) }).then([{ type: 'open', volume: 5.5 }]);
    lotAfter([-100, 200], {}, { '*': afterCopy(0), EURUSD: afterCopy(1) }).then([{ type: 'open', volume: 3.75 }]);
    lotAfter([-100, 200], {}, { '*': afterCopy(1), EURUSD: afterCopy(0) }).then([{ type: 'open', volume: 3.75 }]);
  });

  it('without automatic restart an ended series skips every open until it is reset', () => {
    lotAfter([-375, 375, 500, 500], { restartSeriesAutomatically: false }).thenSkips(
      'MASANIELLO_SERIES_OVER',
      /series of EURUSD ended at .* \(3 of 3 wins reached\)/,
    );
    lotAfter([-375, -375, -250], { restartSeriesAutomatically: false }).thenSkips('MASANIELLO_SERIES_OVER', /3 wins needed in 2 trades left/);
    lotAfter([-375, 375, 500, 500], { restartSeriesAutomatically: false }, { '*': afterCopy(3) }).then([{ type: 'open', volume: 3.75 }]);
  });

  it('other odds: 1 win of 2 at odds 3 stakes 1 - P(1,1) / P(2,1) = 1 - (1/3) / (5/9) = 2/5 of the capital', () =>
    lotAfter([], { trades: 2, expectedWins: 1, odds: 3 }).then([{ type: 'open', volume: 4 }]));

  it("turns the stake into lots with the slave symbol's value of a point (contract size x point)", () =>
    // USDJPY: 100,000 x 0.001 = 100 (taken as account currency) a point a lot: 375 / (100 x 100) = 0.0375 -> 0.03.
    given({ features: [configured()], slaveSymbols: [symbolSpec({ symbol: 'USDJPY', digits: 3, point: 0.001 })] })
      .when(masterOpened({ symbol: 'USDJPY', volume: 1 }))
      .then([{ type: 'open', volume: 0.03 }]));

  it("replaces the copier's sizing but stays within its maxLotSize and a margin cap", () => {
    given({ settings: { multiplier: 7, martingaleStrategy: true, maxLotSize: 2 }, slave: { martingale: { consecutiveLosses: 2 } }, features: [configured()] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2 }]);
    const account = { balance: 10_000, equity: 10_000, usedMargin: 0, freeMargin: 10_000, leverage: 100, currency: 'USD' };
    given({
      features: [configured(), { feature: marginCap, settings: { marginCapPercentage: 10, kind: 'PER_TRADE' } }],
      slaveAccount: account,
      marginPerLot: 1000,
    })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1 }]);
  });

  it('refuses more expected wins than trades', () => {
    expect(masaniello.check!({ ...series, trades: 3, expectedWins: 4 })).to.equal('expectedWins 4 is above trades 3');
    expect(masaniello.check!({ ...series, trades: 3, expectedWins: 3 })).to.equal(null);
  });
});
