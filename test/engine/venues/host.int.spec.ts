import { expect } from 'chai';
import type { Kysely } from 'kysely';
import { type AccountLogin, DEMO_BALANCE, SIMULATED_VENUE_NAME, VenueHost } from '../../../engine/venues/host.js';
import type { VenueConnection } from '../../../engine/venues/port.js';
import { SimulatedVenueStore } from '../../../engine/venues/simulated/venueStore.js';
import { createReadModelDb } from '../../../projections/database.js';
import type { ReadModels } from '../../../projections/schema.js';
import { freshDatabase } from '../../support/postgres.js';
import { refusal } from '../../support/venueRefusal.js';

const TUESDAY_10 = Date.parse('2026-01-06T10:00:00.000Z');
const MINUTE = 60_000;
const ALL_TIME = ['2026-01-01T00:00:00Z', '2026-12-31T00:00:00Z'] as const;

const demoLogin = (overrides: Partial<AccountLogin> = {}): AccountLogin => ({
  accountTypeId: 1,
  loginServer: 'Sim-Demo',
  loginAccountNumber: '5001',
  password: 'first password',
  ...overrides,
});

describe('venue host', () => {
  let db: Kysely<ReadModels>;
  let now: number;
  let errors: unknown[];
  let hosts: VenueHost[];

  /** A host on this spec's database, on the hand-driven clock, without a ticker. */
  const startHost = async (seed?: string): Promise<VenueHost> => {
    const host = await VenueHost.start({
      db,
      clock: () => new Date(now),
      log: { info: () => undefined, warn: () => undefined, error: (message, error) => errors.push([message, error]) },
      ticker: false,
      ...(seed === undefined ? {} : { seed }),
    });
    hosts.push(host);
    return host;
  };

  const connectedFor = async (host: VenueHost, login: AccountLogin = demoLogin()): Promise<VenueConnection> => {
    const connection = await host.connectionFor(login);
    await connection.connect();
    return connection;
  };

  const pinQuotes = (host: VenueHost) =>
    host.desk((venue) => {
      venue.setQuote('EURUSD', { bid: 1.085, ask: 1.0851 });
      venue.setQuote('XAUUSD', { bid: 2350, ask: 2350.25 });
    });

  beforeEach(async () => {
    ({ db } = createReadModelDb(await freshDatabase(), 4));
    now = TUESDAY_10;
    errors = [];
    hosts = [];
  });
  afterEach(async () => {
    for (const host of hosts) await host.stop();
    await db.destroy();
    expect(errors).to.deep.equal([]);
  });

  describe('the login rule', () => {
    it('opens a 10,000 USD hedging demo account, leverage 1:100, at the first connection to a login', async () => {
      const host = await startHost();
      const trader = await connectedFor(host);
      expect(trader.login).to.equal('Sim-Demo/5001');
      expect(await trader.accountInformation()).to.deep.include({
        login: 'Sim-Demo/5001',
        currency: 'USD',
        balance: DEMO_BALANCE,
        equity: 10_000,
        leverage: 100,
        marginMode: 'hedging',
        environment: 'DEMO',
      });
      expect((await trader.history(...ALL_TIME)).map((e) => [e.kind, e.kind === 'balance' && e.amount])).to.deep.equal([['balance', 10_000]]);
    });

    it('opens a netting account when the login server names netting, whatever its case', async () => {
      const host = await startHost();
      const netting = await connectedFor(host, demoLogin({ loginServer: 'Broker-Netting', loginAccountNumber: '1' }));
      const lower = await connectedFor(host, demoLogin({ loginServer: 'demo.netting.eu', loginAccountNumber: '2' }));
      const hedging = await connectedFor(host, demoLogin({ loginServer: 'Broker-Hedge', loginAccountNumber: '3' }));
      expect((await netting.accountInformation()).marginMode).to.equal('netting');
      expect((await lower.accountInformation()).marginMode).to.equal('netting');
      expect((await hedging.accountInformation()).marginMode).to.equal('hedging');
    });

    it('keeps logins of different servers apart: the same account number on another server is another account', async () => {
      const host = await startHost();
      const first = await connectedFor(host, demoLogin({ loginServer: 'Sim-A' }));
      const second = await connectedFor(host, demoLogin({ loginServer: 'Sim-B', password: 'another password' }));
      await first.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.1 }, 'only-on-a');
      expect(await first.positions()).to.have.length(1);
      expect(await second.positions()).to.deep.equal([]);
    });

    it('refuses a later connection with another password with [INVALID_CREDENTIALS], and opens nothing new', async () => {
      const host = await startHost();
      const trader = await connectedFor(host);
      await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.1 }, 'kept');
      const intruder = await host.connectionFor(demoLogin({ password: 'guessed' }));
      expect(await refusal(intruder.connect())).to.equal('[INVALID_CREDENTIALS]');
      expect(intruder.isConnected()).to.equal(false);
      const again = await connectedFor(host);
      expect((await again.positions()).map((p) => p.clientOrderId)).to.deep.equal(['kept']);
      expect(host.simulated.snapshot().accounts.map((a) => a.login)).to.deep.equal(['Sim-Demo/5001']);
    });

    it('keeps the rule across a restart: the saved password still decides', async () => {
      await connectedFor(await startHost());
      await hosts[0]?.stop();
      const restarted = await startHost();
      expect(await refusal((await restarted.connectionFor(demoLogin({ password: 'guessed' }))).connect())).to.equal('[INVALID_CREDENTIALS]');
      expect((await (await connectedFor(restarted)).accountInformation()).balance).to.equal(DEMO_BALANCE);
    });
  });

  describe('durability', () => {
    it('its state survives a restart: positions, pending orders, balance, history and placements', async () => {
      const host = await startHost();
      await pinQuotes(host);
      const trader = await connectedFor(host);
      const opened = await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 1, stopLoss: 1.08, comment: 'copy of #7' }, 'r-open');
      await trader.placeOrder({ symbol: 'XAUUSD', orderType: 'sell', volume: 0.1 }, 'r-gold');
      const pending = await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buyLimit', volume: 0.5, openPrice: 1.08 }, 'r-pending');
      const partial = await trader.closePosition(opened.orderId, 0.4, 'r-partial');
      const modified = await trader.modifyPosition(opened.orderId, { takeProfit: 1.09 }, 'r-modify');
      await host.desk((venue) => venue.deposit('Sim-Demo/5001', 250, 'bonus'));
      const positions = await trader.positions();
      const information = await trader.accountInformation();
      const history = await trader.history(...ALL_TIME);
      const state = host.simulated.snapshot();
      expect(positions.map((p) => [p.kind, p.id, p.volume])).to.deep.equal([
        ['position', opened.orderId, 0.6],
        ['position', String(Number(opened.orderId) + 1), 0.1],
        ['order', pending.orderId, 0.5],
      ]);
      // 10,000 − 7 and − 0.70 commission − 4 on the partial close + 250.
      expect(information.balance).to.equal(10_238.3);
      await host.stop();

      const restarted = await startHost();
      expect(restarted.simulated.snapshot()).to.deep.equal(state);
      const again = await connectedFor(restarted);
      expect(await again.positions()).to.deep.equal(positions);
      expect(await again.accountInformation()).to.deep.equal(information);
      expect(await again.history(...ALL_TIME)).to.deep.equal(history);
      expect(await again.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 1 }, 'r-open')).to.deep.equal(opened);
      expect(await again.placeOrder({ symbol: 'EURUSD', orderType: 'buyLimit', volume: 0.5, openPrice: 1.08 }, 'r-pending')).to.deep.equal(pending);
      expect(await again.closePosition(opened.orderId, 0.4, 'r-partial')).to.deep.equal(partial);
      expect(await again.modifyPosition(opened.orderId, { takeProfit: 1.1 }, 'r-modify')).to.deep.equal(modified);
      expect(await again.positions()).to.deep.equal(positions);
    });

    it('saves a trade before it answers: a host started beside the running one, which never stopped, finds it', async () => {
      const host = await startHost();
      await pinQuotes(host);
      const trader = await connectedFor(host);
      const opened = await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.3 }, 'acknowledged');
      const closed = await trader.closePosition(opened.orderId, 0.1, 'acknowledged-close');
      const saved = await new SimulatedVenueStore(db).load(SIMULATED_VENUE_NAME);
      expect(saved).to.deep.equal(host.simulated.snapshot());
      const beside = await startHost();
      const seen = await connectedFor(beside);
      expect((await seen.positions()).map((p) => [p.id, p.volume])).to.deep.equal([[opened.orderId, 0.2]]);
      expect((await seen.history(...ALL_TIME)).at(-1)).to.deep.equal(closed);
    });

    it('lets concurrent requests share saves and still saves every one of them', async () => {
      const host = await startHost();
      await pinQuotes(host);
      const trader = await connectedFor(host);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }, `burst-${i}`)),
      );
      expect(new Set(results.map((r) => r.orderId)).size).to.equal(12);
      expect(host.simulated.journal().accounts).to.deep.equal([]);
      const saved = await new SimulatedVenueStore(db).load(SIMULATED_VENUE_NAME);
      expect(saved?.accounts[0]?.positions).to.have.length(12);
      expect(saved?.accounts[0]?.requests.map((r) => r.id).sort()).to.deep.equal(results.map((r) => r.clientOrderId).sort());
    });

    it('takes no journal while a change is delivered: the save starts after the request, and one save serves the request and its change', async () => {
      const host = await startHost();
      await pinQuotes(host);
      const trader = await connectedFor(host);
      let journals = 0;
      const journal = host.simulated.journal.bind(host.simulated);
      host.simulated.journal = () => {
        journals += 1;
        return journal();
      };
      // A listener asks for the save of the change it hears, as the venue sessions' recorder does.
      const heard: number[] = [];
      const saves: Promise<void>[] = [];
      trader.subscribe(() => {
        saves.push(host.persist());
        heard.push(journals);
      });
      const placing = trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.1 }, 'deferred-save');
      // The change was delivered inside the call, and its save asked for: no journal taken yet.
      expect([heard, saves.length, journals]).to.deep.equal([[0], 1, 0]);
      const placed = await placing;
      await Promise.all(saves);
      // One save for the listener's request and the order's own.
      expect(journals).to.equal(1);
      expect(host.simulated.journal().accounts).to.deep.equal([]);
      const saved = await new SimulatedVenueStore(db).load(SIMULATED_VENUE_NAME);
      expect(saved?.accounts[0]?.positions.map((p) => p.id)).to.deep.equal([placed.orderId]);
      expect(saved).to.deep.equal(host.simulated.snapshot());
    });

    it('continues the saved price paths after a restart, whatever seed the new start is given', async () => {
      const first = await startHost('one seed');
      const later = TUESDAY_10 + 90 * MINUTE;
      const quoteBefore = first.simulated.quote('GBPUSD', later);
      await first.stop();
      const restarted = await startHost('another seed');
      expect(restarted.simulated.quote('GBPUSD', later)).to.deep.equal(quoteBefore);
    });

    it('still watches a saved stop loss after a restart, and saves the close it makes', async () => {
      const host = await startHost();
      await pinQuotes(host);
      const trader = await connectedFor(host);
      const opened = await trader.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 1, stopLoss: 1.084 }, 'stopped');
      await host.stop();
      const restarted = await startHost();
      now += MINUTE;
      await restarted.desk((venue) => venue.setQuote('EURUSD', { bid: 1.0835, ask: 1.0836 }));
      const again = await connectedFor(restarted);
      expect(await again.positions()).to.deep.equal([]);
      expect((await again.history(...ALL_TIME)).at(-1)).to.deep.include({ positionId: opened.orderId, reason: 'stopLoss', closePrice: 1.0835 });
      await restarted.stop();
      const saved = await new SimulatedVenueStore(db).load(SIMULATED_VENUE_NAME);
      expect(saved?.accounts[0]?.positions).to.deep.equal([]);
    });
  });
});
