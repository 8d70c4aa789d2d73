// A corpus of charting alerts (issue 22): what platforms and people send, in JSON and text, with typos,
// several languages' number formats and hostile input, each with the trade it must make, or the reason
// it must make none. The alert is read (domain/chartingWebhook/message.ts) and planned
// (domain/chartingWebhook/plan.ts) against one account: EURUSD-like symbols (5 digits, lots 0.01 to 100
// by 0.01), bid 1.10000 / ask 1.10020, balance 10,000, a point of one lot worth 1.
import { expect } from 'chai';
import { CHARTING_WEBHOOK_DEFAULTS, volumeCapOf } from '../../../domain/chartingWebhook/feature.js';
import { readAlert } from '../../../domain/chartingWebhook/message.js';
import { type LegOrder, planOpen } from '../../../domain/chartingWebhook/plan.js';
import { parseAlertNumber } from '../../../domain/chartingWebhook/numbers.js';
import type { RiskPerTradeSettings } from '../../../domain/copy/features/riskPerTrade.js';

const SYMBOL = { point: 0.00001, digits: 5, minVolume: 0.01, maxVolume: 100, volumeStep: 0.01 };
const QUOTE = { bid: 1.1, ask: 1.1002 };
const RISK_PER_TRADE: RiskPerTradeSettings = {
  absoluteRisk: 0,
  relativeRisk: 0,
  aggregateRiskPerSymbol: false,
  correctLotSizeBasedOnTheStopLoss: false,
  autoCloseOnRiskThresholdReached: true,
  tickValue: 1,
  tickValueAutomaticAdjustement: false,
  symbolsConfiguration: {},
};

type Leg = Pick<LegOrder, 'orderType' | 'volume' | 'openPrice' | 'stopLoss' | 'takeProfit'>;

interface Case {
  readonly says: string;
  readonly body: string;
  /** The trade: one entry per position; or what a close or modify targets. */
  readonly trade?: readonly Leg[];
  readonly close?: { readonly symbol: string; readonly side: 'buy' | 'sell' | null };
  readonly modify?: { readonly symbol: string; readonly stopLoss: number | null; readonly takeProfit: number | null };
  /** Refused: a part of the reason. */
  readonly refused?: string;
  readonly maxAllowedVolume?: number | null;
  readonly withoutRiskPerTrade?: boolean;
}

const buy = (volume: number, stopLoss = 0, takeProfit = 0): Leg => ({ orderType: 'Buy', volume, openPrice: 0, stopLoss, takeProfit });
const sell = (volume: number, stopLoss = 0, takeProfit = 0): Leg => ({ orderType: 'Sell', volume, openPrice: 0, stopLoss, takeProfit });

const CORPUS: readonly Case[] = [
  // ---------------------------------------------------------------- plain JSON
  { says: 'a JSON market buy', body: '{"symbol":"EURUSD","side":"buy","volume":0.1}', trade: [buy(0.1)] },
  {
    says: 'JSON with stops as prices',
    body: '{"symbol":"EURUSD","action":"sell","volume":0.25,"stopLoss":1.105,"takeProfit":1.09}',
    trade: [sell(0.25, 1.105, 1.09)],
  },
  {
    says: 'a TradingView strategy alert: ticker with its exchange, numbers as strings, two take profits',
    body: '{"ticker":"FX:EURUSD","action":"buy","contracts":"0.2","sl":"1.0950","tp":["1.1050","1.1100"]}',
    trade: [buy(0.1, 1.095, 1.105), buy(0.1, 1.095, 1.11)],
  },
  { says: 'long and short are buy and sell', body: '{"symbol":"eurusd","side":"short","lots":1}', trade: [sell(1)] },
  {
    says: 'distances in points from the entry (ask for a buy)',
    body: '{"symbol":"EURUSD","side":"buy","volume":0.1,"stopLossPoints":200,"takeProfitPoints":[300,600]}',
    trade: [buy(0.05, 1.0982, 1.1032), buy(0.05, 1.0982, 1.1062)],
  },
  {
    says: 'a JSON limit order with its price',
    body: '{"symbol":"EURUSD","side":"buy","orderType":"limit","price":1.095,"volume":0.1,"sl":1.09}',
    trade: [{ orderType: 'BuyLimit', volume: 0.1, openPrice: 1.095, stopLoss: 1.09, takeProfit: 0 }],
  },
  {
    says: 'riskPercent sized by the stop loss: 1 % of 10,000 over 500 points at 1 a point = 0.2 lots',
    body: '{"symbol":"EURUSD","side":"sell","riskPercent":1,"stopLossPoints":500}',
    trade: [sell(0.2, 1.105)],
  },
  {
    says: 'riskAmount split over two take profits: 50 over 250 points = 0.2 lots, 0.1 a leg',
    body: '{"symbol":"EURUSD","side":"buy","riskAmount":"50","sl":"1.09770","tp":[1.101,1.102]}',
    trade: [buy(0.1, 1.0977, 1.101), buy(0.1, 1.0977, 1.102)],
  },
  { says: 'a JSON close', body: '{"symbol":"EURUSD","action":"close"}', close: { symbol: 'EURUSD', side: null } },
  { says: 'flat with a side closes that side', body: '{"symbol":"EURUSD","action":"flat","side":"long"}', close: { symbol: 'EURUSD', side: 'buy' } },
  // ---------------------------------------------------------------- text
  { says: 'the shortest text alert', body: 'buy EURUSD 0.1', trade: [buy(0.1)] },
  { says: 'text in capitals with lots and stops', body: 'SELL EURUSD 0.3 LOTS SL=1.1050 TP=1.0900', trade: [sell(0.3, 1.105, 1.09)] },
  { says: 'spaces around = and :', body: 'buy EURUSD vol = 0.1 sl : 1.0950 tp = 1.1050', trade: [buy(0.1, 1.095, 1.105)] },
  {
    says: 'words in another order, key=value for everything',
    body: 'symbol=EURUSD side=long volume=0.4 tp1=1.1010 tp2=1.1020',
    trade: [buy(0.2, 0, 1.101), buy(0.2, 0, 1.102)],
  },
  {
    says: 'take profits slash-separated',
    body: 'buy EURUSD 0.3 sl=1.095 tp=1.101/1.102/1.103',
    trade: [buy(0.1, 1.095, 1.101), buy(0.1, 1.095, 1.102), buy(0.1, 1.095, 1.103)],
  },
  { says: 'new lines and semicolons separate', body: 'buy\nEURUSD;0.1\nsl=1.0950', trade: [buy(0.1, 1.095)] },
  { says: 'a trailing comma after a word', body: 'buy EURUSD, 0.1, sl=1.0950', trade: [buy(0.1, 1.095)] },
  { says: 'a decimal comma (German, French)', body: 'buy EURUSD 0,5 sl=1,0950', trade: [buy(0.5, 1.095)] },
  { says: 'thousands with dots and a decimal comma: 1020 over 1020 points', body: 'buy EURUSD risk=1.020,00 sl=1.09', trade: [buy(1, 1.09)] },
  { says: 'thousands with commas and a decimal point', body: 'buy EURUSD risk=1,530.00 sl=1.09', trade: [buy(1.5, 1.09)] },
  { says: 'risk in percent in text, distances in points', body: 'sell EURUSD risk=0.5% sl=250pts tp=500pts', trade: [sell(0.2, 1.1025, 1.095)] },
  {
    says: 'a sell limit at a price with @',
    body: 'sell limit EURUSD 0.1 @1.1050 sl=1.1100',
    trade: [{ orderType: 'SellLimit', volume: 0.1, openPrice: 1.105, stopLoss: 1.11, takeProfit: 0 }],
  },
  {
    says: 'a buy stop given as stop=price',
    body: 'buy EURUSD 0.1 stop=1.1100',
    trade: [{ orderType: 'BuyStop', volume: 0.1, openPrice: 1.11, stopLoss: 0, takeProfit: 0 }],
  },
  { says: 'a comment takes the rest of its line', body: 'buy EURUSD 0.1 comment=breakout of the range = 1.10\n', trade: [buy(0.1)] },
  { says: 'close in text', body: 'close EURUSD', close: { symbol: 'EURUSD', side: null } },
  { says: 'exit short', body: 'exit EURUSD short', close: { symbol: 'EURUSD', side: 'sell' } },
  { says: 'modify the stop loss', body: 'modify EURUSD sl=1.0980', modify: { symbol: 'EURUSD', stopLoss: 1.098, takeProfit: null } },
  // ---------------------------------------------------------------- caps
  { says: 'maxAllowedVolume caps an explicit volume', body: 'buy EURUSD 5', maxAllowedVolume: 1.5, trade: [buy(1.5)] },
  { says: 'maxAllowedVolume applies per leg', body: 'buy EURUSD 4 tp=1.101/1.102', maxAllowedVolume: 1.5, trade: [buy(1.5, 0, 1.101), buy(1.5, 0, 1.102)] },
  { says: 'maxAllowedVolume caps risk sizing too', body: 'buy EURUSD risk=10% sl=1.0990', maxAllowedVolume: 2, trade: [buy(2, 1.099)] },
  { says: 'maxAllowedVolume 0 is no cap', body: 'buy EURUSD 5', maxAllowedVolume: 0, trade: [buy(5)] },
  { says: 'maxAllowedVolume null is no cap', body: 'buy EURUSD 5', maxAllowedVolume: null, trade: [buy(5)] },
  { says: "the symbol's maximum caps what is left", body: 'buy EURUSD 150', trade: [buy(100)] },
  { says: 'a volume off the lot step is rounded down', body: 'buy EURUSD 0.129', trade: [buy(0.12)] },
  // ---------------------------------------------------------------- typos and mistakes
  { says: 'a misspelt side', body: 'by EURUSD 0.1', refused: 'two words could be the symbol: "by" and "EURUSD"' },
  { says: 'a misspelt key', body: 'buy EURUSD 0.1 stoplos=1.09', refused: 'unknown key "stoplos"' },
  { says: 'no symbol', body: 'buy 0.1', refused: 'no symbol' },
  { says: 'no side', body: 'EURUSD 0.1', refused: 'no side or action' },
  { says: 'no volume', body: 'buy EURUSD sl=1.09', refused: 'no volume, riskPercent or riskAmount' },
  { says: 'two sizings', body: 'buy EURUSD 0.1 risk=1%', refused: 'give one of volume, riskPercent and riskAmount' },
  { says: 'risk without a stop loss', body: 'buy EURUSD risk=1%', refused: 'riskPercent sizes by the stop loss' },
  {
    says: 'risk without the account-level FeatureRiskPerTradeDTO',
    body: 'buy EURUSD risk=1% sl=1.09',
    withoutRiskPerTrade: true,
    refused: 'FeatureRiskPerTradeDTO',
  },
  { says: 'a stop loss above the entry of a buy', body: 'buy EURUSD 0.1 sl=1.2', refused: 'the stop loss 1.2 is not below the entry' },
  { says: 'a take profit below the entry of a buy', body: 'buy EURUSD 0.1 tp=1.05', refused: 'the take profit 1.05 is not above the entry' },
  { says: 'a limit without a price', body: 'buy limit EURUSD 0.1', refused: 'a limit order needs a price' },
  {
    says: 'a price on a market order',
    body: '{"symbol":"EURUSD","side":"buy","orderType":"market","volume":0.1,"price":1.1}',
    refused: 'a market order takes no price',
  },
  { says: 'an unknown JSON member', body: '{"symbol":"EURUSD","side":"buy","volume":0.1,"leverage":500}', refused: 'unknown member leverage' },
  { says: 'two names for one member', body: '{"symbol":"EURUSD","ticker":"GBPUSD","side":"buy","volume":0.1}', refused: 'symbol and ticker mean the same' },
  { says: 'a volume split below the minimum', body: 'buy EURUSD 0.01 tp=1.101/1.102', refused: "below the symbol's minimum" },
  { says: 'a cap below the minimum', body: 'buy EURUSD 1', maxAllowedVolume: 0.001, refused: 'capped by maxAllowedVolume' },
  { says: 'a close with a volume', body: 'close EURUSD 0.1', refused: 'a close takes no volume' },
  { says: 'an ambiguous thousands grouping', body: 'buy EURUSD 1.00.0', refused: 'must group thousands in threes' },
  // ---------------------------------------------------------------- hostile
  { says: 'a huge volume', body: 'buy EURUSD 99999999999', refused: 'out of range' },
  { says: 'a huge JSON number', body: '{"symbol":"EURUSD","side":"buy","volume":1e308}', refused: 'out of range' },
  { says: 'more digits than a double keeps', body: 'buy EURUSD 0.1000000000000000000001', refused: 'more than 15 significant digits' },
  { says: 'a negative volume', body: 'buy EURUSD -1', refused: 'must be more than 0' },
  { says: 'a negative JSON volume', body: '{"symbol":"EURUSD","side":"buy","volume":-0.1}', refused: 'must be more than 0' },
  { says: 'a zero volume', body: '{"symbol":"EURUSD","side":"buy","volume":"0"}', refused: 'must be more than 0' },
  { says: 'NaN', body: '{"symbol":"EURUSD","side":"buy","volume":"NaN"}', refused: 'is not a number' },
  { says: 'Infinity', body: 'buy EURUSD vol=Infinity', refused: 'is not a number' },
  { says: 'an exponent', body: 'buy EURUSD 1e3', refused: 'exponents are not allowed' },
  { says: 'hex', body: '{"symbol":"EURUSD","side":"buy","volume":"0x10"}', refused: 'is not a number' },
  { says: 'a volume as an object', body: '{"symbol":"EURUSD","side":"buy","volume":{"$gt":0}}', refused: 'volume must be a number' },
  { says: 'an array alert', body: '[{"symbol":"EURUSD","side":"buy","volume":0.1}]', refused: 'a JSON alert is an object' },
  { says: 'broken JSON', body: '{"symbol":"EURUSD","side":"buy",', refused: 'not valid JSON' },
  { says: 'SQL in the symbol', body: "buy EURUSD';DROP TABLE events;-- 0.1", refused: 'unknown word' },
  { says: 'a script in the symbol', body: '{"symbol":"<script>alert(1)</script>","side":"buy","volume":0.1}', refused: 'is not a symbol' },
  { says: 'a too long symbol', body: `buy ${'X'.repeat(60)} 0.1`, refused: 'is not a symbol' },
  { says: 'a prototype key', body: '{"__proto__":{"volume":1},"symbol":"EURUSD","side":"buy"}', refused: 'unknown member __proto__' },
  {
    says: 'eleven take profits',
    body: `buy EURUSD 1 tp=${Array.from({ length: 11 }, (_, i) => 1.101 + i / 1000).join('/')}`,
    refused: 'at most 10 take profits',
  },
  { says: 'an empty body', body: '   ', refused: 'the alert is empty' },
  { says: 'a comment too long', body: `buy EURUSD 0.1 comment=${'a'.repeat(300)}`, refused: 'comment is longer than 200' },
  { says: 'a text alert of a megabyte', body: `buy EURUSD 0.1 ${'x'.repeat(1_000_000)}`, refused: 'a text alert is at most 4000 characters' },
  { says: 'a negative price', body: 'buy limit EURUSD 0.1 price=-1', refused: 'must be more than 0' },
];

describe('charting webhook: the alert corpus', () => {
  for (const c of CORPUS) {
    it(`${c.says}: ${c.refused ? 'refused' : 'read'}`, () => {
      const read = readAlert(c.body, false);
      const settings = { ...CHARTING_WEBHOOK_DEFAULTS, maxAllowedVolume: c.maxAllowedVolume === undefined ? 0 : c.maxAllowedVolume };
      let outcome: { refused: string } | { legs: readonly Leg[] } | { close: unknown } | { modify: unknown };
      if (!read.ok) outcome = { refused: read.reason };
      else if (read.alert.action === 'close') outcome = { close: { symbol: read.alert.symbol, side: read.alert.side } };
      else if (read.alert.action === 'modify') {
        const { symbol, stopLoss, takeProfit } = read.alert;
        outcome = { modify: { symbol, stopLoss: stopLoss?.value ?? null, takeProfit: takeProfit?.value ?? null } };
      } else {
        const plan = planOpen(read.alert, {
          symbol: SYMBOL,
          quote: QUOTE,
          cap: volumeCapOf(settings),
          riskPerTrade: c.withoutRiskPerTrade ? null : RISK_PER_TRADE,
          balance: 10_000,
          venuePointValue: 1,
        });
        outcome = plan.ok ? { legs: plan.legs.map(({ leg: _leg, ...order }) => order) } : { refused: plan.reason };
      }
      if (c.refused) {
        expect(outcome, JSON.stringify(outcome)).to.have.property('refused').that.includes(c.refused);
      } else if (c.trade) {
        expect(outcome).to.deep.equal({ legs: c.trade });
      } else if (c.close) {
        expect(outcome).to.deep.equal({ close: c.close });
      } else {
        expect(outcome).to.deep.equal({ modify: c.modify });
      }
    });
  }

  it('tells JSON from text by the first character or the content type', () => {
    expect(readAlert(' {"symbol":"EURUSD","side":"buy","volume":0.1}', false).format).to.equal('JSON');
    expect(readAlert('buy EURUSD 0.1', true)).to.include({ ok: false, format: 'JSON' });
    expect(readAlert('buy EURUSD 0.1', false).format).to.equal('TEXT');
  });
});

describe('charting webhook: numbers as alerts write them', () => {
  const cases: readonly [string, number | null][] = [
    ['0.1', 0.1],
    ['1,5', 1.5],
    ['1.000,50', 1000.5],
    ['1,000.50', 1000.5],
    ['1.000.000', 1_000_000],
    ['1,000,000', 1_000_000],
    ['+2', 2],
    ['.5', 0.5],
    ['1,5.0', null],
    ['1.2.3', null],
    ['1 000', null],
    ['', null],
    ['NaN', null],
    ['1e5', null],
  ];
  for (const [text, value] of cases) {
    it(`"${text}" is ${value ?? 'refused'}`, () => {
      const parsed = parseAlertNumber(text);
      if (value === null) expect(parsed.ok).to.equal(false);
      else expect(parsed).to.deep.equal({ ok: true, value });
    });
  }
});
