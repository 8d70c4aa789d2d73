import { expect } from 'chai';
import { permittedSymbols } from '../../../../domain/copy/features/permittedSymbols.js';
import { skipPosition } from '../../../../domain/copy/features/skipPosition.js';
import { given, masterModified, masterOpened, masterPendingPlaced, symbolSpec } from '../given.js';

describe('feature: FeatureSkipPositionDTO', () => {
  const skipping = (magicNumbers: number[], commentContains: string[] = []) => ({
    feature: skipPosition,
    settings: { ifSlNotDefined: false, ifTpNotDefined: false, logicOperatorTpSl: 'OR', magicNumbers, commentContains },
  });

  const levels = (settings: Record<string, unknown>) => ({
    feature: skipPosition,
    settings: { ifSlNotDefined: false, ifTpNotDefined: false, logicOperatorTpSl: 'OR', magicNumbers: [], commentContains: [], ...settings },
  });

  it('ifSlNotDefined and ifTpNotDefined skip a trade without that level (0 is none), OR by default, AND when asked', () => {
    given({ features: [levels({ ifSlNotDefined: true })] })
      .when(masterOpened({ stopLoss: null, takeProfit: 1.2 }))
      .thenSkips('POSITION_SKIPPED', /it has no stop loss/);
    given({ features: [levels({ ifSlNotDefined: true })] })
      .when(masterOpened({ stopLoss: 0, takeProfit: null }))
      .thenSkips('POSITION_SKIPPED', /no stop loss/);
    given({ features: [levels({ ifSlNotDefined: true })] })
      .when(masterOpened({ stopLoss: 1.05, takeProfit: null }))
      .then([{ type: 'open' }]);
    given({ features: [levels({ ifSlNotDefined: true, ifTpNotDefined: true })] })
      .when(masterOpened({ stopLoss: 1.05, takeProfit: null }))
      .thenSkips('POSITION_SKIPPED', /it has no take profit/);
    given({ features: [levels({ ifSlNotDefined: true, ifTpNotDefined: true, logicOperatorTpSl: 'AND' })] })
      .when(masterOpened({ stopLoss: 1.05, takeProfit: null }))
      .then([{ type: 'open' }]);
    given({ features: [levels({ ifSlNotDefined: true, ifTpNotDefined: true, logicOperatorTpSl: 'AND' })] })
      .when(masterOpened({ stopLoss: null, takeProfit: null }))
      .thenSkips('POSITION_SKIPPED', /it has no stop loss and take profit/);
    expect(
      skipPosition.check!({
        ifSlNotDefined: true,
        ifTpNotDefined: false,
        logicOperatorTpSl: 'OR',
        magicNumbers: [],
        commentContains: [],
        symbolsConfiguration: {},
      }),
    ).to.equal(null);
  });

  it('skips a master trade with a listed magic number', () =>
    given({ features: [skipping([42, 7])] })
      .when(masterOpened({ magicNumber: 42 }))
      .thenSkips('POSITION_SKIPPED', /magic number 42/));

  it('copies a trade with another magic number, or none', () => {
    given({ features: [skipping([42])] })
      .when(masterOpened({ magicNumber: 43 }))
      .then([{ type: 'open' }]);
    given({ features: [skipping([42])] })
      .when(masterOpened({ magicNumber: null }))
      .then([{ type: 'open' }]);
  });

  it('skips a trade whose comment contains a listed text, without case, pending orders too', () => {
    given({ features: [skipping([], ['hedge'])] })
      .when(masterOpened({ comment: 'Grid HEDGE #3' }))
      .thenSkips('POSITION_SKIPPED', /comment 'Grid HEDGE #3' contains 'hedge'/);
    given({ features: [skipping([], ['hedge'])] })
      .when(masterPendingPlaced('SellStop', { comment: 'hedge', openPrice: 1.09 }))
      .thenSkips('POSITION_SKIPPED');
  });

  it('reads the texts as plain text, not patterns: a dot is a dot', () => {
    given({ features: [skipping([], ['a.c'])] })
      .when(masterOpened({ comment: 'abc' }))
      .then([{ type: 'open' }]);
    given({ features: [skipping([], ['a.c'])] })
      .when(masterOpened({ comment: 'xa.cx' }))
      .thenSkips('POSITION_SKIPPED');
    given({ features: [skipping([], ['(a+)+$'])] })
      .when(masterOpened({ comment: `${'a'.repeat(40)}!` }))
      .then([{ type: 'open' }]);
  });

  it('copies a trade without a comment', () =>
    given({ features: [skipping([], ['x'])] })
      .when(masterOpened({ comment: null }))
      .then([{ type: 'open' }]));

  it('does not filter stop changes (a skipped trade has no copy to change)', () =>
    given({ features: [skipping([42])] })
      .when(masterModified(1.09, 1.12))
      .thenSkips('NO_SLAVE_POSITION'));

  it('needs a missing level to skip on, or at least one magic number or text', () => {
    const none = {
      ifSlNotDefined: false,
      ifTpNotDefined: false,
      logicOperatorTpSl: 'OR' as const,
      magicNumbers: [],
      commentContains: [],
      symbolsConfiguration: {},
    };
    expect(skipPosition.check!(none)).to.match(/at least one/);
    expect(skipPosition.check!({ ...none, magicNumbers: [1] })).to.equal(null);
    // A symbol's own members are enough.
    expect(skipPosition.check!({ ...none, symbolsConfiguration: { EURUSD: { ifSlNotDefined: true } } })).to.equal(null);
    expect(skipPosition.check!({ ...none, symbolsConfiguration: { EURUSD: { ifSlNotDefined: false } } })).to.match(/at least one/);
  });

  describe('symbolsConfiguration', () => {
    const slaveSymbols = [symbolSpec(), symbolSpec({ symbol: 'GBPUSD' })];
    const perSymbol = {
      feature: skipPosition,
      settings: { ...skipPosition.defaults, ifTpNotDefined: true, symbolsConfiguration: { EURUSD: { ifSlNotDefined: true, ifTpNotDefined: false } } },
    };

    it("judges a trade on a configured symbol by the symbol's members, which take priority over the general ones", () => {
      given({ features: [perSymbol], slaveSymbols })
        .when(masterOpened({ stopLoss: null, takeProfit: 1.12 }))
        .thenSkips('POSITION_SKIPPED', /it has no stop loss/);
      given({ features: [perSymbol], slaveSymbols })
        .when(masterOpened({ stopLoss: 1.09, takeProfit: null }))
        .then([{ type: 'open' }]);
    });

    it('judges the trades on other symbols by the general members', () => {
      given({ features: [perSymbol], slaveSymbols })
        .when(masterOpened({ symbol: 'GBPUSD', stopLoss: 1.26, takeProfit: null }))
        .thenSkips('POSITION_SKIPPED', /it has no take profit/);
      given({ features: [perSymbol], slaveSymbols })
        .when(masterOpened({ symbol: 'GBPUSD', stopLoss: null, takeProfit: 1.28 }))
        .then([{ type: 'open' }]);
    });
  });

  it('with permitted symbols beside it, either refuses the trade', () => {
    const both = [{ feature: permittedSymbols, settings: { whitelist: ['EURUSD'], blacklist: [] } }, skipping([42])];
    given({ features: both })
      .when(masterOpened({ magicNumber: 42 }))
      .thenSkips('POSITION_SKIPPED');
    given({ features: both })
      .when(masterOpened({ magicNumber: 1 }))
      .then([{ type: 'open' }]);
  });
});
