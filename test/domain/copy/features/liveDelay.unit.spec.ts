import { delayedExecution } from '../../../../domain/copy/features/delayedExecution.js';
import { liveDelay } from '../../../../domain/copy/features/liveDelay.js';
import { permittedSymbols } from '../../../../domain/copy/features/permittedSymbols.js';
import { given, masterClosed, masterOpened, masterPendingPlaced, NOW, record, slaveCopy, symbolSpec } from '../given.js';

describe('feature: FeatureLiveDelayDTO', () => {
  // NOW is 10:00:00.
  const delay = (settings: Record<string, unknown> = {}) => ({ feature: liveDelay, settings: { delaySeconds: 60, ...settings } });
  const buyAt = (time: string, overrides: Parameters<typeof record>[0] = {}) =>
    record({ masterPositionId: 'm-1', slavePositionId: 's-1', openedAt: `2026-01-07T${time}.000Z`, closedAt: null, ...overrides });

  it('copies the first open on a symbol at once', () =>
    given({ features: [delay()] }).when(masterOpened()).then([{ type: 'open' }]));

  it('defers a later open on the symbol until delaySeconds after the previous copy opened', () =>
    given({ features: [delay()], history: [buyAt('09:59:30')] }).when(masterOpened()).then([{ type: 'defer', until: '2026-01-07T10:00:30.000Z', by: 'FeatureLiveDelayDTO' }]));

  it('copies when decided again at that time, and once delaySeconds have passed', () => {
    given({ features: [delay()], history: [buyAt('09:59:30')], now: '2026-01-07T10:00:30.000Z', deferredBy: ['FeatureLiveDelayDTO'] }).when(masterOpened()).then([{ type: 'open' }]);
    given({ features: [delay()], history: [buyAt('09:59:00')] }).when(masterOpened()).then([{ type: 'open' }]);
  });

  it('waits for the latest of several copies, pending orders included', () =>
    given({ features: [delay()], history: [buyAt('09:59:50', { masterPositionId: 'm-2' }), buyAt('09:59:10')] })
      .when(masterPendingPlaced('BuyLimit', { openPrice: 1.09 }))
      .then([{ type: 'defer', until: '2026-01-07T10:00:50.000Z' }]));

  it('does not delay opens on another symbol', () => {
    const gbp = [symbolSpec(), symbolSpec({ symbol: 'GBPUSD' })];
    given({ features: [delay()], history: [buyAt('09:59:30')], slaveSymbols: gbp }).when(masterOpened({ symbol: 'GBPUSD' })).then([{ type: 'open' }]);
  });

  it('trackByDirection: a buy does not delay a sell, but delays a buy', () => {
    given({ features: [delay({ trackByDirection: true })], history: [buyAt('09:59:30')] }).when(masterOpened({ orderType: 'Sell' })).then([{ type: 'open' }]);
    given({ features: [delay({ trackByDirection: true })], history: [buyAt('09:59:30')] }).when(masterOpened({ orderType: 'Buy' })).then([{ type: 'defer' }]);
  });

  it('without resetOnPositionClose a closed copy still delays', () =>
    given({ features: [delay()], history: [buyAt('09:59:30', { closedAt: '2026-01-07T09:59:40.000Z' })] }).when(masterOpened()).then([{ type: 'defer', until: '2026-01-07T10:00:30.000Z' }]));

  it('resetOnPositionClose: a closed copy no longer delays', () =>
    given({ features: [delay({ resetOnPositionClose: true })], history: [buyAt('09:59:30', { closedAt: '2026-01-07T09:59:40.000Z' })] }).when(masterOpened()).then([{ type: 'open' }]));

  it('resetOnPositionClose: a wait on an open copy is taken in steps of 30 seconds, so a close ends it soon', () =>
    given({ features: [delay({ delaySeconds: 600, resetOnPositionClose: true })], history: [buyAt('09:59:30')] })
      .when(masterOpened())
      .then([{ type: 'defer', until: '2026-01-07T10:00:30.000Z' }]));

  it('never delays a close', () =>
    given({ features: [delay()], history: [buyAt('09:59:30')], slave: { copies: [slaveCopy()] } }).when(masterClosed()).then([{ type: 'close' }]));

  it('with a delayed execution beside it, each holds the open back until its own time', () => {
    const both = [delay(), { feature: delayedExecution, settings: { delaySeconds: 90 } }];
    given({ features: both, history: [buyAt('09:59:30')], eventTime: NOW }).when(masterOpened()).then([{ type: 'defer', until: '2026-01-07T10:00:30.000Z', by: 'FeatureLiveDelayDTO' }]);
    given({ features: both, history: [buyAt('09:59:30')], eventTime: NOW, now: '2026-01-07T10:00:30.000Z', deferredBy: ['FeatureLiveDelayDTO'] })
      .when(masterOpened())
      .then([{ type: 'defer', until: '2026-01-07T10:01:30.000Z', by: 'FeatureDelayedExecutionDTO' }]);
  });

  it('a filter beside it refuses the trade at once rather than after the wait', () =>
    given({ features: [delay(), { feature: permittedSymbols, settings: { permittedSymbols: ['GBP*'], blockedSymbols: [] } }], history: [buyAt('09:59:30')] })
      .when(masterOpened())
      .thenSkips('SYMBOL_NOT_PERMITTED'));
});
