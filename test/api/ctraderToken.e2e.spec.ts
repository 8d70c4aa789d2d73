// End to end with cTrader's OAuth token pair against the local fake Open API endpoint
// (test/support/fakeCTrader.ts; nothing leaves 127.0.0.1): an access token cTrader no longer takes is
// renewed with the refresh token (ProtoOARefreshTokenReq) at start, on OA_AUTH_TOKEN_EXPIRED and on
// ProtoOAAccountsTokenInvalidatedEvent while connected, and before its known expiry; each new pair is
// stored sealed as the account's password (so a restart connects with it); a refresh token cTrader
// refuses is [INVALID_CREDENTIALS] and changes nothing.
import { expect } from 'chai';
import { accountDecider } from '../../domain/account/decider.js';
import { accountStream } from '../../domain/account/events.js';
import { PT } from '../../engine/venues/ctrader/protocol.js';
import { aggregateStream } from '../../store/commandHandler.js';
import { CTID, ctraderAccount, ctraderEnv, startedFakeCTrader } from '../support/ctraderService.js';
import type { FakeCTrader } from '../support/fakeCTrader.js';
import { startTestService, type TestService } from '../support/service.js';
import { eventually, marketHoursClock, openPosition, pinQuotes } from '../support/trading.js';

describe('cTrader access token renewal end to end (fake Open API endpoint)', function () {
  // Two service starts in one spec: at the machine's usual load that alone takes over a minute.
  this.timeout(240_000);
  let fake: FakeCTrader;
  let t: TestService;
  const clock = marketHoursClock();

  const start = async (extra: Record<string, string> = {}, from?: Pick<TestService, 'databaseUrl' | 'dataDir'>) => {
    t = await startTestService({ clock, env: ctraderEnv(fake, extra), ...(from ? { databaseUrl: from.databaseUrl, dataDir: from.dataDir } : {}) });
    await pinQuotes(t, { EURUSD: [1.085, 1.0852] });
  };

  beforeEach(async () => {
    fake = await startedFakeCTrader(clock, { token: 'token-old', refreshToken: 'refresh-1' });
  });
  afterEach(async () => {
    await t.stop();
    await fake.stop();
  });

  /** The account's password as stored (decrypted), and every AccountUpdated of the account as stored. */
  const stored = async (account: string) => {
    const updates: unknown[] = [];
    for await (const { event } of t.service.services.store.readStream(accountStream(account))) if (event.type === 'AccountUpdated') updates.push(event.data);
    const row = (await t.call('GET', `/accounts/${account}`)).body as { statusMessage: string };
    const { state } = await aggregateStream(t.service.services.store, accountStream(account), accountDecider.evolve, accountDecider.initialState);
    return { password: t.service.services.cipher.decrypt(state.settings!.passwordCiphertext), updates, statusMessage: row.statusMessage };
  };

  it('renews an expired token at start, stores the new pair sealed, and connects with it after a restart', async () => {
    fake.expireToken(CTID);
    await start();
    const { id: account, started } = await ctraderAccount(t, 'cTrader', '7001', 'token-old|refresh-1');
    expect(started!.status).to.equal(200);
    expect(started!.body.statusMessage).to.equal('connected');
    expect(fake.tokensOf(CTID)).to.deep.equal({ accessToken: `access-${CTID}-1`, refreshToken: `refresh-${CTID}-1`, renewals: 1 });
    const after = await stored(account);
    expect(after.password).to.match(new RegExp(`^access-${CTID}-1\\|refresh-${CTID}-1\\|\\d{4}-\\d\\d-\\d\\dT`));
    expect(after.updates).to.have.length(1);
    // Sealed: the event holds no token in clear.
    expect(JSON.stringify(after.updates)).to.not.include(`access-${CTID}-1`);
    const { databaseUrl, dataDir } = t;
    await t.stop();
    await start({}, { databaseUrl, dataDir });
    await eventually(
      async () => ((await t.call('GET', `/accounts/${account}`)).body.statusMessage === 'connected' ? true : undefined),
      20_000,
      'connected again',
    );
    expect(fake.tokensOf(CTID).renewals).to.equal(1);
    await openPosition(t, account, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.01 });
    expect(fake.positionsOf(CTID)).to.have.length(1);
  });

  it('renews while connected, on the same link, when an order meets an expired token and when cTrader invalidates it', async () => {
    await start();
    const { id: account } = await ctraderAccount(t, 'cTrader', '7001', 'token-old|refresh-1');
    expect(fake.tokensOf(CTID).renewals).to.equal(0);
    fake.expireToken(CTID);
    // The order meets OA_AUTH_TOKEN_EXPIRED: the token is renewed, the account authorized again, the order placed once.
    await openPosition(t, account, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.01 });
    expect(fake.tokensOf(CTID).renewals).to.equal(1);
    expect(fake.positionsOf(CTID)).to.have.length(1);
    fake.expireToken(CTID, true);
    await eventually(async () => (fake.tokensOf(CTID).renewals === 2 ? true : undefined), 20_000, 'the renewal on ProtoOAAccountsTokenInvalidatedEvent');
    await eventually(async () => ((await stored(account)).updates.length === 2 ? true : undefined), 20_000, 'the second pair stored');
    await openPosition(t, account, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.01 });
    expect(fake.positionsOf(CTID)).to.have.length(2);
    expect((await stored(account)).password).to.match(new RegExp(`^access-${CTID}-2\\|refresh-${CTID}-2\\|`));
    // One link all along: the application authenticated once.
    expect(fake.requests.filter((type) => type === PT.APPLICATION_AUTH_REQ)).to.have.length(1);
    expect(fake.requests.filter((type) => type === PT.NEW_ORDER_REQ)).to.have.length(2);
  });

  it('renews a token before its known expiry while connected', async () => {
    await start({ CTRADER_TOKEN_RENEW_BEFORE_MS: '1000' });
    fake.tokenLifetimeSeconds = 3600;
    // A pair stored with its expiry (the adapter's own form): due for renewal a few seconds from now.
    const expiry = new Date(clock().getTime() + 4000).toISOString();
    const { id: account, started } = await ctraderAccount(t, 'cTrader', '7001', `token-old|refresh-1|${expiry}`);
    expect(started!.status).to.equal(200);
    await eventually(async () => (fake.tokensOf(CTID).renewals === 1 ? true : undefined), 30_000, 'the renewal before expiry');
    await eventually(async () => ((await stored(account)).updates.length === 1 ? true : undefined), 20_000, 'the pair stored');
    const { password } = await stored(account);
    const renewedExpiry = Date.parse(password.split('|')[2]!);
    expect(renewedExpiry - clock().getTime()).to.be.greaterThan(3_000_000);
    expect((await t.call('GET', `/accounts/${account}`)).body.statusMessage).to.equal('connected');
    await openPosition(t, account, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.01 });
    expect(fake.requests.filter((type) => type === PT.APPLICATION_AUTH_REQ)).to.have.length(1);
  });

  it('refuses with [INVALID_CREDENTIALS] an expired token whose refresh token cTrader refuses, and stores nothing', async () => {
    fake.expireToken(CTID);
    await start();
    const { id: account, started } = await ctraderAccount(t, 'cTrader', '7001', 'token-old|not-the-refresh-token');
    expect(started!.status).to.equal(400);
    expect(started!.body.error).to.equal('[INVALID_CREDENTIALS]');
    expect(started!.body.message).to.match(/refresh token/);
    expect((await stored(account)).updates).to.have.length(0);
    expect(fake.tokensOf(CTID).renewals).to.equal(0);
  });
});
