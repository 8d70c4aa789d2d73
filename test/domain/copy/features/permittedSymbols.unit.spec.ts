import { expect } from 'chai';
import { permittedSymbols, symbolMatcher } from '../../../../domain/copy/features/permittedSymbols.js';
import { tradeCooldown } from '../../../../domain/copy/features/tradeCooldown.js';
import { given, masterClosed, masterOpened, masterPendingPlaced, record, slaveCopy, symbolSpec } from '../given.js';

describe('feature: FeaturePermittedSymbolsDTO', () => {
  const lists = (whitelist: string[], blacklist: string[] = []) => ({ feature: permittedSymbols, settings: { whitelist, blacklist } });
  const gold = [
    symbolSpec(),
    symbolSpec({ symbol: 'XAUUSD', digits: 2, point: 0.01, contractSize: 100 }),
    symbolSpec({ symbol: 'BTC/USD', digits: 2, point: 0.01, contractSize: 1 }),
  ];

  it('copies a master symbol the whitelist matches, without case and anywhere in the name', () => {
    given({ features: [lists(['eurusd'])] })
      .when(masterOpened({ symbol: 'EURUSD' }))
      .then([{ type: 'open', symbol: 'EURUSD' }]);
    given({ features: [lists(['^GBP', 'usd$'])] })
      .when(masterOpened({ symbol: 'EURUSD' }))
      .then([{ type: 'open', symbol: 'EURUSD' }]);
  });

  it('skips a master symbol the whitelist does not match, pending orders included', () => {
    given({ features: [lists(['^EUR'])], slaveSymbols: gold })
      .when(masterOpened({ symbol: 'XAUUSD' }))
      .thenSkips('SYMBOL_NOT_PERMITTED', /XAUUSD matches none of the whitelist \^EUR/);
    given({ features: [lists(['^EUR'])], slaveSymbols: gold })
      .when(masterPendingPlaced('BuyLimit', { symbol: 'XAUUSD', openPrice: 2300 }))
      .thenSkips('SYMBOL_NOT_PERMITTED');
  });

  it('skips a master symbol the blacklist matches when there is no whitelist', () => {
    given({ features: [lists([], ['^xau', 'BTC/'])], slaveSymbols: gold })
      .when(masterOpened({ symbol: 'BTC/USD' }))
      .thenSkips('SYMBOL_NOT_PERMITTED', /BTC\/USD matches the blacklist \^xau, BTC\//);
    given({ features: [lists([], ['^XAU'])], slaveSymbols: gold })
      .when(masterOpened({ symbol: 'EURUSD' }))
      .then([{ type: 'open' }]);
  });

  it('the whitelist has priority: a symbol both lists match is copied, one the whitelist misses is not', () => {
    given({ features: [lists(['USD'], ['^EUR'])] })
      .when(masterOpened({ symbol: 'EURUSD' }))
      .then([{ type: 'open' }]);
    given({ features: [lists(['^EUR'], ['^GBP'])], slaveSymbols: gold })
      .when(masterOpened({ symbol: 'XAUUSD' }))
      .thenSkips('SYMBOL_NOT_PERMITTED', /none of the whitelist/);
  });

  it('copies every symbol with both lists empty', () =>
    given({ features: [lists([], [])] })
      .when(masterOpened())
      .then([{ type: 'open' }]));

  it('never filters the close of a copy that exists', () =>
    given({ features: [lists(['^GBP'])], slave: { copies: [slaveCopy()] } })
      .when(masterClosed())
      .then([{ type: 'close' }]));

  it('refuses patterns that are no regular expression or could stall the engine, naming the member', () => {
    expect(permittedSymbols.check!({ whitelist: ['EUR('], blacklist: [] })).to.match(/^whitelist: 'EUR\(' is no regular expression/);
    expect(permittedSymbols.check!({ whitelist: [], blacklist: ['(a+)+$'] })).to.match(/^blacklist: '\(a\+\)\+\$' repeats a group/);
    expect(permittedSymbols.check!({ whitelist: ['^(EUR|GBP)USD$', 'XAU.*'], blacklist: ['BTC'] })).to.equal(null);
  });

  it('with a cooldown beside it, a permitted symbol can still be refused by the cooldown', () =>
    given({
      features: [lists(['^EUR']), { feature: tradeCooldown, settings: { cooldownMinutes: 60 } }],
      history: [record({ closedAt: '2026-01-07T09:30:00.000Z' })],
    })
      .when(masterOpened())
      .thenSkips('COOLDOWN'));
});

// The glob patterns of FeatureBlockHedgingDTO and FeatureScheduledCloseReopenDTO's schedules.
describe('symbol globs (symbolMatcher)', () => {
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

  it('a symbol longer than 64 characters matches no entry, not even *', () => {
    expect(symbolMatcher(['*'])('a'.repeat(64))).to.equal(true);
    expect(symbolMatcher(['*'])('a'.repeat(65))).to.equal(false);
  });
});
