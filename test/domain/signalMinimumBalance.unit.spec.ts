// minimumBalance in the provider account's currency, the follower's balance converted at its venue's
// quotes as a copy's rate is (domain/signal/minimumBalance.ts, domain/shared/currencyConversion.ts).
import { expect } from 'chai';
import { conversionSteps, convertedBy } from '../../domain/shared/currencyConversion.js';
import { DomainError } from '../../domain/shared/errors.js';
import { checkMinimumBalanceMet } from '../../domain/signal/minimumBalance.js';

/** The follower's currency in the provider's at a venue quoting only the given mids. */
const at = (mids: Record<string, number>) => (currency: string, providerCurrency: string) =>
  convertedBy(conversionSteps(currency, providerCurrency), (symbol) => mids[symbol] ?? null);
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
  it('compares the converted balance with the minimum of the provider currency', () => {
    const eurusd = at({ EURUSD: 1.1 });
    const check = { minimum: 10_000, providerCurrency: 'USD', accountId: 'a' };
    const met = (balance: number, currency: string, c = check, rates = eurusd) =>
      refusal(() => checkMinimumBalanceMet({ ...c, balance, currency }, rates(currency, c.providerCurrency)));
    // 9,500 EUR = 10,450 USD: enough; 9,000 EUR = 9,900 USD: not.
    expect(met(9_500, 'EUR')).to.equal('none');
    expect(met(9_000, 'EUR')).to.equal('[SIGNAL_MINIMUM_BALANCE_NOT_MET]');
    // A provider in EUR asking 10,000 EUR: 10,000 USD is 9,090.91 EUR.
    const eur = { minimum: 10_000, providerCurrency: 'EUR', accountId: 'a' };
    expect(met(10_000, 'USD', eur)).to.equal('[SIGNAL_MINIMUM_BALANCE_NOT_MET]');
    expect(met(11_000, 'USD', eur)).to.equal('none');
    expect(met(10_000, 'USD', check, at({}))).to.equal('none');
  });

  it('converts a GBP follower for an EUR provider through USD where its venue quotes no EURGBP (regression: it was refused)', () => {
    // 10,000 GBP = 15,000 USD = 12,000 EUR
    const crossed = at({ EURUSD: 1.25, GBPUSD: 1.5 })('GBP', 'EUR');
    const check = { providerCurrency: 'EUR', accountId: 'a', balance: 10_000, currency: 'GBP' };
    expect(refusal(() => checkMinimumBalanceMet({ ...check, minimum: 12_000 }, crossed))).to.equal('none');
    expect(refusal(() => checkMinimumBalanceMet({ ...check, minimum: 12_001 }, crossed))).to.equal('[SIGNAL_MINIMUM_BALANCE_NOT_MET]');
  });

  it('refuses with [SIGNAL_CURRENCY_NOT_CONVERTIBLE] when the currencies differ and no quote links them', () => {
    const run = () =>
      checkMinimumBalanceMet({ minimum: 1, providerCurrency: 'EUR', accountId: 'a', balance: 1e9, currency: 'CHF' }, at({ EURUSD: 1.1 })('CHF', 'EUR'));
    expect(refusal(run)).to.equal('[SIGNAL_CURRENCY_NOT_CONVERTIBLE]');
  });
});
