// minimumBalance (FeatureSignalProviderDTO): the least balance a follower account must hold to subscribe,
// in the provider account's currency (the reference converts from the provider's currency). A follower
// account in another currency is converted at the mid of a quote of the pair that links the two
// currencies, as the follower's venue names it: PROVIDERFOLLOWER (one provider unit is `mid` follower
// units) or FOLLOWERPROVIDER (the inverse). No such quote: the comparison is refused, never guessed.
import { illegalState } from '../shared/errors.js';

export interface PairQuote {
  readonly bid: number;
  readonly ask: number;
}

/** The symbols that may link `from` and `to`, the direct one first. */
export const conversionSymbols = (from: string, to: string): readonly [string, string] => [`${from}${to}`, `${to}${from}`];

/**
 * `amount` of `from` in `to`: as is for one currency; else at the mid of the first of conversionSymbols
 * that is quoted (inverted for the second); null when neither is.
 */
export const convertAmount = (amount: number, from: string, to: string, quoteOf: (symbol: string) => PairQuote | null): number | null => {
  if (from.toUpperCase() === to.toUpperCase()) return amount;
  const [direct, inverse] = conversionSymbols(from.toUpperCase(), to.toUpperCase());
  const mid = (q: PairQuote) => (q.bid + q.ask) / 2;
  const d = quoteOf(direct);
  if (d && mid(d) > 0) return amount * mid(d);
  const i = quoteOf(inverse);
  if (i && mid(i) > 0) return amount / mid(i);
  return null;
};

export interface MinimumBalanceCheck {
  readonly minimum: number;
  /** The provider account's currency. */
  readonly providerCurrency: string;
  readonly accountId: string;
  readonly balance: number;
  readonly currency: string;
}

/**
 * Throws 409 [SIGNAL_MINIMUM_BALANCE_NOT_MET] below the minimum, 409 [SIGNAL_CURRENCY_NOT_CONVERTIBLE]
 * when the currencies differ and no quote links them.
 */
export const checkMinimumBalanceMet = (check: MinimumBalanceCheck, quoteOf: (symbol: string) => PairQuote | null): void => {
  const { minimum, providerCurrency, accountId, balance, currency } = check;
  const converted = convertAmount(balance, currency, providerCurrency, quoteOf);
  if (converted === null) {
    throw illegalState(
      '[SIGNAL_CURRENCY_NOT_CONVERTIBLE]',
      `the signal provider asks for a balance of at least ${minimum} ${providerCurrency} (minimumBalance); account ${accountId} holds ${currency} and its venue quotes neither ${conversionSymbols(currency, providerCurrency).join(' nor ')} to convert it`,
    );
  }
  if (converted < minimum) {
    const shown =
      currency.toUpperCase() === providerCurrency.toUpperCase()
        ? `${balance} ${currency}`
        : `${balance} ${currency} (${converted.toFixed(2)} ${providerCurrency})`;
    throw illegalState(
      '[SIGNAL_MINIMUM_BALANCE_NOT_MET]',
      `the signal provider asks for a balance of at least ${minimum} ${providerCurrency} (minimumBalance); account ${accountId} holds ${shown}`,
    );
  }
};
