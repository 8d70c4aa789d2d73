// The venue-latency histogram (copytrade_venue_order_duration_seconds) counts the orders of its own
// service's connections only: two services in one process (as in the e2e specs) do not count each
// other's orders (engine/venues/latency.ts VenueOrderTimings, one per VenueHost).
import { expect } from 'chai';
import { ServiceMetrics } from '../../api/metrics.js';
import type { Services } from '../../app/services.js';
import { timedConnection, VenueOrderTimings } from '../../engine/venues/latency.js';
import type { VenueConnection } from '../../engine/venues/port.js';
import { VenueError } from '../../engine/venues/port.js';

const serviceWith = (orderTimings: VenueOrderTimings): Services =>
  ({ venueOrderTimings: orderTimings, signals: { onAppend: () => () => undefined } }) as unknown as Services;

const connection = {
  placeOrder: () => Promise.resolve({ status: 'filled' }),
  cancelOrder: () => Promise.reject(new VenueError('[ORDER_NOT_FOUND]', 'no such order')),
  quote: () => Promise.resolve({}),
} as unknown as VenueConnection;

const countOf = async (metrics: ServiceMetrics, operation: string, outcome: string): Promise<number> => {
  const text = await metrics.registry.metrics();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('copytrade_venue_order_duration_seconds_count{') && l.includes(`operation="${operation}"`) && l.includes(`outcome="${outcome}"`));
  return line ? Number(line.split(' ').pop()) : 0;
};

describe('venue order latency in /metrics: per service', () => {
  it("counts its own service's orders and none of another service's in the same process", async () => {
    const mine = new VenueOrderTimings();
    const theirs = new VenueOrderTimings();
    const a = new ServiceMetrics(serviceWith(mine));
    const b = new ServiceMetrics(serviceWith(theirs));
    const timedA = timedConnection(connection, 'ccxt:bybit', mine);
    const timedB = timedConnection(connection, 'simulated', theirs);
    await timedA.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 1 }, 'id-1');
    await timedA.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 1 }, 'id-2');
    await timedA.cancelOrder('1').catch(() => undefined);
    await timedB.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 1 }, 'id-3');
    await timedA.quote('BTCUSDT');
    expect(await countOf(a, 'placeOrder', 'ok')).to.equal(2);
    expect(await countOf(a, 'cancelOrder', 'refused')).to.equal(1);
    expect(await countOf(b, 'placeOrder', 'ok')).to.equal(1);
    expect(await countOf(b, 'cancelOrder', 'refused')).to.equal(0);
    expect(await a.registry.metrics())
      .to.include('venue="ccxt:bybit"')
      .and.not.include('venue="simulated"');
  });
});
