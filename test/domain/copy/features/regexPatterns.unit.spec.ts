import { expect } from 'chai';
import { regexListProblem, regexMatcher, regexProblem } from '../../../../domain/copy/features/regexPatterns.js';

describe('regular expressions of copier features (regexPatterns)', () => {
  it('accepts the patterns people write for symbols, comments and magic numbers', () => {
    for (const pattern of [
      'EURUSD',
      '^EUR',
      'USD$',
      '^(EURUSD|GBPUSD)$',
      'XAU.*',
      '^US30(\\.cash)?$',
      '^1\\d{3}$',
      '[A-Z]{6}\\.m',
      '(?:ab)+c',
      'a{',
      '(?<sym>EUR)USD',
    ])
      expect(regexProblem(pattern), pattern).to.equal(null);
  });

  it('refuses what is no regular expression, empty or too long', () => {
    expect(regexProblem('EUR(')).to.match(/^is no regular expression \(.*\)$/);
    expect(regexProblem('[z-a]')).to.match(/is no regular expression/);
    expect(regexProblem('(?i)eur')).to.match(/is no regular expression/);
    expect(regexProblem('')).to.equal('is empty');
    expect(regexProblem('a'.repeat(101))).to.equal('is longer than 100 characters');
  });

  it('refuses a repeated group that holds a quantifier or an alternation, at any depth', () => {
    for (const pattern of ['(a+)+$', '(a|aa)*b', '(?:x*y)*', '((ab)+c)+', '(a|b){2,}', '(.*a){3}'])
      expect(regexProblem(pattern), pattern).to.match(/repeats a group that holds a quantifier or an alternation/);
    // Optional once, or repeated without anything inside that backtracks: fine.
    expect(regexProblem('(a|b)?c')).to.equal(null);
    expect(regexProblem('(ab)+c')).to.equal(null);
  });

  it('refuses backreferences', () => {
    expect(regexProblem('(a)\\1')).to.match(/backreference/);
    expect(regexProblem('(?<x>a)\\k<x>')).to.match(/backreference/);
  });

  it('refuses more than 3 quantifiers or more than 2 repeating ones; those in a character class do not count', () => {
    expect(regexProblem('.*.*.*x')).to.equal('has 3 repeating quantifiers (*, +, {n,m}), more than 2');
    expect(regexProblem('a?b?c?d?')).to.equal('has 4 quantifiers, more than 3');
    expect(regexProblem('.*a?.+')).to.equal(null);
    expect(regexProblem('[*+?]{1,3}')).to.equal(null);
  });

  it('names the member and the pattern refused', () =>
    expect(regexListProblem(['^EUR', '(a+)+'], 'comment')).to.match(/^comment: '\(a\+\)\+' repeats a group/));

  it('matches without case and anywhere, combining patterns with OR; none match with no patterns', () => {
    const match = regexMatcher(['^eur', 'JPY$']);
    expect(['EURUSD', 'usdjpy', 'GBPUSD'].map(match)).to.deep.equal([true, true, false]);
    expect(regexMatcher([])('EURUSD')).to.equal(false);
  });

  it('looks at the first 64 characters of a text only', () => {
    expect(regexMatcher(['x'])(`${'a'.repeat(64)}x`)).to.equal(false);
    expect(regexMatcher(['x'])(`${'a'.repeat(63)}x`)).to.equal(true);
  });
});
