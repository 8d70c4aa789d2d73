import { expect } from 'chai';
import { marginCap, type MarginCapSettings } from '../../../../domain/copy/features/marginCap.js';
import { martingaleStrategy } from '../../../../domain/copy/features/martingaleStrategy.js';
import type { SlaveAccountView } from '../../../../domain/copy/features/rules.js';
import { given, masterOpened, symbolSpec } from '../given.js';
import { closedCopies } from './closedCopies.js';

// A 10,000 USD account at 1:100; one lot of EURUSD needs 1,000 USD of margin now.
describe('feature: FeatureMarginCapDTO', () => {
  const account = (overrides: Partial<SlaveAccountView> = {}): SlaveAccountView => ({
    balance: 10_000,
    equity: 10_000,
    usedMargin: 0,
    freeMargin: 10_000,
    leverage: 100,
    currency: 'USD',
    ...overrides,
  });
  const cap = (settings: Partial<MarginCapSettings> & { marginCapPercentage: number }) => ({ feature: marginCap, settings });
  const open = (
    settings: Partial<MarginCapSettings> & { marginCapPercentage: number },
    volume: number,
    slaveAccount = account(),
    marginPerLot: number | null = 1000,
  ) => given({ features: [cap(settings)], slaveAccount, marginPerLot }).when(masterOpened({ volume }));

  it('PER_TRADE reduces a lot whose own margin is above the cap to the most that fits', () =>
    open({ marginCapPercentage: 5, kind: 'PER_TRADE' }, 1).then([{ type: 'open', volume: 0.5 }]));

  it('lets a lot through whose margin reaches the cap exactly, and reduces one a step above it', () => {
    open({ marginCapPercentage: 5, kind: 'PER_TRADE' }, 0.5).then([{ type: 'open', volume: 0.5 }]);
    open({ marginCapPercentage: 5, kind: 'PER_TRADE' }, 0.51).then([{ type: 'open', volume: 0.5 }]);
    open({ marginCapPercentage: 5, kind: 'PER_TRADE' }, 0.2).then([{ type: 'open', volume: 0.2 }]);
  });

  it('SKIP_TRADE skips an open over the cap and says by how much', () =>
    open({ marginCapPercentage: 5, kind: 'PER_TRADE', behavior: 'SKIP_TRADE' }, 1).thenSkips(
      'MARGIN_CAP',
      /1 lots of EURUSD need 1000 USD margin above the cap of 5 % of the balance \(500\)/,
    ));

  it('CUMULATIVE (the default) counts the margin already in use', () => {
    open({ marginCapPercentage: 5 }, 1, account({ usedMargin: 300 })).then([{ type: 'open', volume: 0.2 }]);
    open({ marginCapPercentage: 5, behavior: 'SKIP_TRADE' }, 0.3, account({ usedMargin: 300 })).thenSkips(
      'MARGIN_CAP',
      /0\.3 lots of EURUSD need 300 USD margin, 600 with the 300 in use,/,
    );
  });

  it('PER_TRADE ignores the margin in use', () =>
    open({ marginCapPercentage: 5, kind: 'PER_TRADE' }, 1, account({ usedMargin: 9000 })).then([{ type: 'open', volume: 0.5 }]));

  it('REDUCE_LOT_SIZE skips when what fits is below the minimum lot', () => {
    open({ marginCapPercentage: 5 }, 1, account({ usedMargin: 600 })).thenSkips('MARGIN_CAP', /the 0 lots that fit are below the minimum 0\.01/);
    given({
      features: [cap({ marginCapPercentage: 0.5, kind: 'PER_TRADE' })],
      slaveAccount: account(),
      marginPerLot: 1000,
      slaveSymbols: [symbolSpec({ minLot: 0.1 })],
    })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('MARGIN_CAP', /the 0\.05 lots that fit are below the minimum 0\.1/);
  });

  it('leverageOverride computes every margin as if the account had that leverage', () => {
    // At 1:50 a lot needs 2,000: 500 / 2000 = 0.25 lots.
    open({ marginCapPercentage: 5, kind: 'PER_TRADE', leverageOverride: 50 }, 1).then([{ type: 'open', volume: 0.25 }]);
    // The 100 in use at 1:100 is 200 at 1:50: 300 / 2000 = 0.15.
    open({ marginCapPercentage: 5, leverageOverride: 50 }, 1, account({ usedMargin: 100 })).then([{ type: 'open', volume: 0.15 }]);
    // 0 or null: the account's own leverage.
    open({ marginCapPercentage: 5, kind: 'PER_TRADE', leverageOverride: 0 }, 1).then([{ type: 'open', volume: 0.5 }]);
  });

  it("a symbol's own percentage replaces the general one for that symbol only", () => {
    open({ marginCapPercentage: 5, kind: 'PER_TRADE', symbolsConfiguration: [{ symbol: 'eurusd', marginCapPercentage: 10 }] }, 1).then([
      { type: 'open', volume: 1 },
    ]);
    open({ marginCapPercentage: 5, kind: 'PER_TRADE', symbolsConfiguration: [{ symbol: 'GBPUSD', marginCapPercentage: 10 }] }, 1).then([
      { type: 'open', volume: 0.5 },
    ]);
  });

  it('skips when the margin cannot be measured', () => open({ marginCapPercentage: 5 }, 0.01, account(), null).thenSkips('MARGIN_CAP', /not available/));

  it('caps the lot a martingale feature doubled', () =>
    given({
      features: [{ feature: martingaleStrategy, settings: {} }, cap({ marginCapPercentage: 15, kind: 'PER_TRADE' })],
      history: closedCopies([-5]),
      slaveAccount: account(),
      marginPerLot: 1000,
    })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1.5 }]));

  it('refuses a symbol configured twice', () => {
    const settings = {
      ...marginCap.defaults,
      marginCapPercentage: 5,
      symbolsConfiguration: [
        { symbol: 'EURUSD', marginCapPercentage: 1 },
        { symbol: 'eurusd', marginCapPercentage: 2 },
      ],
    } as MarginCapSettings;
    expect(marginCap.check!(settings)).to.equal('symbol eurusd is configured twice');
  });
});
