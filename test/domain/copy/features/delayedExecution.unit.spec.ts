import { expect } from 'chai';
import { delayedExecution, delayMillis } from '../../../../domain/copy/features/delayedExecution.js';
import { given, MASTER_POSITION, masterClosed, masterOpened, NOW, slaveCopy, symbolSpec } from '../given.js';

describe('feature: FeatureDelayedExecutionDTO', () => {
  const delay = (settings: Record<string, number>) => ({
    feature: delayedExecution,
    settings: { minDelayOpen: 0, maxDelayOpen: 0, minDelayClose: 0, maxDelayClose: 0, ...settings },
  });

  it('holds an open back until minDelayOpen after the master opened when min and max are equal', () =>
    given({ features: [delay({ minDelayOpen: 90, maxDelayOpen: 90 })], eventTime: NOW })
      .when(masterOpened())
      .then([{ type: 'defer', until: '2026-01-07T10:01:30.000Z', by: 'FeatureDelayedExecutionDTO' }]));

  it('opens when decided again at or after that time', () =>
    given({
      features: [delay({ minDelayOpen: 90, maxDelayOpen: 90 })],
      eventTime: NOW,
      now: '2026-01-07T10:01:30.000Z',
      deferredBy: ['FeatureDelayedExecutionDTO'],
    })
      .when(masterOpened())
      .then([{ type: 'open' }]));

  it('draws the delay between min and max, the same for the same trade, with millisecond resolution', () => {
    const drawn = ['m-1', 'm-2', 'm-3', 'm-4', 'm-5'].map((id) => delayMillis(1.5, 2.5, id, 'open'));
    for (const ms of drawn) expect(ms).to.be.within(1500, 2500);
    expect(new Set(drawn).size).to.be.greaterThan(1);
    expect(delayMillis(1.5, 2.5, 'm-1', 'open')).to.equal(drawn[0]);
    expect(delayMillis(0, 0, 'm-1', 'close')).to.equal(0);
  });

  it('holds a close back by the close delay, and copies it at once with 0 (the default)', () => {
    const ms = delayMillis(10, 20, MASTER_POSITION, 'close');
    given({ features: [delay({ minDelayClose: 10, maxDelayClose: 20 })], eventTime: NOW, slave: { copies: [slaveCopy()] } })
      .when(masterClosed())
      .then([{ type: 'defer', until: new Date(Date.parse(NOW) + ms).toISOString(), by: 'FeatureDelayedExecutionDTO' }]);
    given({ features: [delay({ minDelayOpen: 90, maxDelayOpen: 90 })], eventTime: NOW, slave: { copies: [slaveCopy()] } })
      .when(masterClosed())
      .then([{ type: 'close' }]);
  });

  it("refuses a maximum below its minimum, in the general setting and in a symbol's", () => {
    const none = { minDelayOpen: 0, maxDelayOpen: 0, minDelayClose: 0, maxDelayClose: 0, symbolsConfiguration: {} };
    expect(delayedExecution.check!({ ...none, minDelayOpen: 5, maxDelayOpen: 1 })).to.match(/maxDelayOpen 1 is below minDelayOpen 5/);
    expect(delayedExecution.check!({ ...none, minDelayClose: 2, maxDelayClose: 1 })).to.match(/maxDelayClose/);
    expect(delayedExecution.check!({ ...none, symbolsConfiguration: { EURUSD: { minDelayOpen: 5 } } })).to.match(
      /symbolsConfiguration.EURUSD: maxDelayOpen 0 is below minDelayOpen 5/,
    );
  });

  describe('symbolsConfiguration', () => {
    const perSymbol = {
      feature: delayedExecution,
      settings: { ...delayedExecution.defaults, minDelayOpen: 90, maxDelayOpen: 90, symbolsConfiguration: { eurusd: { minDelayOpen: 10, maxDelayOpen: 10 } } },
    };
    const slaveSymbols = [symbolSpec(), symbolSpec({ symbol: 'GBPUSD' })];

    it("delays a trade on a configured slave symbol by the symbol's own delays (compared without case)", () =>
      given({ features: [perSymbol], eventTime: NOW, slaveSymbols })
        .when(masterOpened())
        .then([{ type: 'defer', until: '2026-01-07T10:00:10.000Z' }]));

    it('delays the trades on other symbols by the general ones', () =>
      given({ features: [perSymbol], eventTime: NOW, slaveSymbols })
        .when(masterOpened({ symbol: 'GBPUSD' }))
        .then([{ type: 'defer', until: '2026-01-07T10:01:30.000Z' }]));

    it("holds a close back by the close delay of its copy's symbol", () =>
      given({
        features: [
          { feature: delayedExecution, settings: { ...delayedExecution.defaults, symbolsConfiguration: { EURUSD: { minDelayClose: 5, maxDelayClose: 5 } } } },
        ],
        eventTime: NOW,
        slave: { copies: [slaveCopy()] },
      })
        .when(masterClosed())
        .then([{ type: 'defer', until: '2026-01-07T10:00:05.000Z' }]));
  });
});
