// engine/venues/latency.ts timedConnection: order requests are timed, everything else passes through,
// and each method's wrapper is made once per connection (while the connection holds that method).
import { expect } from 'chai';
import { timedConnection, type VenueOrderTiming, VenueOrderTimings } from '../../../engine/venues/latency.js';
import { VenueError, type VenueConnection } from '../../../engine/venues/port.js';

const fakeConnection = () => {
  const connection = {
    login: 'L-1',
    placed: 0,
    async placeOrder() {
      this.placed += 1;
      if (this.placed > 1) throw new VenueError('[MARKET_CLOSED]', 'closed');
      return { status: 'filled' };
    },
    async accountInformation() {
      return { login: this.login };
    },
  };
  return connection;
};

describe('engine/venues/latency: timedConnection', () => {
  it('times order requests with their outcome and keeps `this`; other methods pass through', async () => {
    const timings = new VenueOrderTimings();
    const told: VenueOrderTiming[] = [];
    timings.listen((t) => told.push(t));
    const inner = fakeConnection();
    const timed = timedConnection(inner as unknown as VenueConnection, 'simulated', timings);
    expect(await timed.placeOrder({} as never, 'c1')).to.deep.equal({ status: 'filled' });
    await timed.placeOrder({} as never, 'c2').catch(() => undefined);
    expect(await timed.accountInformation()).to.deep.equal({ login: 'L-1' });
    expect(inner.placed).to.equal(2);
    expect(told.map((t) => [t.venue, t.operation, t.outcome])).to.deep.equal([
      ['simulated', 'placeOrder', 'ok'],
      ['simulated', 'placeOrder', 'refused'],
    ]);
    expect(timed.login).to.equal('L-1');
  });

  it('answers the same wrapper for a method each time, and a new one once the connection holds another method', async () => {
    const inner = fakeConnection();
    const timed = timedConnection(inner as unknown as VenueConnection, 'simulated', new VenueOrderTimings());
    expect(timed.placeOrder).to.equal(timed.placeOrder);
    expect(timed.accountInformation).to.equal(timed.accountInformation);
    const before = timed.accountInformation;
    inner.accountInformation = async () => ({ login: 'replaced' });
    expect(timed.accountInformation).to.not.equal(before);
    expect(await timed.accountInformation()).to.deep.equal({ login: 'replaced' });
  });
});
