// What the cTrader end-to-end specs share: the service's environment pointed at the local fake Open API
// endpoint (fakeCTrader.ts; nothing leaves 127.0.0.1) and a cTrader account created (and started) over the API.
import { expect } from 'chai';
import { FakeCTrader } from './fakeCTrader.js';
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

/** The demo account most specs trade on at the fake (cTrader id and login). */
export const CTID = 42_001;

/**
 * A started fake endpoint on the spec's clock holding one demo account (CTID, login 7001, 10,000 balance,
 * token 'token-good' unless `account` says otherwise); `applications` are further Open API applications
 * (id → secret) it accepts, added before the account whose tokens may be issued to one of them.
 */
export const startedFakeCTrader = async (
  clock: () => Date,
  account: Partial<Parameters<FakeCTrader['addAccount']>[0]> = {},
  applications: Record<string, string> = {},
): Promise<FakeCTrader> => {
  const fake = new FakeCTrader({ clock: () => clock().getTime() });
  await fake.start();
  for (const [id, secret] of Object.entries(applications)) fake.addApplication(id, secret);
  fake.addAccount({ ctid: CTID, traderLogin: 7001, token: 'token-good', balance: 10_000, ...account });
  return fake;
};

/**
 * POST /accounts of a cTrader demo account, then (unless `start` is false) actions/start; `key` a
 * project's key (the default project's otherwise), `members` more AccountDTO members.
 */
export const ctraderAccount = async (
  t: TestService,
  alias: string,
  login: string,
  token: string,
  start = true,
  { key, members = {} }: { key?: string; members?: Record<string, unknown> } = {},
) => {
  const created = await t.call('POST', '/accounts', {
    ...(key ? { key } : {}),
    body: validAccount({
      alias,
      type: { id: CTRADER_TYPE },
      loginServer: 'demo.ctraderapi.com:5035',
      loginAccountNumber: login,
      loginAccountPassword: token,
      ...members,
    }),
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(200);
  const id = created.body.id as string;
  return { id, started: start ? await t.call('POST', `/accounts/${id}/actions/start`, key ? { key } : {}) : null };
};
