// The cTrader adapter against the local fake Open API endpoint (test/support/fakeCTrader.ts): JSON over
// WebSocket on 127.0.0.1, nothing leaves the machine.
import { expect } from 'chai';
import { ctraderAdapter, environmentOf } from '../../../engine/venues/ctrader/adapter.js';
import { CTraderConnection, CTraderFailure, ctraderClientOrderId, venueErrorOf } from '../../../engine/venues/ctrader/connection.js';
import { relativeDistance } from '../../../engine/venues/ctrader/orders.js';
import { money, ORDER_TYPE, PT, spotPrice, TIME_IN_FORCE, toCents, toLots } from '../../../engine/venues/ctrader/protocol.js';
import { passwordOf, renewalDelay, renewedPair, tokensOf } from '../../../engine/venues/ctrader/token.js';
import { type BalanceOperation, type VenueChange, VenueError } from '../../../engine/venues/port.js';
import type { RealVenue } from '../../../engine/venues/registry.js';
import { FakeCTrader } from '../../support/fakeCTrader.js';
import { refusal } from '../../support/venueRefusal.js';

const until = async (test: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 200 && !test(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  if (!test()) expect.fail(`timed out waiting for ${what}`);
};

describe('cTrader Open API units and codes', () => {
  it('converts lots to cents of units and back with the symbol lot size, free of float dust', () => {
    // EURUSD: a lot is 100 000 units = 10 000 000 cents.
    expect(toCents(0.01, 10_000_000)).to.equal(100_000);
    expect(toCents(0.07, 10_000_000)).to.equal(700_000);
    expect(toCents(1.23, 10_000_000)).to.equal(12_300_000);
    expect(toLots(100_000, 10_000_000)).to.equal(0.01);
    expect(toLots(12_300_000, 10_000_000)).to.equal(1.23);
    // BTCUSD at a broker whose lot is 1 unit (100 cents): 0.01 lot is 1 cent, 0.015 lot is not a whole cent.
    expect(toCents(0.01, 100)).to.equal(1);
    expect(toCents(0.015, 100)).to.equal(null);
    expect(toLots(1, 100)).to.equal(0.01);
  });

  it('reads spot prices in 1/100 000 and money scaled by moneyDigits', () => {
    expect(spotPrice(108_520)).to.equal(1.0852);
    expect(spotPrice('6501000000')).to.equal(65010);
    expect(money(1_000_000, 2)).to.equal(10_000);
    expect(money('10053099944', 8)).to.be.closeTo(100.53099944, 1e-9);
    expect(money(12_345, undefined)).to.equal(123.45);
  });

  it('maps the endpoint error codes to the Trading API codes; rate limits and timeouts stay transient', () => {
    const codeOf = (errorCode: string) => {
      const mapped = venueErrorOf(new CTraderFailure(errorCode, ''));
      return mapped instanceof VenueError ? mapped.code : null;
    };
    expect(codeOf('CH_ACCESS_TOKEN_INVALID')).to.equal('[INVALID_CREDENTIALS]');
    expect(codeOf('OA_AUTH_TOKEN_EXPIRED')).to.equal('[INVALID_CREDENTIALS]');
    expect(codeOf('NOT_ENOUGH_MONEY')).to.equal('[NOT_ENOUGH_MONEY]');
    expect(codeOf('TRADING_BAD_VOLUME')).to.equal('[INVALID_VOLUME]');
    expect(codeOf('POSITION_NOT_FOUND')).to.equal('[POSITION_NOT_FOUND]');
    expect(codeOf('MARKET_CLOSED')).to.equal('[MARKET_CLOSED]');
    expect(codeOf('REQUEST_FREQUENCY_EXCEEDED')).to.equal(null);
    expect(codeOf('BLOCKED_PAYLOAD_TYPE')).to.equal(null);
  });

  it('sends market stop loss and take profit as distances rounded to the symbol digits, never zero or on the wrong side', () => {
    expect(relativeDistance(1.0852 - 1.08, 5, 'stop loss')).to.equal(520);
    // BTCUSD with 2 digits: a distance is a whole number of cents, 1 000 hundred-thousandths each.
    expect(relativeDistance(65010 - 64000.004, 2, 'stop loss')).to.equal(101_000_000);
    expect(() => relativeDistance(-0.001, 5, 'take profit')).to.throw(VenueError, /take profit is on the wrong side/);
  });

  it('reads and writes the token pair of a password, with the expiry only once it is known', () => {
    expect(tokensOf('abc')).to.deep.equal({ accessToken: 'abc', refreshToken: null, expiresAt: null });
    expect(tokensOf('abc|def')).to.deep.equal({ accessToken: 'abc', refreshToken: 'def', expiresAt: null });
    const pair = tokensOf('abc|def|2026-02-06T10:00:00.000Z');
    expect(pair.expiresAt).to.equal(Date.parse('2026-02-06T10:00:00.000Z'));
    expect(passwordOf(pair)).to.equal('abc|def|2026-02-06T10:00:00.000Z');
    expect(passwordOf(tokensOf('abc|def'))).to.equal('abc|def');
    const renewed = renewedPair({ accessToken: 'n1', refreshToken: 'r1', expiresIn: '2628000' }, 1_000);
    expect(renewed).to.deep.equal({ accessToken: 'n1', refreshToken: 'r1', expiresAt: 1_000 + 2_628_000_000 });
    expect(renewalDelay(renewed, 1_000, 86_400_000)).to.equal(2_628_000_000 - 86_400_000);
    expect(renewalDelay(renewed, 2_628_000_000, 86_400_000)).to.equal(0);
    expect(renewalDelay(tokensOf('abc|def'), 0, 1)).to.equal(null);
  });

  it('takes the reference loginServer forms and keeps the client order id within 50 characters', () => {
    expect(environmentOf('demo.ctraderapi.com:5035')).to.equal('demo');
    expect(environmentOf('LIVE')).to.equal('live');
    expect(environmentOf('Demo-Server-01')).to.equal(null);
    expect(ctraderClientOrderId('4b0c9a1e-8c55-5c1f-9a0e-2d1c3b4a5f60')).to.equal('4b0c9a1e-8c55-5c1f-9a0e-2d1c3b4a5f60');
    expect(ctraderClientOrderId('x'.repeat(80))).to.have.length(40);
  });
});

describe('cTrader venue against a local fake Open API endpoint', () => {
  let fake: FakeCTrader;
  let venue: RealVenue;
  const warnings: string[] = [];
  const infos: string[] = [];
  const connections: CTraderConnection[] = [];

  const start = async (overrides: Record<string, string> = {}) => {
    const settings = ctraderAdapter.config({
      CTRADER_CLIENT_ID: 'app-id',
      CTRADER_CLIENT_SECRET: 'app-secret',
      CTRADER_DEMO_URL: fake.url,
      CTRADER_LIVE_URL: fake.url,
      CTRADER_REQUEST_TIMEOUT_MS: '600',
      CTRADER_HEARTBEAT_MS: '1000',
      CTRADER_RECONNECT_MAX_MS: '1000',
      ...overrides,
    });
    venue = await ctraderAdapter.venue('openapi', settings, {
      clock: () => new Date(),
      log: { info: (m) => infos.push(m), warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
    });
  };

  const connect = async (login = '7001', password = 'token-1', server = 'demo'): Promise<CTraderConnection> => {
    const connection = venue.connection({ login, password, server }) as CTraderConnection;
    connections.push(connection);
    await connection.connect();
    return connection;
  };

  beforeEach(async () => {
    warnings.length = 0;
    infos.length = 0;
    fake = new FakeCTrader();
    await fake.start();
    fake.addAccount({ ctid: 42_001, traderLogin: 7001, token: 'token-1', balance: 10_000 });
    fake.addAccount({ ctid: 42_002, traderLogin: 7002, token: 'token-live', isLive: true, balance: 5_000 });
    await start();
  });
  afterEach(async () => {
    for (const c of connections.splice(0)) await c.disconnect();
    await fake.stop();
  });

  it('connects with a good token (by traderLogin or ctid, DEMO, native) and refuses bad credentials with [INVALID_CREDENTIALS]', async () => {
    const connection = await connect();
    expect(await connection.accountInformation()).to.include({
      login: '7001',
      currency: 'USD',
      balance: 10_000,
      leverage: 100,
      environment: 'DEMO',
      connected: true,
    });
    expect(connection.statusMessage).to.equal('connected');
    expect(venue.native).to.equal(true);
    expect((await connect('42001', 'token-1|refresh-1')).isConnected()).to.equal(true);
    expect((await (await connect('7002', 'token-live', 'live.ctraderapi.com:5035')).accountInformation()).environment).to.equal('LIVE');
    expect(await refusal(connect('7001', 'not-a-token'))).to.equal('[INVALID_CREDENTIALS]');
    expect(await refusal(connect('7999', 'token-1'))).to.equal('[INVALID_CREDENTIALS]');
    expect(await refusal(connect('7002', 'token-live', 'demo'))).to.equal('[INVALID_CREDENTIALS]');
    expect(await refusal(connect('7001', 'token-1', 'Demo-Server-01'))).to.equal('[INVALID_CREDENTIALS]');
    await start({ CTRADER_CLIENT_SECRET: 'wrong-secret' });
    expect(await refusal(connect())).to.equal('[INVALID_CREDENTIALS]');
  });

  it('refuses with [INVALID_CREDENTIALS] a refresh token cTrader refuses, whatever code it answers, and tries again on a "not now"', async () => {
    fake.expireToken(42_001);
    // ProtoOAErrorCode has no code of its own for a refused refresh token: the listed token code, and
    // codes the adapter does not list, are refusals (no reconnect loop); a rate limit is not.
    for (const code of ['CH_ACCESS_TOKEN_INVALID', 'ACCESS_DENIED', 'INVALID_REQUEST', 'CH_CLIENT_AUTH_FAILURE']) {
      fake.refreshRefusalCode = code;
      const connection = venue.connection({ login: '7001', password: 'token-1|not-the-refresh-token', server: 'demo' }) as CTraderConnection;
      connections.push(connection);
      let refused: unknown = null;
      await connection.connect().catch((error: unknown) => (refused = error));
      expect(refused, code).to.be.instanceOf(VenueError);
      expect((refused as VenueError).code, code).to.equal('[INVALID_CREDENTIALS]');
      expect((refused as VenueError).message, code).to.match(new RegExp(`refuses the refresh token of account 7001: ${code}`));
    }
    fake.refreshRefusalCode = 'REQUEST_FREQUENCY_EXCEEDED';
    const limited = venue.connection({ login: '7001', password: 'token-1|not-the-refresh-token', server: 'demo' }) as CTraderConnection;
    connections.push(limited);
    let failure: unknown = null;
    await limited.connect().catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(CTraderFailure);
    expect(failure).not.to.be.instanceOf(VenueError);
    expect(fake.tokensOf(42_001).renewals).to.equal(0);
  });

  it('gives the symbol sizes in lots from cents of units, and refuses off-step volumes before sending', async () => {
    const connection = await connect();
    const eurusd = await connection.symbolInfo('EURUSD');
    expect(eurusd).to.include({
      contractSize: 100_000,
      minVolume: 0.01,
      volumeStep: 0.01,
      maxVolume: 1000,
      digits: 5,
      baseCurrency: 'EUR',
      profitCurrency: 'USD',
    });
    const btc = await connection.symbolInfo('BTCUSD');
    expect(btc).to.include({ contractSize: 1, minVolume: 0.01, volumeStep: 0.01, maxVolume: 100 });
    expect(await connection.quote('EURUSD')).to.include({ bid: 1.085, ask: 1.0852 });
    expect(await refusal(connection.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.015 }, 'off-step'))).to.equal('[INVALID_VOLUME]');
    expect(await refusal(connection.placeOrder({ symbol: 'BTCUSD', orderType: 'buy', volume: 0.005 }, 'too-small'))).to.equal('[INVALID_VOLUME]');
    expect(await refusal(connection.placeOrder({ symbol: 'XAUUSD', orderType: 'buy', volume: 1 }, 'unknown'))).to.equal('[SYMBOL_NOT_FOUND]');
    expect(fake.requests.filter((t) => t === PT.NEW_ORDER_REQ)).to.have.length(0);
  });

  it('opens, reports and closes a position in cents of units, with a change for each, and places nothing twice for one client id', async () => {
    const connection = await connect();
    const changes: VenueChange[] = [];
    connection.subscribe((c) => changes.push(c));
    const id = '4b0c9a1e-8c55-5c1f-9a0e-2d1c3b4a5f60';
    const placed = await connection.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.07, magicNumber: 77 }, id);
    expect(placed).to.include({ status: 'filled', volume: 0.07, price: 1.0852 });
    const [sent] = fake.ordersOf(42_001);
    expect(sent).to.deep.include({ clientOrderId: id });
    expect(sent!.tradeData).to.include({ volume: 700_000, label: '77' });
    expect(await connection.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.07 }, id)).to.deep.equal(placed);
    expect(fake.ordersOf(42_001)).to.have.length(1);
    await until(() => changes.length >= 1, 'the open');
    expect(changes.map((c) => c.type)).to.deep.equal(['positionOpened']);
    const [position] = await connection.positions();
    expect(position).to.include({ kind: 'position', symbol: 'EURUSD', volume: 0.07, orderType: 'buy', magicNumber: 77, clientOrderId: id });
    expect(position!.id).to.equal((placed as { positionId: string }).positionId);
    fake.setPrice('EURUSD', 1.0872, 1.0874);
    const trade = await connection.closePosition(position!.id, 0.02, 'close-part');
    expect(trade).to.include({ positionId: position!.id, volume: 0.02, closePrice: 1.0872, openPrice: 1.0852 });
    expect(trade.profit).to.be.closeTo(4, 1e-9); // 0.002 × 2 000 units
    expect(await connection.closePosition(position!.id, 0.02, 'close-part')).to.deep.equal(trade);
    await connection.closePosition(position!.id, undefined, 'close-rest');
    await until(() => changes.length >= 3, 'the closes');
    expect(changes.map((c) => c.type)).to.deep.equal(['positionOpened', 'positionPartiallyClosed', 'positionClosed']);
    expect(await connection.positions()).to.deep.equal([]);
    expect((await connection.accountInformation()).balance).to.be.closeTo(10_000 + 4 + 10, 1e-9);
    const history = await connection.history('2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z');
    expect(history.map((h) => h.kind === 'trade' && h.volume)).to.deep.equal([0.02, 0.05]);
  });

  it('keeps a level an amendment omits and removes one it nulls, stating every kept level to cTrader (position and pending order)', async () => {
    const connection = await connect();
    const placed = await connection.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.1, stopLoss: 1.08, takeProfit: 1.09 }, 'protected');
    const positionId = (placed as { positionId: string }).positionId;
    await until(() => fake.positionsOf(42_001)[0]?.takeProfit === 1.09, 'the protection at cTrader');
    const lastAmendment = (type: number) => fake.frames.filter((f) => f.payloadType === type).at(-1)!.payload as Record<string, unknown>;
    // stopLoss only: the take profit is kept, and sent again (cTrader's .proto does not say what an absent level does).
    await connection.modifyPosition(positionId, { stopLoss: 1.081 });
    expect(lastAmendment(PT.AMEND_POSITION_SLTP_REQ)).to.include({ stopLoss: 1.081, takeProfit: 1.09 });
    expect(fake.positionsOf(42_001)[0]).to.deep.include({ stopLoss: 1.081, takeProfit: 1.09 });
    // takeProfit null: removed, the stop loss kept.
    await connection.modifyPosition(positionId, { takeProfit: null });
    expect(lastAmendment(PT.AMEND_POSITION_SLTP_REQ)).to.include({ stopLoss: 1.081 }).and.not.to.have.property('takeProfit');
    expect(fake.positionsOf(42_001)[0]!.takeProfit).to.equal(undefined);
    expect((await connection.positions()).find((p) => p.id === positionId)).to.include({ stopLoss: 1.081, takeProfit: null });
    // A pending order: a new price alone keeps both levels; a null stop loss removes it alone.
    const order = await connection.placeOrder(
      { symbol: 'EURUSD', orderType: 'buyLimit', volume: 0.1, openPrice: 1.08, stopLoss: 1.07, takeProfit: 1.1 },
      'limit',
    );
    const orderId = (order as { orderId: string }).orderId;
    await connection.modifyPosition(orderId, { openPrice: 1.079 });
    expect(lastAmendment(PT.AMEND_ORDER_REQ)).to.include({ limitPrice: 1.079, stopLoss: 1.07, takeProfit: 1.1 });
    expect(fake.pendingOf(42_001)[0]).to.deep.include({ limitPrice: 1.079, stopLoss: 1.07, takeProfit: 1.1 });
    await connection.modifyPosition(orderId, { stopLoss: null });
    expect(fake.pendingOf(42_001)[0]).to.deep.include({ limitPrice: 1.079, takeProfit: 1.1 }).and.not.to.have.property('stopLoss');
    expect(warnings.filter((w) => /does not show what was asked/.test(w))).to.deep.equal([]);
  });

  it('places a stop order good till its expiry, and answers a repeated placement or cancel with the first result', async () => {
    const connection = await connect();
    const expiry = '2030-01-01T00:00:00.000Z';
    const placed = await connection.placeOrder({ symbol: 'EURUSD', orderType: 'sellStop', volume: 0.01, openPrice: 1.08, expiry }, 'stop-1');
    expect(placed).to.include({ status: 'placed', openPrice: 1.08, volume: 0.01 });
    const sent = fake.frames.find((frame) => frame.payloadType === PT.NEW_ORDER_REQ)!.payload as Record<string, unknown>;
    expect(sent).to.include({
      orderType: ORDER_TYPE.STOP,
      stopPrice: 1.08,
      timeInForce: TIME_IN_FORCE.GOOD_TILL_DATE,
      expirationTimestamp: Date.parse(expiry),
    });
    const [pending] = await connection.positions();
    expect(pending).to.include({ kind: 'order', id: placed.orderId, orderType: 'sellStop', expiry, clientOrderId: 'stop-1' });
    expect(await connection.placeOrder({ symbol: 'EURUSD', orderType: 'sellStop', volume: 0.01, openPrice: 1.08, expiry }, 'stop-1')).to.deep.equal(placed);
    const cancelled = await connection.cancelOrder(placed.orderId, 'cancel-1');
    expect(cancelled).to.include({ id: placed.orderId, orderType: 'sellStop' });
    expect(await connection.cancelOrder(placed.orderId, 'cancel-1')).to.deep.equal(cancelled);
    expect(await refusal(connection.cancelOrder(placed.orderId, 'cancel-2'))).to.equal('[ORDER_NOT_FOUND]');
    expect(fake.requests.filter((t) => t === PT.NEW_ORDER_REQ)).to.have.length(1);
    expect(fake.requests.filter((t) => t === PT.CANCEL_ORDER_REQ)).to.have.length(1);
    expect(fake.pendingOf(42_001)).to.have.length(0);
  });

  it('finds an order that reached cTrader before its answer was lost, and does not place it again', async () => {
    const connection = await connect();
    fake.swallowNextOrderAnswer = true;
    const id = '9d1c7b0e-0d7e-5b9e-8c44-6a0f3e2b1c7d';
    const placed = await connection.placeOrder({ symbol: 'BTCUSD', orderType: 'sell', volume: 0.25 }, id);
    expect(placed).to.include({ status: 'filled', volume: 0.25, price: 65000 });
    expect(fake.ordersOf(42_001)).to.have.length(1);
    expect(fake.ordersOf(42_001)[0]!.tradeData.volume).to.equal(25);
    expect(warnings.some((w) => /looking the order up by its client order id/.test(w))).to.equal(true);
    expect(infos.some((m) => /had reached cTrader/.test(m))).to.equal(true);
    // The service restarts and the copy is replayed: a new connection finds the order by its client id.
    const again = await connect();
    expect((await again.placeOrder({ symbol: 'BTCUSD', orderType: 'sell', volume: 0.25 }, id)).orderId).to.equal(placed.orderId);
    expect(fake.ordersOf(42_001)).to.have.length(1);
  });

  it('reads deposits and withdrawals into the history, hears them live, and tells those made while the link was down once', async () => {
    const day = 24 * 3600_000;
    // Before the connection: a deposit 20 days ago (three week-wide requests back), a withdrawal, and a swap charge (counted with positions).
    const old = fake.cashFlow(42_001, 2_500, { at: Date.now() - 20 * day, note: 'wire 118' });
    fake.cashFlow(42_001, -300, { at: Date.now() - day });
    fake.cashFlow(42_001, -1.25, { at: Date.now() - day, operationType: 22 });
    const connection = await connect();
    const changes: VenueChange[] = [];
    connection.subscribe((c) => changes.push(c));
    const balances = (entries: readonly { kind: string }[]) => entries.filter((e): e is BalanceOperation => e.kind === 'balance');
    const history = balances(await connection.history(new Date(Date.now() - 30 * day).toISOString(), new Date().toISOString()));
    expect(history.map(({ id, amount, comment }) => ({ id, amount, comment }))).to.deep.equal([
      { id: String(old), amount: 2_500, comment: 'wire 118' },
      { id: String(old + 1), amount: -300, comment: 'cTrader withdrawal' },
    ]);
    // Every request stays within cTrader's one-week limit (the fake refuses wider ones).
    expect(fake.frames.filter((f) => f.payloadType === PT.CASH_FLOW_HISTORY_LIST_REQ).length).to.be.greaterThan(2);
    // Live: a DEPOSIT_WITHDRAW execution event is a balance change, told once.
    const live = fake.cashFlow(42_001, 1_000);
    await until(() => changes.some((c) => c.type === 'balanceChanged'), 'the live deposit');
    expect((await connection.accountInformation()).balance).to.equal(10_000 + 2_500 - 300 - 1.25 + 1_000);
    // While the link is down: a withdrawal nobody hears, told once the link is back.
    fake.down = true;
    fake.dropAll();
    await until(() => !connection.isConnected(), 'the drop');
    const missed = fake.cashFlow(42_001, -200, { note: 'card refund' });
    fake.down = false;
    await until(() => connection.isConnected() && changes.filter((c) => c.type === 'balanceChanged').length === 2, 'the withdrawal read after the reconnect');
    const told = changes.flatMap((c) => (c.type === 'balanceChanged' ? [c.operation] : []));
    expect(told.map(({ id, amount, comment }) => ({ id, amount, comment }))).to.deep.equal([
      { id: String(live), amount: 1_000, comment: 'cTrader deposit' },
      { id: String(missed), amount: -200, comment: 'card refund' },
    ]);
  });

  it('says it is disconnected while the link is down, reconnects with backoff, and tells what changed meanwhile once', async () => {
    const connection = await connect();
    const placed = await connection.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }, 'before-the-drop');
    const positionId = (placed as { positionId: string }).positionId;
    const changes: VenueChange[] = [];
    connection.subscribe((c) => changes.push(c));
    await until(() => changes.length === 0, 'quiet');
    fake.down = true;
    fake.dropAll();
    await until(() => !connection.isConnected(), 'the drop');
    expect(connection.statusMessage).to.match(/reconnecting/);
    expect(await refusal(connection.accountInformation())).to.equal('[NOT_CONNECTED]');
    expect(warnings.some((w) => /the link closed; reconnecting with backoff/.test(w))).to.equal(true);
    // Meanwhile the user closes the copy in cTrader and opens another position.
    fake.closeManually(42_001, Number(positionId));
    const other = fake.openManually(42_001, 'BTCUSD', 'buy', 10);
    fake.down = false;
    await until(() => connection.isConnected(), 'the reconnect');
    expect(connection.statusMessage).to.equal('connected');
    expect(infos.some((m) => /reconnected after \d+ attempt/.test(m))).to.equal(true);
    await until(() => changes.length >= 2, 'the changes');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(changes.map((c) => c.type).sort()).to.deep.equal(['positionClosed', 'positionOpened']);
    const closed = changes.find((c) => c.type === 'positionClosed') as Extract<VenueChange, { type: 'positionClosed' }>;
    expect(closed.trade).to.include({ positionId, volume: 0.01 });
    const opened = changes.find((c) => c.type === 'positionOpened') as Extract<VenueChange, { type: 'positionOpened' }>;
    expect(opened.position).to.include({ id: String(other), volume: 0.1, symbol: 'BTCUSD' });
    // Live events after the reconnect still arrive, once.
    fake.closeManually(42_001, other);
    await until(() => changes.length >= 3, 'the live close');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(changes.map((c) => c.type).filter((t) => t === 'positionClosed')).to.have.length(2);
  });
});
