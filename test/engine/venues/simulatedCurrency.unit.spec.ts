import { expect } from 'chai';
import { type OrderRequest, VenueError } from '../../../engine/venues/port.js';
import { serverCurrency, SIMULATED_SERVERS } from '../../../engine/venues/simulated/servers.js';
import { type Clock, SimulatedVenue } from '../../../engine/venues/simulated/simulatedVenue.js';

const TUESDAY_10 = Date.parse('2026-01-06T10:00:00.000Z');

const clock: Clock = { now: () => TUESDAY_10 };

/** An EUR account of 10,000 with EURUSD at 1.085 / 1.0851 (mid 1.08505) and USDJPY at 150 / 150.01. */
const given = async (currency = 'EUR', balance = 10_000) => {
  const venue = SimulatedVenue.create({ clock, seed: 'currency' });
  venue.openAccount({ login: '2001', password: 'secret', balance, leverage: 100, marginMode: 'hedging', currency });
  venue.setQuote('EURUSD', { bid: 1.085, ask: 1.0851 });
  venue.setQuote('USDJPY', { bid: 150, ask: 150.01 });
  const trader = venue.connection({ login: '2001', password: 'secret' });
  await trader.connect();
  let ids = 0;
  const place = (request: OrderRequest) => trader.placeOrder(request, `client-${++ids}`) as Promise<{ positionId: string }>;
  return { venue, trader, place };
};

describe('simulated venue: accounts in another currency than USD', () => {
  it('keeps USD, EUR, GBP and JPY accounts with the built-in catalogue, USD first', () => {
    expect(SimulatedVenue.create({ clock, seed: 'currency' }).accountCurrencies()).to.deep.equal(['USD', 'EUR', 'GBP', 'JPY']);
  });

  it('reports the currency it was opened in; the deposit is in it', async () => {
    const { trader } = await given();
    expect(await trader.accountInformation()).to.deep.include({ currency: 'EUR', balance: 10_000, equity: 10_000 });
  });

  it('refuses a currency no pair converts with [INVALID_REQUEST] and opens nothing', () => {
    const venue = SimulatedVenue.create({ clock, seed: 'currency' });
    expect(() => venue.openAccount({ login: '2002', password: 's', balance: 1, leverage: 100, marginMode: 'hedging', currency: 'CHF' }))
      .to.throw(VenueError)
      .with.property('code', '[INVALID_REQUEST]');
    expect(venue.hasAccount('2002')).to.equal(false);
  });

  it('EURUSD on an EUR account: margin in EUR needs no conversion, the USD profit is divided by the EURUSD mid', async () => {
    const { venue, trader, place } = await given();
    const { positionId } = await place({ symbol: 'EURUSD', orderType: 'buy', volume: 1 });
    // −10 USD / 1.08505 = −9.216...; margin 100,000 EUR / 100; commission 7.
    expect(await trader.accountInformation()).to.deep.include({ balance: 9993, unrealizedProfit: -9.22, equity: 9983.78, margin: 1000 });
    venue.setQuote('EURUSD', { bid: 1.095, ask: 1.0951 });
    // 990 USD / 1.09505 = 904.068...
    expect(await trader.closePosition(positionId)).to.deep.include({ profit: 904.07, closePrice: 1.095 });
    expect((await trader.accountInformation()).balance).to.equal(10_897.07);
  });

  it('USDJPY on an EUR account: USD margin and JPY profit both go through USD to EUR', async () => {
    const { trader, place } = await given();
    await place({ symbol: 'USDJPY', orderType: 'sell', volume: 1 });
    // margin 1,000 USD / 1.08505 = 921.616...; profit −1,000 JPY / 150.005 / 1.08505 = −6.1439...
    expect(await trader.accountInformation()).to.deep.include({ unrealizedProfit: -6.14, margin: 921.62 });
  });

  it('a JPY account converts USD profit by the USDJPY mid', async () => {
    const { venue, trader, place } = await given('JPY', 1_000_000);
    const { positionId } = await place({ symbol: 'EURUSD', orderType: 'buy', volume: 0.1 });
    venue.setQuote('EURUSD', { bid: 1.0951, ask: 1.0952 });
    // 100 USD × 150.005
    expect(await trader.closePosition(positionId)).to.deep.include({ profit: 15_000.5 });
  });

  it('the server name chooses the currency: its first three-letter word the venue keeps, else none', () => {
    const kept = ['USD', 'EUR', 'GBP', 'JPY'];
    expect(serverCurrency('Simulated-EUR-Demo', kept)).to.equal('EUR');
    expect(serverCurrency('simulated netting gbp', kept)).to.equal('GBP');
    expect(serverCurrency('Simulated-Demo', kept)).to.equal(null);
    expect(serverCurrency('ABC-Demo-JPY', kept)).to.equal('JPY');
    expect(serverCurrency('Simulated-CHF-Demo', kept)).to.equal(null);
    expect(serverCurrency('Simulated-EURO-Demo', kept)).to.equal(null);
    expect(SIMULATED_SERVERS.map((s) => serverCurrency(s, kept))).to.deep.equal([null, null, 'EUR', 'GBP']);
  });
});
