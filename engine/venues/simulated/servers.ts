// The server names the simulated venue is offered under (GET /brokers/{brokerType}/all lists them
// under every account type). The venue takes any loginServer (engine/venues/host.ts); the name sets
// the two things a demo account is opened with:
// - a name containing "netting" opens a netting account, any other a hedging one;
// - the first three-letter word of the name (words split at anything not a letter, case-insensitive)
//   that is a currency the venue keeps accounts in (SimulatedVenue.accountCurrencies: USD, EUR, GBP,
//   JPY with the built-in catalogue) is the account currency: "Simulated-EUR-Demo" opens an EUR
//   account; a name with none opens a USD one.
export const SIMULATED_SERVERS: readonly string[] = ['Simulated-Demo', 'Simulated-Netting-Demo', 'Simulated-EUR-Demo', 'Simulated-GBP-Demo'];

/** The account currency `server` names (see above), or null: the venue's default. */
export const serverCurrency = (server: string, currencies: readonly string[]): string | null =>
  server
    .split(/[^A-Za-z]+/)
    .map((word) => word.toUpperCase())
    .find((word) => word.length === 3 && currencies.includes(word)) ?? null;
