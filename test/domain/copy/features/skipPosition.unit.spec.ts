import { expect } from 'chai';
import { permittedSymbols } from '../../../../domain/copy/features/permittedSymbols.js';
import { skipPosition } from '../../../../domain/copy/features/skipPosition.js';
import { given, masterModified, masterOpened, masterPendingPlaced } from '../given.js';

describe('feature: FeatureSkipPositionDTO', () => {
  const skipping = (magicNumbers: number[], commentContains: string[] = []) => ({ feature: skipPosition, settings: { magicNumbers, commentContains } });

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

  it('needs at least one magic number or text', () => {
    expect(skipPosition.check!({ magicNumbers: [], commentContains: [] })).to.match(/at least one/);
    expect(skipPosition.check!({ magicNumbers: [1], commentContains: [] })).to.equal(null);
  });

  it('with permitted symbols beside it, either refuses the trade', () => {
    const both = [{ feature: permittedSymbols, settings: { permittedSymbols: ['EURUSD'], blockedSymbols: [] } }, skipping([42])];
    given({ features: both })
      .when(masterOpened({ magicNumber: 42 }))
      .thenSkips('POSITION_SKIPPED');
    given({ features: both })
      .when(masterOpened({ magicNumber: 1 }))
      .then([{ type: 'open' }]);
  });
});
