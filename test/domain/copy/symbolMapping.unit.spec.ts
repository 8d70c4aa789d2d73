import { expect } from 'chai';
import { mapSymbol, type ProjectMapping, resolveSymbol } from '../../../domain/copy/symbolMapping.js';

describe('copy symbol mapping: mapSymbol', () => {
  it('takes the exact name first, even when decorated names exist', () => expect(mapSymbol('EURUSD', ['EURUSD.m', 'EURUSD', 'eurusd'])).to.equal('EURUSD'));

  it('then a case-insensitive name', () => expect(mapSymbol('EURUSD', ['eurusd', 'GBPUSD'])).to.equal('eurusd'));

  it('returns null when two names differ only by case from the master', () => expect(mapSymbol('EURUSD', ['eurusd', 'EurUsd'])).to.equal(null));

  describe('broker prefixes and suffixes', () => {
    const cases: readonly (readonly [string, string])[] = [
      ['EURUSD', 'EURUSD.m'],
      ['EURUSD', 'EURUSDpro'],
      ['EURUSD', 'm.EURUSD'],
      ['EURUSD', 'EURUSD-ECN'],
      ['EURUSD', 'eurusd#'],
      ['EURUSD', 'EURUSDm'],
      ['XAUUSD', 'XAUUSD_raw'],
      ['US30', 'US30.cash'],
      ['EURUSD.m', 'EURUSD'],
      ['EURUSDpro', 'EURUSD'],
      ['EURUSD.m', 'EURUSD-ECN'],
      ['EURUSDm', 'EURUSDpro'],
    ];
    for (const [master, slave] of cases) it(`maps ${master} to ${slave}`, () => expect(mapSymbol(master, ['GBPUSD', slave, 'USDJPY.m'])).to.equal(slave));
  });

  it('prefers a separated suffix to a glued one: EURUSD goes to EURUSD.m before EURUSDpro', () =>
    expect(mapSymbol('EURUSD', ['EURUSDpro', 'EURUSD.m'])).to.equal('EURUSD.m'));

  it("prefers the plain name when only the master's is glued: EURUSDm goes to EURUSD before EURUSDc", () =>
    expect(mapSymbol('EURUSDm', ['EURUSDc', 'EURUSD'])).to.equal('EURUSD'));

  it('returns null when two decorated names match equally', () => expect(mapSymbol('EURUSD', ['EURUSD.m', 'EURUSD.pro'])).to.equal(null));

  it('returns null when nothing matches', () => expect(mapSymbol('XAGUSD', ['EURUSD', 'XAUUSD'])).to.equal(null));

  it('does not take a different instrument for a suffix: BTCUSD is not BTCUSDT', () => expect(mapSymbol('BTCUSD', ['BTCUSDT', 'ETHUSDT'])).to.equal(null));

  it('does not strip an unknown suffix: EURUSD.xyz stays unmapped', () => expect(mapSymbol('EURUSD', ['EURUSD.xyz'])).to.equal(null));

  describe('explicit overrides', () => {
    it('win over an exact match', () => expect(mapSymbol('GOLD', ['GOLD', 'XAUUSD.m'], { GOLD: 'XAUUSD.m' })).to.equal('XAUUSD.m'));

    it('match the master symbol case-insensitively and return the slave spelling', () =>
      expect(mapSymbol('gold', ['xauusd'], { GOLD: 'XAUUSD' })).to.equal('xauusd'));

    it('return null when the target is not offered by the slave, rather than guessing', () =>
      expect(mapSymbol('EURUSD', ['EURUSD'], { EURUSD: 'EURUSD.x' })).to.equal(null));

    it('leave other symbols to automatic mapping', () => expect(mapSymbol('GBPUSD', ['GBPUSD.m', 'XAUUSD'], { GOLD: 'XAUUSD' })).to.equal('GBPUSD.m'));
  });

  describe('project mappings (reference SymbolMappingDTO), already filtered by broker and ordered by priority', () => {
    const mapping = (id: number, from: string, to: string, priority = 0): ProjectMapping => ({ id, from, to, priority });

    it('send an alias to the slave symbol: GOLD goes to XAUUSD', () =>
      expect(resolveSymbol('GOLD', ['XAUUSD', 'EURUSD'], {}, [mapping(1, 'GOLD', 'XAUUSD')])).to.deep.equal({
        symbol: 'XAUUSD',
        source: 'PROJECT',
        mapping: mapping(1, 'GOLD', 'XAUUSD'),
        suggestions: [],
      }));

    it('come after the copier’s own override', () =>
      expect(mapSymbol('GOLD', ['XAUUSD', 'XAUUSD.m'], { GOLD: 'XAUUSD.m' }, [mapping(1, 'GOLD', 'XAUUSD')])).to.equal('XAUUSD.m'));

    it('win over the name: a mapping of EURUSD to EURUSD.pro beats the exact EURUSD', () =>
      expect(mapSymbol('EURUSD', ['EURUSD', 'EURUSD.pro'], {}, [mapping(1, 'EURUSD', 'EURUSD.pro')])).to.equal('EURUSD.pro'));

    it('are tried in order: the first whose target the slave offers wins', () => {
      const ordered = [mapping(7, 'GOLD', 'GOLD.x', 0), mapping(3, 'GOLD', 'XAUUSD.m', 1), mapping(2, 'GOLD', 'XAUUSD', 2)];
      const resolved = resolveSymbol('GOLD', ['XAUUSD', 'XAUUSD.m'], {}, ordered);
      expect([resolved.symbol, resolved.mapping?.id]).to.deep.equal(['XAUUSD.m', 3]);
    });

    it('answer null when none of the symbol’s targets is offered, rather than guessing by name', () =>
      expect(resolveSymbol('EURUSD', ['EURUSD'], {}, [mapping(1, 'EURUSD', 'EURUSD.x')])).to.deep.include({ symbol: null, source: 'UNMAPPED' }));

    it('match the master symbol exactly first, then without case', () => {
      expect(mapSymbol('gold', ['XAUUSD', 'XAU'], {}, [mapping(1, 'GOLD', 'XAUUSD'), mapping(2, 'gold', 'XAU')])).to.equal('XAU');
      expect(mapSymbol('Gold', ['XAUUSD', 'XAU'], {}, [mapping(1, 'GOLD', 'XAUUSD')])).to.equal('XAUUSD');
    });

    it('leave other symbols to automatic mapping', () =>
      expect(resolveSymbol('EURUSD', ['EURUSD.m'], {}, [mapping(1, 'GOLD', 'XAUUSD')])).to.deep.include({ symbol: 'EURUSD.m', source: 'AUTOMATIC' }));
  });

  it('lists the candidates when the name finds several: EURUSD at a broker with EURUSD.m and EURUSD.pro', () =>
    expect(resolveSymbol('EURUSD', ['EURUSD.m', 'EURUSD.pro', 'GBPUSD'])).to.deep.equal({
      symbol: null,
      source: 'UNMAPPED',
      mapping: null,
      suggestions: ['EURUSD.m', 'EURUSD.pro'],
    }));
});
