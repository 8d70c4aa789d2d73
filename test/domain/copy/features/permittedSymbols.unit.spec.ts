import { expect } from 'chai';
import { permittedSymbols, symbolMatcher } from '../../../../domain/copy/features/permittedSymbols.js';
import { tradeCooldown } from '../../../../domain/copy/features/tradeCooldown.js';
import { given, masterClosed, masterOpened, masterPendingPlaced, record, slaveCopy, symbolSpec } from '../given.js';

describe('feature: FeaturePermittedSymbolsDTO', () => {
  const only = (permitted: string[], blocked: string[] = []) => ({
    feature: permittedSymbols,
    settings: { permittedSymbols: permitted, blockedSymbols: blocked },
  });
  const gold = [
    symbolSpec(),
    symbolSpec({ symbol: 'XAUUSD', digits: 2, point: 0.01, contractSize: 100 }),
    symbolSpec({ symbol: 'BTC/USD', digits: 2, point: 0.01, contractSize: 1 }),
  ];

  it('copies a master symbol that is permitted, whatever its case', () =>
    given({ features: [only(['eurusd'])] })
      .when(masterOpened({ symbol: 'EURUSD' }))
      .then([{ type: 'open', symbol: 'EURUSD' }]));

  it('skips a master symbol that is not permitted, pending orders included', () => {
    given({ features: [only(['EUR*'])], slaveSymbols: gold })
      .when(masterOpened({ symbol: 'XAUUSD' }))
      .thenSkips('SYMBOL_NOT_PERMITTED', /XAUUSD is not among the permitted symbols EUR\*/);
    given({ features: [only(['EUR*'])], slaveSymbols: gold })
      .when(masterPendingPlaced('BuyLimit', { symbol: 'XAUUSD', openPrice: 2300 }))
      .thenSkips('SYMBOL_NOT_PERMITTED');
  });

  it('matches * across any characters and ? as exactly one', () => {
    const match = symbolMatcher(['EUR*', 'XAU???', '*.pro']);
    expect(['EURUSD', 'eurusd.m', 'EUR', 'XAUUSD', 'gbpusd.pro'].map(match)).to.deep.equal([true, true, true, true, true]);
    expect(['XAUUSDX', 'XAUUS', 'GBPUSD', 'US30'].map(match)).to.deep.equal([false, false, false, false]);
  });

  it('reads a slash as part of the symbol, so BTC* matches BTC/USD', () => {
    expect(symbolMatcher(['BTC*'])('BTC/USD')).to.equal(true);
    expect(symbolMatcher(['BTC/*'])('btc/usd')).to.equal(true);
    expect(symbolMatcher(['BTC*'])('ETH/BTC')).to.equal(false);
  });

  it('blocked symbols win over permitted ones; an empty permitted list permits everything else', () => {
    given({ features: [only(['*'], ['BTC*'])], slaveSymbols: gold })
      .when(masterOpened({ symbol: 'BTC/USD' }))
      .thenSkips('SYMBOL_NOT_PERMITTED', /matches the blocked symbols BTC\*/);
    given({ features: [only([], ['XAU*'])], slaveSymbols: gold })
      .when(masterOpened({ symbol: 'EURUSD' }))
      .then([{ type: 'open' }]);
    given({ features: [only([], ['XAU*'])], slaveSymbols: gold })
      .when(masterOpened({ symbol: 'xauusd' }))
      .thenSkips('SYMBOL_NOT_PERMITTED');
  });

  it('never filters the close of a copy that exists', () =>
    given({ features: [only(['GBP*'])], slave: { copies: [slaveCopy()] } })
      .when(masterClosed())
      .then([{ type: 'close' }]));

  it('refuses no entries at all, and a pattern with more than three stars (it could stall the engine)', () => {
    expect(permittedSymbols.check!({ permittedSymbols: [], blockedSymbols: [] })).to.match(/at least one entry/);
    expect(permittedSymbols.check!({ permittedSymbols: ['*E*U*R*'], blockedSymbols: [] })).to.match(/'\*E\*U\*R\*' has more than 3 '\*'/);
    expect(permittedSymbols.check!({ permittedSymbols: ['*E*U*'], blockedSymbols: [] })).to.equal(null);
  });

  it('a symbol longer than 64 characters matches no entry, not even *', () => {
    expect(symbolMatcher(['*'])('a'.repeat(64))).to.equal(true);
    expect(symbolMatcher(['*'])('a'.repeat(65))).to.equal(false);
  });

  it('with a cooldown beside it, a permitted symbol can still be refused by the cooldown', () =>
    given({
      features: [only(['EUR*']), { feature: tradeCooldown, settings: { cooldownMinutes: 60 } }],
      history: [record({ closedAt: '2026-01-07T09:30:00.000Z' })],
    })
      .when(masterOpened())
      .thenSkips('COOLDOWN'));
});
