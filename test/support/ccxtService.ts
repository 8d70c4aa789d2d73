// What the end-to-end specs of the ccxt adapter share (the service with account types routed to ccxt
// targets at a local fake exchange): its settings, an exchange account created and started through the
// API, and a copier from a master with one symbol mapped.
import { expect } from 'chai';
import type { FakeExchange } from './fakeExchange.js';
import { type TestService, validAccount } from './service.js';

/**
 * The service's settings for `routes` (ACCOUNT_TYPE_VENUES, e.g. `12=ccxt:binanceusdm`) at `fake`: a
 * 200 ms poll, and the adapter's own 10 s request timeout (a shorter one timed out on a loaded machine).
 */
export const ccxtServiceEnv = (fake: FakeExchange, routes: string): Record<string, string> => ({
  ACCOUNT_TYPE_VENUES: routes,
  CCXT_BASE_URL: fake.url,
  CCXT_POLL_MS: '200',
});

/** An account of `type` at the exchange (API key `login`, secret `password`), created and started: its id. */
export const startedExchangeAccount = async (
  t: TestService,
  { alias, type, login, password, loginServer = 'demo' }: { alias: string; type: number; login: string; password: string; loginServer?: string },
): Promise<string> => {
  const created = await t.call('POST', '/accounts', {
    body: validAccount({ alias, type: { id: type }, loginServer, loginAccountNumber: login, loginAccountPassword: password }),
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(200);
  const started = await t.call('POST', `/accounts/${created.body.id as string}/actions/start`);
  expect(started.status, JSON.stringify(started.body)).to.equal(200);
  return created.body.id as string;
};

/** A copier of `master` on `slave` with `body`'s settings and one symbol mapping (by default the master's BTCUSD to `slaveSymbol`): its id. */
export const copierWithMapping = async (
  t: TestService,
  slave: string,
  master: string,
  body: Record<string, unknown>,
  { slaveSymbol, masterSymbol = 'BTCUSD' }: { slaveSymbol: string; masterSymbol?: string },
): Promise<string> => {
  const copier = await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master, ...body } });
  expect(copier.status, JSON.stringify(copier.body)).to.equal(200);
  const mapped = await t.call('PUT', `/accounts/${slave}/copiers/${copier.body.id}/symbolMappings`, { body: [{ masterSymbol, slaveSymbol }] });
  expect(mapped.status, JSON.stringify(mapped.body)).to.equal(200);
  return copier.body.id as string;
};
