// A project's month of usage on a virtual clock, its invoice, details, transactions, balance and
// forecast (GET /projects/{projectId}/invoices, .../invoices/{invoiceNumber}/details, /transactions,
// /costs/forecast, ProjectDTO.balance), through the API, the billing and invoices read models and the
// monthly close; again after a rebuild of both read models; and nothing of it for another project.
//
// The price list (EUR): an account-day 0.50, of type 11 0.80; a FeatureDedicatedIpDTO day 0.20; a PRO
// AI-tier day 1.25; due in 10 days. January 2026 (31 days), the project without a customer:
//   account A (type 1), created 5 January 10:00, stays:            days 5..31 = 27 x 0.50 = 13.50
//   account B (type 11), created 5 January 10:00, deleted 20 January: days 5..20 = 16 x 0.80 = 12.80
//   B's dedicated IP, added 5 January, removed 20 January 12:00:     days 5..20 = 16 x 0.20 =  3.20
//   A's messaging connector with aiTier PRO, added 25 January:       days 25..31 = 7 x 1.25 =  8.75
//   (the messaging account feature and the connector feature themselves are not priced: free)
//                                                                                    total 38.25
// February's forecast (28 days), seen on 2 February: A 28 x 0.50 = 14.00, PRO 28 x 1.25 = 35.00: 49.00;
// so far (1 and 2 February): 1.00 + 2.50 = 3.50.
import { expect } from 'chai';
import { closeDueMonths } from '../../app/invoices.js';
import { settle } from '../../app/services.js';
import { allProjections } from '../../projections/all.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';
import { featureBody, movableClock } from '../support/trading.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';

const HOUR = 3_600_000;
const OTHER_PROJECT = '7d1e3c2b-4a5f-4e6d-8c7b-9a0f1e2d3c4b';
const OTHER_KEY = 'other-key-0123456789abcdef-invoices';
const PRICES = {
  currency: 'EUR',
  accountDaily: '0.50',
  accountDailyByType: { '11': '0.80' },
  featureDaily: { FeatureDedicatedIpDTO: '0.20' },
  aiTierDaily: { PRO: '1.25' },
  invoiceDueDays: 10,
};

describe('invoices: a month of usage, its invoice, transactions and forecast', function () {
  this.timeout(90_000);
  const clock = movableClock(Date.parse('2026-01-05T10:00:00.000Z'));
  const advanceTo = (iso: string) => clock.advance(Date.parse(iso) - clock().getTime());
  let t: TestService;
  let accountA: string;
  let invoiceNumber: string;

  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await t.call(method, path, body === undefined ? {} : { body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 201, 204]);
    return res.body;
  };

  before(async () => {
    t = await startTestService({
      clock,
      // The messaging account below polls no chat server outside the machine: a closed local port.
      env: { PRICE_LIST: JSON.stringify(PRICES), MESSAGING_TELEGRAM_API_ROOT: 'http://127.0.0.1:9', MESSAGING_DISCORD_API_ROOT: 'http://127.0.0.1:9' },
    });
    await createOtherProject(t, OTHER_PROJECT, OTHER_KEY);
    accountA = (await ok('POST', '/accounts', validAccount({ alias: 'A', loginAccountNumber: '7001' }))).id;
    const accountB = (await ok('POST', '/accounts', validAccount({ alias: 'B', loginAccountNumber: '7002', type: { id: 11 } }))).id;
    const ip = await ok('POST', `/accounts/${accountB}/features`, featureBody({ type: 'FeatureDedicatedIpDTO', dedicatedProxyServerId: 6 }));
    advanceTo('2026-01-20T12:00:00.000Z');
    await ok('DELETE', `/accounts/${accountB}/features/${ip.id}`);
    await ok('DELETE', `/accounts/${accountB}`);
    advanceTo('2026-01-25T09:00:00.000Z');
    const bot = await ok(
      'POST',
      `/accounts/${accountA}/features`,
      featureBody({ type: 'FeatureMessagingAccountDTO', platform: 'TELEGRAM', botToken: '123456:ABCdefGhIJKlmNoPQRsTUVwxyZ' }),
    );
    await ok(
      'POST',
      `/accounts/${accountA}/features`,
      featureBody({ type: 'FeatureMessagingConnectorDTO', messagingAccountId: bot.id, chatId: '-1', aiTier: 'PRO' }),
    );
    advanceTo('2026-02-02T08:00:00.000Z');
    await closeDueMonths(t.service.services);
    await settle(t.service.services);
  });
  after(() => t?.stop());

  const january = async () => {
    const list = await ok('GET', `/projects/${DEFAULT_PROJECT_ID}/invoices`);
    expect(list).to.have.length(1);
    return list[0];
  };

  it('issues one invoice for January at the close, for the hand calculation', async () => {
    const invoice = await january();
    invoiceNumber = invoice.invoiceNumber;
    expect(invoiceNumber).to.match(/^INV-202601-[0-9A-F]{8}$/);
    expect(invoice).to.include({
      id: invoiceNumber,
      projectId: DEFAULT_PROJECT_ID,
      amount: 38.25,
      status: 'OPEN',
      year: 2026,
      month: 1,
      manualCollection: true,
      discount: 0,
    });
    expect(invoice.currencyType).to.deep.equal({ id: 2, name: 'EUR' });
    expect(Date.parse(invoice.dueDate) - Date.parse(invoice.created)).to.equal(10 * 24 * HOUR);
    expect(invoice.customerId).to.equal(null);
  });

  it('details every line, each recomputed, adding up to the amount', async () => {
    const details = await ok('GET', `/projects/${DEFAULT_PROJECT_ID}/invoices/${invoiceNumber}/details`);
    const lines = (details.lines as { kind: string; quantity: number; unitPrice: number; amount: number }[]).map((l) => [
      l.kind,
      l.quantity,
      l.unitPrice,
      l.amount,
    ]);
    expect(lines).to.deep.equal([
      ['ACCOUNT', 27, 0.5, 13.5],
      ['ACCOUNT', 16, 0.8, 12.8],
      ['FEATURE', 16, 0.2, 3.2],
      ['AI_TIER', 7, 1.25, 8.75],
    ]);
    expect(details).to.include({ total: 38.25, amount: 38.25, matches: true, status: 'OPEN' });
  });

  it('charges the project in its transactions and balance', async () => {
    const transactions = await ok('GET', `/projects/${DEFAULT_PROJECT_ID}/transactions`);
    expect(transactions).to.have.length(1);
    expect(transactions[0]).to.include({ amount: -38.25, reference: invoiceNumber, projectId: DEFAULT_PROJECT_ID });
    expect(transactions[0].currencyType).to.deep.equal({ id: 2, name: 'EUR' });
    expect((await ok('GET', `/projects/${DEFAULT_PROJECT_ID}`)).balance).to.equal(-38.25);
  });

  it("forecasts February: what runs now, to the month's end", async () => {
    const forecast = await ok('GET', `/projects/${DEFAULT_PROJECT_ID}/costs/forecast`);
    expect(forecast).to.include({ total: 49, soFar: 3.5, year: 2026, month: 2 });
    expect(forecast.currency).to.deep.equal({ id: 2, name: 'EUR' });
    expect(forecast.positions).to.have.length(2);
    expect(forecast.positions[0]).to.match(/28 x 0\.50 = 14\.00 EUR$/);
  });

  it('closes a month once: another close issues nothing', async () => {
    expect(await closeDueMonths(t.service.services)).to.deep.equal([]);
    expect(await ok('GET', `/projects/${DEFAULT_PROJECT_ID}/invoices`)).to.have.length(1);
  });

  it('shows another project nothing of it', async () => {
    const other = (method: string, path: string) => t.call(method, path, { key: OTHER_KEY });
    expect((await other('GET', `/projects/${OTHER_PROJECT}/invoices`)).body).to.deep.equal([]);
    expect((await other('GET', `/projects/${OTHER_PROJECT}/transactions`)).body).to.deep.equal([]);
    expect((await other('GET', `/projects/${OTHER_PROJECT}/costs/forecast`)).body.total).to.equal(0);
    expect((await other('GET', `/projects/${OTHER_PROJECT}/invoices/${invoiceNumber}/details`)).status).to.equal(404);
    expect((await other('GET', `/projects/${DEFAULT_PROJECT_ID}/invoices`)).status).to.equal(404);
  });

  it('gives every amount again after a rebuild of the billing and invoices read models', async () => {
    const read = async () => ({
      invoices: await ok('GET', `/projects/${DEFAULT_PROJECT_ID}/invoices`),
      details: await ok('GET', `/projects/${DEFAULT_PROJECT_ID}/invoices/${invoiceNumber}/details`),
      transactions: await ok('GET', `/projects/${DEFAULT_PROJECT_ID}/transactions`),
      forecast: (await ok('GET', `/projects/${DEFAULT_PROJECT_ID}/costs/forecast`)).total,
    });
    const before = await read();
    const { db, store } = t.service.services;
    for (const name of ['billing', 'invoices'])
      await rebuildProjection(
        db,
        store,
        allProjections.find((p) => p.name === name)!,
      );
    expect(await read()).to.deep.equal(before);
  });
});
