import { expect } from 'chai';
import { mapSymbol } from '../../../domain/copy/symbolMapping.js';

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
});
