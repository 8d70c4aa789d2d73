// What the ccxt adapter's unit specs share: a started fake exchange holding the account they trade
// (key-1 / secret-1, 10,000 USDT; OKX's passphrase pass-1) and the adapter's venue pointed at it.
import { ccxtAdapter } from '../../engine/venues/ccxt/adapter.js';
import type { VenueLog } from '../../engine/venues/registry.js';
import { type FakeDialect, FakeExchange } from './fakeExchange.js';

/** A started fake `dialect` exchange holding key-1 / secret-1 with 10,000 USDT (OKX: passphrase pass-1). */
export const startedFakeExchange = async (dialect: FakeDialect = 'binance'): Promise<FakeExchange> => {
  const fake = new FakeExchange(dialect);
  await fake.start();
  fake.addAccount('key-1', 'secret-1', { USDT: 10_000 }, dialect === 'okx' ? 'pass-1' : null);
  return fake;
};

/** A log keeping info lines in `infos` and warnings and errors in `warnings`. */
export const keptLog = (infos: string[], warnings: string[]): VenueLog => ({
  info: (m) => infos.push(m),
  warn: (m) => warnings.push(m),
  error: (m) => warnings.push(m),
});

/** The adapter's venue of `target` (a dialect, or okxswap) at `fake`: a 60 s poll and a 700 ms timeout unless `settings` say otherwise. */
export const ccxtVenueAt = (fake: FakeExchange, target: FakeDialect | 'okxswap', log: VenueLog, settings: Record<string, string> = {}) =>
  ccxtAdapter.venue(target, ccxtAdapter.config({ CCXT_BASE_URL: fake.url, CCXT_POLL_MS: '60000', CCXT_TIMEOUT_MS: '700', ...settings }), {
    clock: () => new Date(),
    log,
  });
