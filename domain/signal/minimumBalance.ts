// minimumBalance (FeatureSignalProviderDTO): the least balance a follower account must hold to subscribe,
// in the provider account's currency (the reference converts from the provider's currency). A follower
// account in another currency is converted at its venue's quotes as a copy's rate is
// (domain/shared/currencyConversion.ts): the pair of the two currencies at the mid, direct or inverse,
// else through USD. No such quote: the comparison is refused, never guessed.
import { type Conversion, CROSS_CURRENCY } from '../shared/currencyConversion.js';
import { illegalState } from '../shared/errors.js';

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
 * when no quote links the currencies (`toProvider`: the follower's currency in the provider's; null: none).
 */
export const checkMinimumBalanceMet = (check: MinimumBalanceCheck, toProvider: Conversion | null): void => {
  const { minimum, providerCurrency, accountId, balance, currency } = check;
  if (toProvider === null) {
    throw illegalState(
      '[SIGNAL_CURRENCY_NOT_CONVERTIBLE]',
      `the signal provider asks for a balance of at least ${minimum} ${providerCurrency} (minimumBalance); account ${accountId} holds ${currency} and its venue quotes no pair linking ${currency} and ${providerCurrency}, directly or through ${CROSS_CURRENCY}, to convert it`,
    );
  }
  const converted = toProvider(balance);
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
