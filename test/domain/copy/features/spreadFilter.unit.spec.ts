import { expect } from 'chai';
import { spreadFilter } from '../../../../domain/copy/features/spreadFilter.js';
import { given, masterClosed, masterOpened, NOW, slaveCopy } from '../given.js';

describe('feature: FeatureSpreadFilterDTO', () => {
  const filter = (settings: Record<string, unknown>) => ({ feature: spreadFilter, settings: { threshold: 20, ...settings } });
  const quotes = (slaveSpreadPoints: number, masterSpreadPoints = 5) => ({
    slave: { bid: 1.1, ask: 1.1 + slaveSpreadPoints * 0.00001 },
    master: { bid: 1.1, ask: 1.1 + masterSpreadPoints * 0.00001 },
  });

  it("copies while the slave's spread is at most the threshold in points, skips above it", () => {
    given({ features: [filter({})], quotes: quotes(20) })
      .when(masterOpened())
      .then([{ type: 'open' }]);
    given({ features: [filter({})], quotes: quotes(21) })
      .when(masterOpened())
      .thenSkips('SPREAD_TOO_WIDE', /slave spread is 21 points, above 20/);
  });

  it("source MASTER measures the master's quote instead", () => {
    given({ features: [filter({ source: 'MASTER' })], quotes: quotes(50, 10) })
      .when(masterOpened())
      .then([{ type: 'open' }]);
    given({ features: [filter({ source: 'MASTER' })], quotes: quotes(5, 30) })
      .when(masterOpened())
      .thenSkips('SPREAD_TOO_WIDE', /master spread/);
  });

  it('PERCENTAGE_OF_PRICE compares (ask - bid) / mid x 100', () => {
    // 0.00011 / 1.100055 = 0.0099995 %
    given({ features: [filter({ unit: 'PERCENTAGE_OF_PRICE', threshold: 0.01 })], quotes: quotes(11) })
      .when(masterOpened())
      .then([{ type: 'open' }]);
    given({ features: [filter({ unit: 'PERCENTAGE_OF_PRICE', threshold: 0.0099 })], quotes: quotes(11) })
      .when(masterOpened())
      .thenSkips('SPREAD_TOO_WIDE', /% of the price/);
  });

  it('without a quote: ALLOW copies, BLOCK skips with PRICE_MISSING', () => {
    given({ features: [filter({ onMissingPrice: 'ALLOW' })] })
      .when(masterOpened())
      .then([{ type: 'open' }]);
    given({ features: [filter({ onMissingPrice: 'BLOCK' })] })
      .when(masterOpened())
      .thenSkips('PRICE_MISSING');
  });

  it('retryOnBlock holds a blocked open back 30 s at a time while the openRetry window (openRetryTimeoutInMinutes) lasts, then skips', () => {
    const blocked = {
      features: [filter({ retryOnBlock: true })],
      quotes: quotes(40),
      settings: { openRetry: true, openRetryTimeoutInMinutes: 2 },
      eventTime: NOW,
    };
    const [defer] = given(blocked)
      .when(masterOpened())
      .then([{ type: 'defer', by: 'FeatureSpreadFilterDTO' }]);
    expect((defer as { until: string }).until).to.equal('2026-01-07T10:00:30.000Z');
    given({ ...blocked, now: '2026-01-07T10:01:30.000Z' })
      .when(masterOpened())
      .then([{ type: 'defer', until: '2026-01-07T10:02:00.000Z' }]);
    given({ ...blocked, now: '2026-01-07T10:01:31.000Z' })
      .when(masterOpened())
      .thenSkips('SPREAD_TOO_WIDE', /open-retry window is over/);
    given({ ...blocked, quotes: quotes(10), now: '2026-01-07T10:01:00.000Z' })
      .when(masterOpened())
      .then([{ type: 'open' }]);
  });

  it('retryOnBlock without an openRetry window skips at once', () =>
    given({ features: [filter({ retryOnBlock: true })], quotes: quotes(40), settings: { openRetry: false } })
      .when(masterOpened())
      .thenSkips('SPREAD_TOO_WIDE'));

  it('never blocks a close', () =>
    given({ features: [filter({ onMissingPrice: 'BLOCK' })], quotes: quotes(500), slave: { copies: [slaveCopy()] } })
      .when(masterClosed())
      .then([{ type: 'close' }]));
});
