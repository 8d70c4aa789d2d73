// The server names the simulated venue is offered under (GET /brokers/{brokerType}/all lists them
// under every account type). The venue takes any loginServer (engine/venues/host.ts); these two name
// its two account kinds: a name containing "netting" opens a netting account, any other a hedging one.
export const SIMULATED_SERVERS: readonly string[] = ['Simulated-Demo', 'Simulated-Netting-Demo'];
