import { expect } from 'chai';
import { delayedExecution } from '../../../../domain/copy/features/delayedExecution.js';
import { liveDelay } from '../../../../domain/copy/features/liveDelay.js';
import { permittedSymbols } from '../../../../domain/copy/features/permittedSymbols.js';
import type { MasterOrderRecord } from '../../../../domain/copy/features/rules.js';
import { given, MASTER_POSITION, masterClosed, masterOpened, masterPendingFilled, masterPendingPlaced, NOW, slaveCopy, symbolSpec } from '../given.js';

describe('feature: FeatureLiveDelayDTO', () => {
  // NOW is 10:00:00; the feature was added at 09:00.
  const ADDED = '2026-01-07T09:00:00.000Z';
  const at = (time: string) => `2026-01-07T${time}.000Z`;
  const delay = (settings: Record<string, unknown> = {}) => ({
    feature: liveDelay,
    settings: { skipOrdersCount: 2, resetIntervalMinutes: 0, ...settings },
    configuredAt: ADDED,
  });
  /** A master order on the trade's symbol, as the read models hold it. */
  const order = (id: string, openedAt: string, overrides: Partial<MasterOrderRecord> = {}): MasterOrderRecord => ({
    masterPositionId: id,
    side: 'Buy',
    kind: 'position',
    openedAt: at(openedAt),
    closedAt: null,
    ...overrides,
  });
  const closed = (id: string, openedAt: string, closedAt: string, overrides: Partial<MasterOrderRecord> = {}) =>
    order(id, openedAt, { closedAt: at(closedAt), ...overrides });
  const now = { openTime: NOW };

  it('skips the first order after the feature was added, saying which of N it is', () =>
    given({ features: [delay()], masterOrders: [] })
      .when(masterOpened(now))
      .thenSkips(
        'LIVE_DELAY',
        /not copied: live delay: master order 1 of the first 2 on EURUSD is skipped \(counted since the feature was added at 2026-01-07T09:00:00.000Z\)/,
      ));

  it('skips order N and copies order N + 1 (the boundary)', () => {
    given({ features: [delay()], masterOrders: [order('m-1', '09:10:00')] })
      .when(masterOpened(now))
      .thenSkips('LIVE_DELAY', /master order 2 of the first 2/);
    given({ features: [delay()], masterOrders: [order('m-1', '09:10:00'), order('m-2', '09:20:00')] })
      .when(masterOpened(now))
      .then([{ type: 'open' }]);
  });

  it("counts to the skipOrdersCount of the copy's symbol in symbolsConfiguration", () => {
    const perSymbol = delay({ symbolsConfiguration: { EURUSD: { skipOrdersCount: 1 } } });
    const slaveSymbols = [symbolSpec(), symbolSpec({ symbol: 'GBPUSD' })];
    // EURUSD skips only its first order; GBPUSD keeps the general 2.
    given({ features: [perSymbol], masterOrders: [order('m-1', '09:10:00')], slaveSymbols })
      .when(masterOpened(now))
      .then([{ type: 'open' }]);
    given({ features: [perSymbol], masterOrders: [order('m-1', '09:10:00')], slaveSymbols })
      .when(masterOpened({ ...now, symbol: 'GBPUSD' }))
      .thenSkips('LIVE_DELAY', /master order 2 of the first 2 on GBPUSD/);
  });

  it('copies every order once N have passed, closed ones counted too', () =>
    given({ features: [delay()], masterOrders: [closed('m-1', '09:10:00', '09:15:00'), closed('m-2', '09:20:00', '09:25:00'), order('m-3', '09:30:00')] })
      .when(masterOpened(now))
      .then([{ type: 'open' }]));

  it('does not count or skip orders placed before the feature was added', () => {
    given({ features: [delay()], masterOrders: [order('m-1', '08:10:00'), order('m-2', '08:20:00')] })
      .when(masterOpened(now))
      .thenSkips('LIVE_DELAY', /order 1 of/);
    // Copied when copyOpenPositions or a resync decides a position older than the feature.
    given({ features: [delay()], masterOrders: [] })
      .when(masterOpened({ openTime: at('08:59:59') }))
      .then([{ type: 'open' }]);
  });

  it('counts pending orders placed, waiting or filled, and skips a pending order as an order', () => {
    given({ features: [delay()], masterOrders: [order('m-1', '09:10:00', { kind: 'pendingOrder' })] })
      .when(masterPendingPlaced('BuyLimit', { openPrice: 1.09, ...now }))
      .thenSkips('LIVE_DELAY', /order 2 of the first 2/);
    given({ features: [delay()], masterOrders: [order('m-1', '09:10:00', { kind: 'pendingOrder' }), order('m-2', '09:20:00')] })
      .when(masterOpened(now))
      .then([{ type: 'open' }]);
  });

  it('keeps a skipped pending order skipped when its fill is decided, by the time it was placed', () => {
    // Placed at 09:10 as order 1 of 1; another order came at 09:30; it filled at 10:00.
    const orders = [order(MASTER_POSITION, '10:00:00'), order('m-2', '09:30:00')];
    given({ features: [delay({ skipOrdersCount: 1 })], masterOrders: orders })
      .when(masterPendingFilled({ openTime: at('09:10:00') }))
      .thenSkips('LIVE_DELAY', /order 1 of the first 1/);
  });

  it('decides an order again (a resync, a deferral) with the same place', () => {
    const orders = [order('m-1', '09:10:00'), order(MASTER_POSITION, '09:20:00'), order('m-3', '09:30:00')];
    given({ features: [delay()], masterOrders: orders })
      .when(masterOpened({ openTime: at('09:20:00') }))
      .thenSkips('LIVE_DELAY', /order 2 of the first 2/);
    // Without its open time, the record of the order says when it was placed.
    given({ features: [delay()], masterOrders: orders })
      .when(masterOpened())
      .thenSkips('LIVE_DELAY', /order 2 of the first 2/);
  });

  it('without trackByDirection buys and sells share the count; with it they are counted apart', () => {
    const buys = [order('m-1', '09:10:00'), order('m-2', '09:20:00')];
    given({ features: [delay()], masterOrders: buys })
      .when(masterOpened({ orderType: 'Sell', ...now }))
      .then([{ type: 'open' }]);
    given({ features: [delay({ trackByDirection: true })], masterOrders: buys })
      .when(masterOpened({ orderType: 'Sell', ...now }))
      .thenSkips('LIVE_DELAY', /master sell order 1 of the first 2 on EURUSD/);
    given({ features: [delay({ trackByDirection: true })], masterOrders: buys })
      .when(masterOpened(now))
      .then([{ type: 'open' }]);
  });

  describe('resetOnPositionClose', () => {
    const basket = [closed('m-1', '09:10:00', '09:40:00'), closed('m-2', '09:20:00', '09:41:00'), closed('m-3', '09:30:00', '09:42:00')];

    it('off: the first N orders are skipped once, whatever the master closes', () =>
      given({ features: [delay()], masterOrders: basket })
        .when(masterOpened(now))
        .then([{ type: 'open' }]));

    it('on: once the master has closed every position of the symbol, the next N orders are skipped again', () => {
      given({ features: [delay({ resetOnPositionClose: true })], masterOrders: basket })
        .when(masterOpened(now))
        .thenSkips(
          'LIVE_DELAY',
          /order 1 of the first 2 on EURUSD is skipped \(counted since the master's last EURUSD position closed at 2026-01-07T09:42:00.000Z\)/,
        );
      given({ features: [delay({ resetOnPositionClose: true })], masterOrders: [...basket, order('m-4', '09:50:00')] })
        .when(masterOpened(now))
        .thenSkips('LIVE_DELAY', /order 2 of the first 2/);
      given({ features: [delay({ resetOnPositionClose: true })], masterOrders: [...basket, order('m-4', '09:50:00'), order('m-5', '09:55:00')] })
        .when(masterOpened(now))
        .then([{ type: 'open' }]);
    });

    it('on: a close that leaves a position of the symbol open does not start the count again', () =>
      given({ features: [delay({ resetOnPositionClose: true })], masterOrders: [closed('m-1', '09:10:00', '09:40:00'), order('m-2', '09:20:00')] })
        .when(masterOpened(now))
        .then([{ type: 'open' }]));

    it('on: a pending order still waiting does not keep the symbol open', () =>
      given({
        features: [delay({ resetOnPositionClose: true })],
        masterOrders: [closed('m-1', '09:10:00', '09:40:00'), order('m-2', '09:20:00', { kind: 'pendingOrder' })],
      })
        .when(masterOpened(now))
        .thenSkips('LIVE_DELAY', /order 1 of the first 2/));

    it('on, with trackByDirection: the sells closing does not start the buys again', () => {
      const orders = [order('m-1', '09:10:00'), order('m-2', '09:20:00'), closed('m-3', '09:30:00', '09:40:00', { side: 'Sell' })];
      given({ features: [delay({ resetOnPositionClose: true, trackByDirection: true })], masterOrders: orders })
        .when(masterOpened(now))
        .then([{ type: 'open' }]);
      given({ features: [delay({ resetOnPositionClose: true, trackByDirection: true })], masterOrders: orders })
        .when(masterOpened({ orderType: 'Sell', ...now }))
        .thenSkips('LIVE_DELAY', /master sell order 1 of the first 2 on EURUSD is skipped \(counted since the master's last sell EURUSD position closed/);
    });
  });

  it('never holds a close or a stop change', () =>
    given({ features: [delay()], masterOrders: [], slave: { copies: [slaveCopy()] } })
      .when(masterClosed())
      .then([{ type: 'close' }]));

  it('a filter beside it gives its own reason for a trade it refuses', () =>
    given({ features: [{ feature: permittedSymbols, settings: { whitelist: ['^GBP'], blacklist: [] } }, delay()], masterOrders: [] })
      .when(masterOpened(now))
      .thenSkips('SYMBOL_NOT_PERMITTED'));

  it('with a delayed execution beside it, a skipped order is skipped at once and a copied one waits', () => {
    const both = [delay(), { feature: delayedExecution, settings: { minDelayOpen: 90, maxDelayOpen: 90, minDelayClose: 0, maxDelayClose: 0 } }];
    given({ features: both, masterOrders: [] }).when(masterOpened(now)).thenSkips('LIVE_DELAY');
    given({ features: both, masterOrders: [order('m-1', '09:10:00'), order('m-2', '09:20:00')] })
      .when(masterOpened(now))
      .then([{ type: 'defer', until: '2026-01-07T10:01:30.000Z', by: 'FeatureDelayedExecutionDTO' }]);
  });

  it('refuses a count out of bounds; 0 is deactivated, as the reference says', () => {
    const bounds = liveDelay.members.properties.skipOrdersCount as unknown as { minimum: number; maximum: number };
    expect([bounds.minimum, bounds.maximum]).to.deep.equal([0, 100]);
    given({ features: [delay({ skipOrdersCount: 0 })], masterOrders: [] })
      .when(masterOpened(now))
      .then([{ type: 'open' }]);
    expect(liveDelay.defaults).to.deep.include({ skipOrdersCount: 3, resetIntervalMinutes: 120 });
  });

  it('starts the count again at an order placed resetIntervalMinutes or more after the one before it', () => {
    // 09:10 and 09:20 were orders 1 and 2; 10:00 comes 40 minutes after 09:20.
    const two = [order('m-1', '09:10:00'), order('m-2', '09:20:00')];
    given({ features: [delay({ resetIntervalMinutes: 40 })], masterOrders: two })
      .when(masterOpened(now))
      .thenSkips(
        'LIVE_DELAY',
        /master order 1 of the first 2 on EURUSD is skipped \(counted since the order at 2026-01-07T10:00:00.000Z, 40 minutes or more after the one before\)/,
      );
    given({ features: [delay({ resetIntervalMinutes: 41 })], masterOrders: two })
      .when(masterOpened(now))
      .then([{ type: 'open' }]);
    // 09:10, then 09:55 (45 minutes later: order 1 again), then 10:00: order 2, skipped.
    given({ features: [delay({ resetIntervalMinutes: 30 })], masterOrders: [order('m-1', '09:10:00'), order('m-2', '09:55:00')] })
      .when(masterOpened(now))
      .thenSkips('LIVE_DELAY', /master order 2 of the first 2/);
  });
});
