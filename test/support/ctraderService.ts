// What the cTrader end-to-end specs share: the service's environment pointed at the local fake Open API
// endpoint (fakeCTrader.ts; nothing leaves 127.0.0.1) and a cTrader account created (and started) over the API.
import { expect } from 'chai';
import type { FakeCTrader } from './fakeCTrader.js';
import { type TestService, validAccount } from './service.js';

/** The reference's cTrader account type, routed to the adapter. */
export const CTRADER_TYPE = 4;

export const ctraderEnv = (fake: FakeCTrader, extra: Record<string, string> = {}): Record<string, string> => ({
  ACCOUNT_TYPE_VENUES: `${CTRADER_TYPE}=ctrader:openapi`,
  CTRADER_CLIENT_ID: 'app-id',
  CTRADER_CLIENT_SECRET: 'app-secret',
  CTRADER_DEMO_URL: fake.url,
  CTRADER_LIVE_URL: fake.url,
  CTRADER_REQUEST_TIMEOUT_MS: '2000',
  ...extra,
});

/** POST /accounts of a cTrader demo account, then (unless `start` is false) actions/start. */
export const ctraderAccount = async (t: TestService, alias: string, login: string, token: string, start = true) => {
  const created = await t.call('POST', '/accounts', {
    body: validAccount({
      alias,
      type: { id: CTRADER_TYPE },
      loginServer: 'demo.ctraderapi.com:5035',
      loginAccountNumber: login,
      loginAccountPassword: token,
    }),
  });
  expect(created.status).to.equal(200);
  const id = created.body.id as string;
  return { id, started: start ? await t.call('POST', `/accounts/${id}/actions/start`) : null };
};
