import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../../app/config.js';
import { accountDailyPrice, aiTierDailyPrice, DEFAULT_PRICE_LIST, featureDailyPrice, loadPriceList } from '../../../app/priceList.js';
import { tempDir } from '../../support/tempDirs.js';

const fail = (message: string) => new ConfigError(message);

describe('billing: the operator price list', () => {
  it('gives the built-in defaults when neither PRICE_LIST_FILE nor PRICE_LIST is set', () => {
    const list = loadConfig({}).priceList;
    expect(list).to.deep.equal(DEFAULT_PRICE_LIST);
    expect(accountDailyPrice(list, 1)).to.equal('0.50');
    expect(featureDailyPrice(list, 'FeatureDedicatedIpDTO')).to.equal('0.20');
    expect(featureDailyPrice(list, 'FeatureCopierFilterDTO')).to.equal(null);
    expect(aiTierDailyPrice(list, 'PRO')).to.equal('1.00');
    expect(aiTierDailyPrice(list, 'BASIC')).to.equal(null);
    expect(list.followerDaily).to.equal('0.50');
  });

  it('reads a JSON file over the defaults: listed members replace them, the rest stay', () => {
    const dir = tempDir('ct-prices-');
    const file = path.join(dir, 'prices.json');
    writeFileSync(file, JSON.stringify({ currency: 'EUR', accountDailyByType: { '11': '0.80' }, aiTierDaily: { PRO: '2.5' }, followerDaily: '0.25' }));
    const list = loadPriceList({ PRICE_LIST_FILE: file }, fail);
    expect(list.currency).to.equal('EUR');
    expect(accountDailyPrice(list, 11)).to.equal('0.80');
    expect(accountDailyPrice(list, 2)).to.equal('0.50');
    expect(list.aiTierDaily).to.deep.equal({ STANDARD: '0.30', PRO: '2.5' });
    expect(list.followerDaily).to.equal('0.25');
    expect(list.featureDaily).to.deep.equal(DEFAULT_PRICE_LIST.featureDaily);
  });

  it('takes the same JSON inline from PRICE_LIST', () => {
    expect(loadPriceList({ PRICE_LIST: '{"featureDaily":{"FeatureMarginCapDTO":"0.125"}}' }, fail).featureDaily).to.deep.equal({
      FeatureMarginCapDTO: '0.125',
    });
  });

  const refused: readonly [string, string, RegExp][] = [
    ['a JSON number as money', '{"accountDaily":0.5}', /accountDaily must be a decimal string/],
    ['a negative price', '{"followerDaily":"-1"}', /followerDaily must be a decimal string/],
    ['more than 6 decimals', '{"accountDaily":"0.1234567"}', /decimal string/],
    ['an unknown member (a typo)', '{"acountDaily":"1"}', /unknown member "acountDaily"/],
    ['an unknown feature', '{"featureDaily":{"FeatureNopeDTO":"1"}}', /not a feature DTO name/],
    ['an account type out of range', '{"accountDailyByType":{"18":"1"}}', /not an account type id/],
    ['BASIC priced', '{"aiTierDaily":{"BASIC":"1"}}', /not STANDARD or PRO/],
    ['another currency', '{"currency":"GBP"}', /currency must be USD, EUR or CHF/],
    ['text that is not JSON', '{', /PRICE_LIST is not JSON/],
  ];
  for (const [what, json, message] of refused) {
    it(`refuses ${what} at start with a clear message`, () => {
      expect(() => loadConfig({ PRICE_LIST: json })).to.throw(ConfigError, message);
    });
  }

  it('refuses both settings at once, and a file it cannot read', () => {
    expect(() => loadPriceList({ PRICE_LIST: '{}', PRICE_LIST_FILE: '/x' }, fail)).to.throw(ConfigError, /both set/);
    expect(() => loadPriceList({ PRICE_LIST_FILE: '/nonexistent/prices.json' }, fail)).to.throw(ConfigError, /cannot be read/);
  });
});
