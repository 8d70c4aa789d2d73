import { tradeCooldown } from '../../../../domain/copy/features/tradeCooldown.js';
import { given, masterOpened, masterPendingPlaced, NOW, record } from '../given.js';

describe('feature: FeatureTradeCooldownDTO', () => {
  const cooldown = (settings: Record<string, unknown>) => ({ feature: tradeCooldown, settings: { cooldownMinutes: 30, ...settings } });
  const closedAgo = (minutes: number, overrides: Parameters<typeof record>[0] = {}) =>
    record({
      closedAt: new Date(Date.parse(NOW) - minutes * 60_000).toISOString(),
      openedAt: new Date(Date.parse(NOW) - (minutes + 60) * 60_000).toISOString(),
      ...overrides,
    });

  it('skips an open within the cooldown after a close on the same symbol (anchor CLOSE, the default)', () =>
    given({ features: [cooldown({})], history: [closedAgo(10)] })
      .when(masterOpened())
      .thenSkips('COOLDOWN', /cooldown of 30 minutes until 2026-01-07T10:20:00.000Z/));

  it('copies once the cooldown has run out, to the minute', () => {
    given({ features: [cooldown({})], history: [closedAgo(30)] })
      .when(masterOpened())
      .then([{ type: 'open' }]);
    given({ features: [cooldown({})], history: [closedAgo(29.99)] })
      .when(masterOpened())
      .thenSkips('COOLDOWN');
  });

  it('anchor OPEN counts from when the earlier copy opened, open or closed', () => {
    const openedTenAgo = record({ openedAt: new Date(Date.parse(NOW) - 10 * 60_000).toISOString(), closedAt: null, result: null });
    given({ features: [cooldown({ cooldownAnchor: 'OPEN' })], history: [openedTenAgo] })
      .when(masterOpened())
      .thenSkips('COOLDOWN');
    given({ features: [cooldown({ cooldownAnchor: 'CLOSE' })], history: [openedTenAgo] })
      .when(masterOpened())
      .then([{ type: 'open' }]);
  });

  it('another symbol does not start a cooldown, unless both are in one correlation group', () => {
    const gbp = closedAgo(5, { symbol: 'GBPUSD' });
    given({ features: [cooldown({})], history: [gbp] })
      .when(masterOpened())
      .then([{ type: 'open' }]);
    given({ features: [cooldown({ correlationGroups: [['EURUSD', 'gbpusd']] })], history: [gbp] })
      .when(masterOpened())
      .thenSkips('COOLDOWN', /GBPUSD/);
  });

  it('trackDirection: only an earlier trade in the same direction counts', () => {
    const sold = closedAgo(5, { side: 'Sell' });
    given({ features: [cooldown({ trackDirection: true })], history: [sold] })
      .when(masterOpened({ orderType: 'Buy' }))
      .then([{ type: 'open' }]);
    given({ features: [cooldown({ trackDirection: true })], history: [sold] })
      .when(masterOpened({ orderType: 'Sell' }))
      .thenSkips('COOLDOWN');
    given({ features: [cooldown({ trackDirection: false })], history: [sold] })
      .when(masterOpened({ orderType: 'Buy' }))
      .thenSkips('COOLDOWN');
  });

  it('a symbol override sets its own minutes; 0 turns the cooldown off there', () => {
    given({ features: [cooldown({ symbolOverrides: [{ symbol: 'eurusd', cooldownMinutes: 5 }] })], history: [closedAgo(10)] })
      .when(masterOpened())
      .then([{ type: 'open' }]);
    given({ features: [cooldown({ symbolOverrides: [{ symbol: 'EURUSD', cooldownMinutes: 60 }] })], history: [closedAgo(45)] })
      .when(masterOpened())
      .thenSkips('COOLDOWN');
    given({ features: [cooldown({ symbolOverrides: [{ symbol: 'EURUSD', cooldownMinutes: 0 }] })], history: [closedAgo(1)] })
      .when(masterOpened())
      .then([{ type: 'open' }]);
  });

  it('never holds back a pending order', () =>
    given({ features: [cooldown({})], history: [closedAgo(1)] })
      .when(masterPendingPlaced('BuyLimit', { openPrice: 1.09 }))
      .then([{ type: 'open' }]));

  it('refuses two overrides of one symbol', () => {
    const problem = tradeCooldown.check!({
      ...tradeCooldown.defaults,
      cooldownMinutes: 5,
      symbolOverrides: [
        { symbol: 'EURUSD', cooldownMinutes: 1 },
        { symbol: 'eurusd', cooldownMinutes: 2 },
      ],
    } as never);
    if (!problem?.includes('two overrides')) throw new Error(`expected a refusal, got ${problem}`);
  });
});
