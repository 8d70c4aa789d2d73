// The one conversion rule of the copy rate, a point value and a signal's minimumBalance
// (domain/shared/currencyConversion.ts): the pair of the two currencies at the mid, direct or inverse,
// else through USD, reading no more quotes than the answer needs.
import { expect } from 'chai';
import { conversionSteps, convertedBy, pairConversionSteps } from '../../../domain/shared/currencyConversion.js';

/** A venue quoting only the given mids; `asked` records every symbol read, in order. */
const venue = (mids: Record<string, number>) => {
  const asked: string[] = [];
  const midOf = (symbol: string) => {
    asked.push(symbol);
    return mids[symbol] ?? null;
  };
  return { asked, midOf };
};
const convert = (amount: number, from: string, to: string, mids: Record<string, number>) => {
  const conversion = convertedBy(conversionSteps(from, to), venue(mids).midOf);
  return conversion ? conversion(amount) : null;
};

describe('currency conversion at a venue’s quotes', () => {
  it('is the amount itself for one currency, whatever the case, reading no quote', () => {
    const { asked, midOf } = venue({});
    expect(convertedBy(conversionSteps('eur', 'EUR'), midOf)?.(1234.5)).to.equal(1234.5);
    expect(asked).to.deep.equal([]);
  });

  it('multiplies by the mid of FROMTO, else divides by the mid of TOFROM', () => {
    expect(convert(1000, 'EUR', 'USD', { EURUSD: 1.1 })).to.equal(1000 * 1.1);
    expect(convert(1100, 'usd', 'eur', { EURUSD: 1.1 })).to.equal(1100 / 1.1);
  });

  it('goes through USD where no pair of the two is quoted: a GBP amount in EUR, a JPY amount in EUR', () => {
    // 1,000 GBP = 1,500 USD = 1,200 EUR
    expect(convert(1000, 'GBP', 'EUR', { EURUSD: 1.25, GBPUSD: 1.5 })).to.be.closeTo(1200, 1e-9);
    expect(convert(1200, 'EUR', 'GBP', { EURUSD: 1.25, GBPUSD: 1.5 })).to.be.closeTo(1000, 1e-9);
    // USDJPY is quoted the other way round: 150,000 JPY = 1,000 USD = 800 EUR
    expect(convert(150_000, 'JPY', 'EUR', { EURUSD: 1.25, USDJPY: 150 })).to.be.closeTo(800, 1e-9);
  });

  it('prefers the pair to the cross, and reads the quotes lazily in that order', () => {
    const direct = venue({ GBPEUR: 1.19, EURUSD: 1.25, GBPUSD: 1.5 });
    expect(convertedBy(conversionSteps('GBP', 'EUR'), direct.midOf)?.(100)).to.be.closeTo(119, 1e-9);
    expect(direct.asked).to.deep.equal(['GBPEUR']);
    const cross = venue({ EURUSD: 1.25, GBPUSD: 1.5 });
    convertedBy(conversionSteps('GBP', 'EUR'), cross.midOf);
    expect(cross.asked).to.deep.equal(['GBPEUR', 'EURGBP', 'GBPUSD', 'USDEUR', 'EURUSD']);
  });

  it('is null when a leg is missing, a mid is not positive, or one side is USD and its pair is not quoted', () => {
    expect(convert(1, 'GBP', 'EUR', { EURUSD: 1.25 })).to.equal(null);
    expect(convert(1, 'GBP', 'EUR', { GBPUSD: 1.5 })).to.equal(null);
    expect(convert(1, 'EUR', 'USD', { EURUSD: 0 })).to.equal(null);
    const usd = venue({ GBPEUR: 1.19 });
    expect(convertedBy(conversionSteps('CHF', 'USD'), usd.midOf)).to.equal(null);
    expect(usd.asked).to.deep.equal(['CHFUSD', 'USDCHF']);
  });

  it('by the pair alone never crosses, and keeps the symbols as spelt', () => {
    expect(convertedBy(pairConversionSteps('GBP', 'EUR'), venue({ EURUSD: 1.25, GBPUSD: 1.5 }).midOf)).to.equal(null);
    expect(convertedBy(pairConversionSteps('JPY', 'USD'), venue({ USDJPY: 150 }).midOf)?.(300)).to.equal(2);
  });
});
