import { expect } from 'chai';
import type { Venue, VenueConnection } from '../../../engine/venues/port.js';
import { parseVenueRouting, type RealVenue, type VenueAdapter, VenueRegistry } from '../../../engine/venues/registry.js';

const fakeAdapter = (started: string[], stopped: string[]): VenueAdapter<{ url: string }> => ({
  config: (env) => {
    if (env.FAKE_URL === 'bad') throw new Error('FAKE_URL must be a URL');
    return { url: env.FAKE_URL ?? 'default' };
  },
  checkTarget: (target) => {
    if (!['alpha', 'beta'].includes(target)) throw new Error(`fake: unknown target ${target}`);
  },
  venue: (target, config) => {
    started.push(`${target}@${config.url}`);
    const venue: Venue & RealVenue = {
      name: `fake-${target}`,
      native: true,
      connection: () => ({}) as VenueConnection,
      stop: () => {
        stopped.push(target);
        return Promise.resolve();
      },
    };
    return Promise.resolve(venue);
  },
});

const isType = (id: number) => id >= 1 && id <= 17;

describe('venue routing (ACCOUNT_TYPE_VENUES)', () => {
  it('routes nothing when unset: every account type trades at the simulated venue', async () => {
    const routing = parseVenueRouting(undefined, {}, {}, isType);
    expect(routing.routes).to.deep.equal([]);
    const registry = await VenueRegistry.start(routing, {}, { clock: () => new Date(), log: console });
    for (let id = 1; id <= 17; id++) expect(registry.venueFor(id)).to.equal(null);
  });

  it('routes the listed account types, one venue per adapter target, the adapter configured from its own variables', async () => {
    const started: string[] = [];
    const stopped: string[] = [];
    const adapters = { fake: fakeAdapter(started, stopped) as VenueAdapter };
    const routing = parseVenueRouting(' 11=fake:alpha, 12=fake:alpha,13=fake:beta ', { FAKE_URL: 'http://127.0.0.1:1' }, adapters, isType);
    expect(routing.routes.map((r) => `${r.accountTypeId}=${r.adapter}:${r.target}`)).to.deep.equal(['11=fake:alpha', '12=fake:alpha', '13=fake:beta']);
    const registry = await VenueRegistry.start(routing, adapters, { clock: () => new Date(), log: console });
    expect(started).to.deep.equal(['alpha@http://127.0.0.1:1', 'beta@http://127.0.0.1:1']);
    expect(registry.venueFor(11)?.name).to.equal('fake-alpha');
    expect(registry.venueFor(12)).to.equal(registry.venueFor(11));
    expect(registry.venueFor(13)?.name).to.equal('fake-beta');
    expect(registry.venueFor(1)).to.equal(null);
    await registry.stop();
    expect(stopped).to.deep.equal(['alpha', 'beta']);
  });

  it('refuses a malformed entry, an unknown account type, adapter or target, a type routed twice and bad adapter settings', () => {
    const adapters = { fake: fakeAdapter([], []) as VenueAdapter };
    const refusal = (value: string, env: NodeJS.ProcessEnv = {}) => {
      try {
        parseVenueRouting(value, env, adapters, isType);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refusal('11:fake:alpha')).to.match(/is not <account type id>=<adapter>:<target>/);
    expect(refusal('18=fake:alpha')).to.match(/18 is not an account type id/);
    expect(refusal('11=other:alpha')).to.match(/unknown adapter "other" \(known: fake\)/);
    expect(refusal('11=fake:gamma')).to.match(/fake: unknown target gamma/);
    expect(refusal('11=fake:alpha,11=fake:beta')).to.match(/account type 11 is routed twice/);
    expect(refusal('11=fake:alpha', { FAKE_URL: 'bad' })).to.match(/FAKE_URL must be a URL/);
  });
});
