import { expect } from 'chai';
import { maxOpenPositions, type MaxOpenPositionsSettings } from '../../../../domain/copy/features/maxOpenPositions.js';
import { permittedSymbols } from '../../../../domain/copy/features/permittedSymbols.js';
import { given, masterClosed, masterOpened, masterPendingPlaced, NOW, record, slaveCopy } from '../given.js';

describe('feature: FeatureMaxOpenPositionsDTO', () => {
  // NOW is 10:00:00; the window is the last 60 seconds.
  const throttle = (maxPositionsInTimeWindow: number) => ({
    feature: maxOpenPositions,
    settings: { maxOpenPositions: 0, maxPositionsInTimeWindow, timeWindowSeconds: 60 },
  });
  const cap = (max: number) => ({ feature: maxOpenPositions, settings: { maxOpenPositions: max, maxPositionsInTimeWindow: 0, timeWindowSeconds: 0 } });
  const openedAt = (time: string, i: number) =>
    record({ masterPositionId: `m-${i}`, slavePositionId: `s-${i}`, openedAt: `2026-01-07T${time}.000Z`, closedAt: null });

  it('maxOpenPositions: skips while that many copies are open, closed ones aside; 0 = no limit', () => {
    const history = [openedAt('08:00:00', 1), openedAt('09:00:00', 2), record({ openedAt: '2026-01-07T09:30:00.000Z', closedAt: '2026-01-07T09:40:00.000Z' })];
    given({ features: [cap(2)], history })
      .when(masterOpened())
      .thenSkips('MAX_OPEN_POSITIONS_REACHED', /2 copies of this copier are open, the most allowed is 2/);
    given({ features: [cap(3)], history })
      .when(masterOpened())
      .then([{ type: 'open' }]);
    given({ features: [cap(0)], history })
      .when(masterOpened())
      .then([{ type: 'open' }]);
    expect(maxOpenPositions.check!({ maxOpenPositions: 0, maxPositionsInTimeWindow: 1, timeWindowSeconds: 0, symbolsConfiguration: {} })).to.match(
      /go together/,
    );
  });

  it('copies while fewer copies than the maximum opened within the window', () =>
    given({ features: [throttle(2)], history: [openedAt('09:59:30', 1)] })
      .when(masterOpened())
      .then([{ type: 'open' }]));

  it('skips once the maximum opened within the window, and says when the next may open', () =>
    given({ features: [throttle(2)], history: [openedAt('09:59:50', 2), openedAt('09:59:30', 1)] })
      .when(masterOpened())
      .thenSkips(
        'MAX_OPEN_POSITIONS_REACHED',
        /2 copies opened in the last 60 seconds, the most allowed is 2; the next may open after 2026-01-07T10:00:30.000Z/,
      ));

  it('counts copies closed since: the throttle is on opens, not on what is open', () =>
    given({ features: [throttle(1)], history: [record({ openedAt: '2026-01-07T09:59:45.000Z', closedAt: '2026-01-07T09:59:50.000Z' })] })
      .when(masterOpened())
      .thenSkips('MAX_OPEN_POSITIONS_REACHED'));

  it('a copy opened exactly timeWindowSeconds ago is out of the window', () =>
    given({ features: [throttle(1)], history: [openedAt('09:59:00', 1)] })
      .when(masterOpened())
      .then([{ type: 'open' }]));

  it('a copy opened a millisecond inside the window counts', () =>
    given({ features: [throttle(1)], history: [record({ openedAt: '2026-01-07T09:59:00.001Z', closedAt: null })], now: NOW })
      .when(masterOpened())
      .thenSkips('MAX_OPEN_POSITIONS_REACHED'));

  it('throttles pending orders too, and never a close', () => {
    given({ features: [throttle(1)], history: [openedAt('09:59:59', 1)] })
      .when(masterPendingPlaced('BuyLimit', { openPrice: 1.09 }))
      .thenSkips('MAX_OPEN_POSITIONS_REACHED');
    given({ features: [throttle(1)], history: [openedAt('09:59:59', 1)], slave: { copies: [slaveCopy()] } })
      .when(masterClosed())
      .then([{ type: 'close' }]);
  });

  it('with permitted symbols first, a refused symbol is reported as such, not as throttled', () =>
    given({
      features: [{ feature: permittedSymbols, settings: { whitelist: ['^GBP'], blacklist: [] } }, throttle(1)],
      history: [openedAt('09:59:59', 1)],
    })
      .when(masterOpened())
      .thenSkips('SYMBOL_NOT_PERMITTED'));

  describe('symbolsConfiguration', () => {
    const on = (symbol: string, i: number, closedAt: string | null = null) =>
      record({ masterPositionId: `m-${symbol}-${i}`, slavePositionId: `s-${symbol}-${i}`, symbol, openedAt: '2026-01-07T09:59:40.000Z', closedAt });
    const configured = (settings: Record<string, unknown>) => ({
      feature: maxOpenPositions,
      settings: { maxOpenPositions: 0, maxPositionsInTimeWindow: 0, timeWindowSeconds: 0, ...settings },
    });

    it("a symbol's maxOpenPositions counts the copies open on it only", () => {
      const features = [configured({ symbolsConfiguration: { eurusd: { maxOpenPositions: 2 } } })];
      given({ features, history: [on('EURUSD', 1), on('EURUSD', 2), on('GBPUSD', 3)] })
        .when(masterOpened())
        .thenSkips('MAX_OPEN_POSITIONS_REACHED', /2 copies of this copier are open on EURUSD, the most allowed is 2/);
      given({ features, history: [on('EURUSD', 1), on('GBPUSD', 2), on('GBPUSD', 3), on('EURUSD', 4, '2026-01-07T09:59:50.000Z')] })
        .when(masterOpened())
        .then([{ type: 'open' }]);
    });

    it('the general maxOpenPositions still counts the copies on every symbol', () =>
      given({
        features: [configured({ maxOpenPositions: 3, symbolsConfiguration: { EURUSD: { maxOpenPositions: 5 } } })],
        history: [on('GBPUSD', 1), on('GBPUSD', 2), on('USDJPY', 3)],
      })
        .when(masterOpened())
        .thenSkips('MAX_OPEN_POSITIONS_REACHED', /3 copies of this copier are open, the most allowed is 3/));

    it('a symbol may have its own throttle', () =>
      given({
        features: [configured({ symbolsConfiguration: { EURUSD: { maxPositionsInTimeWindow: 1, timeWindowSeconds: 60 } } })],
        history: [on('EURUSD', 1, '2026-01-07T09:59:45.000Z')],
      })
        .when(masterOpened())
        .thenSkips('MAX_OPEN_POSITIONS_REACHED', /1 copies opened on EURUSD in the last 60 seconds/));

    it("checks the window pair of a symbol's effective members", () => {
      const check = (symbolsConfiguration: MaxOpenPositionsSettings['symbolsConfiguration']) =>
        maxOpenPositions.check!({ maxOpenPositions: 0, maxPositionsInTimeWindow: 0, timeWindowSeconds: 0, symbolsConfiguration });
      expect(check({ EURUSD: { maxPositionsInTimeWindow: 1 } })).to.match(
        /^symbolsConfiguration\.EURUSD: maxPositionsInTimeWindow and timeWindowSeconds go together/,
      );
      expect(check({ EURUSD: { maxPositionsInTimeWindow: 1, timeWindowSeconds: 10 } })).to.equal(null);
    });
  });
});
