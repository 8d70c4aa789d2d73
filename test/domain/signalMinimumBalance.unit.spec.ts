// minimumBalance in the provider account's currency, the follower's balance converted at its venue's
// quote of the pair linking the two currencies (domain/signal/minimumBalance.ts).
import { expect } from 'chai';
import { DomainError } from '../../domain/shared/errors.js';
import { checkMinimumBalanceMet, convertAmount, type PairQuote } from '../../domain/signal/minimumBalance.js';

const quotes =
  (known: Record<string, PairQuote>) =>
  (symbol: string): PairQuote | null =>
    known[symbol] ?? null;
const refusal = (run: () => void): string => {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    return (error as DomainError).code;
  }
  return 'none';
};

describe('signal minimumBalance with currency conversion', () => {
  it('converts at the mid of the direct pair, or of the inverse pair inverted; one currency as is; no quote: null', () => {
    const eurusd = quotes({ EURUSD: { bid: 1.09, ask: 1.11 } });
    expect(convertAmount(1000, 'EUR', 'USD', eurusd)).to.be.closeTo(1100, 1e-9);
    expect(convertAmount(1100, 'USD', 'EUR', eurusd)).to.be.closeTo(1000, 1e-9);
    expect(convertAmount(1234, 'usd', 'USD', quotes({}))).to.equal(1234);
    expect(convertAmount(1000, 'GBP', 'JPY', eurusd)).to.equal(null);
  });

  it('compares the converted balance with the minimum of the provider currency', () => {
    const eurusd = quotes({ EURUSD: { bid: 1.1, ask: 1.1 } });
    const check = { minimum: 10_000, providerCurrency: 'USD', accountId: 'a' };
    // 9,500 EUR = 10,450 USD: enough; 9,000 EUR = 9,900 USD: not.
    expect(refusal(() => checkMinimumBalanceMet({ ...check, balance: 9_500, currency: 'EUR' }, eurusd))).to.equal('none');
    expect(refusal(() => checkMinimumBalanceMet({ ...check, balance: 9_000, currency: 'EUR' }, eurusd))).to.equal('[SIGNAL_MINIMUM_BALANCE_NOT_MET]');
    // A provider in EUR asking 10,000 EUR: 10,000 USD is 9,090.91 EUR.
    const eur = { minimum: 10_000, providerCurrency: 'EUR', accountId: 'a' };
    expect(refusal(() => checkMinimumBalanceMet({ ...eur, balance: 10_000, currency: 'USD' }, eurusd))).to.equal('[SIGNAL_MINIMUM_BALANCE_NOT_MET]');
    expect(refusal(() => checkMinimumBalanceMet({ ...eur, balance: 11_000, currency: 'USD' }, eurusd))).to.equal('none');
    expect(refusal(() => checkMinimumBalanceMet({ ...check, balance: 10_000, currency: 'USD' }, quotes({})))).to.equal('none');
  });

  it('refuses with [SIGNAL_CURRENCY_NOT_CONVERTIBLE] when the currencies differ and no quote links them', () => {
    const run = () => checkMinimumBalanceMet({ minimum: 1, providerCurrency: 'USD', accountId: 'a', balance: 1e9, currency: 'CHF' }, quotes({}));
    expect(refusal(run)).to.equal('[SIGNAL_CURRENCY_NOT_CONVERTIBLE]');
  });
});
