// The white-label operator's money over HTTP (issue 23; spec "Invoice (white-label, manual collection)"
// and the white-label operations): two customers of brand A and one of brand B register by mailed code
// (a local SMTP server, smtp-server), each with a project and an account for January on a virtual clock;
// the monthly close invoices each customer and mails it the brand's payment instructions; then the
// operator's dashboard, customer list money members, a customer's invoices, bulk paid, one paid, void
// and refund move the states the spec gives and nothing else (409 in the spec's error format, no
// event), and brand B's operator sees and moves nothing of A's. Again after a rebuild.
//
// Price list (EUR): an account-day 0.50, of type 11 0.80. January 2026 (31 days):
//   jane (A): account type 1, created 5 January 10:00, stays:  days 5..31 = 27 x 0.50 = 13.50
//   bob  (A): account type 11, created 5 January 10:00, stays: days 5..31 = 27 x 0.80 = 21.60
//   carol (B): account type 1, as jane:                                                 13.50
// Seen on 2 February 08:00 (days 1 and 2 so far): jane 1.00, bob 1.60, carol 1.00.
import { expect } from 'chai';
import { closeDueMonths } from '../../app/invoices.js';
import { customersMoney } from '../../app/invoicesWhiteLabel.js';
import { settle } from '../../app/services.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { invoiceStream } from '../../domain/invoice/events.js';
import { allProjections } from '../../projections/all.js';
import { customersOfBrand } from '../../projections/customers/queries.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { type FakeSmtp, startFakeSmtp } from '../support/fakeSmtp.js';
import { createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';
import { eventually, featureBody, movableClock } from '../support/trading.js';

const OTHER_PROJECT = '5b5b5b5b-5b5b-45b5-85b5-5b5b5b5b5b5b';
const OTHER_KEY = 'wl-money-other-brand-project-key-0001';
const A = 'trade.acme-money.test';
const B = 'trade.other-money.test';
const INSTRUCTIONS = 'Pay by bank transfer to IBAN CH93 0076 2011 6238 5295 7, quoting the invoice number.';
const PRICES = { currency: 'EUR', accountDaily: '0.50', accountDailyByType: { '11': '0.80' }, invoiceDueDays: 14 };

const brandBody = (subdomain: string, members: Record<string, unknown> = {}) =>
  featureBody({ type: 'FeatureWhiteLabelDTO', name: 'Acme Money', logo: 'https://cdn.acme.test/logo.svg', subdomain, stripeApiKey: '', ...members });

interface Customer {
  id: number;
  projectId: string;
  key: string;
  invoice: string;
}

describe('white-label money: dashboard, customer invoices, paid, void and refund', function () {
  this.timeout(180_000);
  const clock = movableClock(Date.parse('2026-01-05T10:00:00.000Z'));
  let t: TestService;
  let smtp: FakeSmtp;
  let brandA: string;
  let brandB: string;
  const jane = {} as Customer;
  const bob = {} as Customer;
  const carol = {} as Customer;
  const base = () => `/projects/${DEFAULT_PROJECT_ID}/features/${brandA}/whitelabel`;
  const baseB = () => `/projects/${OTHER_PROJECT}/features/${brandB}/whitelabel`;

  const ok = async (method: string, path: string, options: { body?: unknown; key?: string } = {}) => {
    const res = await t.call(method, path, options);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.equal(200);
    return res.body;
  };

  /** Registers `email` under `subdomain` with the mailed code; a project and one account of `type` in it. */
  const register = async (subdomain: string, email: string, into: Customer, type = 1, login = '7300001') => {
    const before = smtp.mails.length;
    const asked = await t.call('POST', `/whitelabel/${subdomain}/customers/code`, { key: null, body: { email } });
    expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
    const code = await smtp.codeFor(email, before);
    const session = await t.call('POST', `/whitelabel/${subdomain}/customers/session`, { key: null, body: { codeId: asked.body.codeId, code } });
    expect(session.status, JSON.stringify(session.body)).to.equal(200);
    into.id = session.body.customer.id;
    const project = await t.call('POST', '/customer/projects', {
      key: null,
      headers: { authorization: `Bearer ${session.body.token}` },
      body: { name: `${email} desk` },
    });
    expect(project.status, JSON.stringify(project.body)).to.equal(201);
    into.projectId = project.body.project.id;
    into.key = project.body.key;
    const account = await t.call('POST', '/accounts', { key: into.key, body: validAccount({ loginAccountNumber: login, type: { id: type } }) });
    expect(account.status, JSON.stringify(account.body)).to.be.oneOf([200, 201]);
  };

  const invoiceEvents = async (invoiceNumber: string): Promise<string[]> => {
    const types: string[] = [];
    for await (const e of t.service.services.store.readStream(invoiceStream(invoiceNumber))) types.push(e.event.type);
    return types;
  };

  const refused = async (method: string, path: string, status: number, code: string, body: unknown = {}, key?: string) => {
    const res = await t.call(method, path, { ...(method === 'GET' ? {} : { body }), ...(key ? { key } : {}) });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.equal(status);
    expect(res.body.error).to.equal(code);
    expect(res.body.message).to.be.a('string');
  };

  before(async () => {
    smtp = await startFakeSmtp();
    t = await startTestService({
      clock,
      env: { SMTP_URL: smtp.url, SMTP_FROM: 'Operator <ops@operator.test>', PRICE_LIST: JSON.stringify(PRICES) },
    });
    await createOtherProject(t, OTHER_PROJECT, OTHER_KEY);
    brandA = (
      await ok('POST', `/projects/${DEFAULT_PROJECT_ID}/features`, {
        body: brandBody(A, { sendManualCollectionEmail: true, manualCollection: true, manualCollectionPaymentInstructions: INSTRUCTIONS }),
      })
    ).id;
    brandB = (await ok('POST', `/projects/${OTHER_PROJECT}/features`, { key: OTHER_KEY, body: brandBody(B, { name: 'Other Money' }) })).id;
    await register(A, 'jane@acme.test', jane, 1, '7300001');
    await register(A, 'bob@acme.test', bob, 11, '7300002');
    await register(B, 'carol@other.test', carol, 1, '7300003');
    clock.advance(Date.parse('2026-02-02T08:00:00.000Z') - clock().getTime());
    await closeDueMonths(t.service.services);
    await settle(t.service.services);
  });
  after(async () => {
    await t?.stop();
    await smtp?.close();
  });

  it("mails each customer of a brand with sendManualCollectionEmail its invoice and the brand's payment instructions", async () => {
    const invoices = await ok('GET', `${base()}/customers/${jane.id}/invoices`);
    expect(invoices).to.have.length(1);
    jane.invoice = invoices[0].invoiceNumber;
    bob.invoice = (await ok('GET', `${base()}/customers/${bob.id}/invoices`))[0].invoiceNumber;
    carol.invoice = (await ok('GET', `${baseB()}/customers/${carol.id}/invoices`, { key: OTHER_KEY }))[0].invoiceNumber;
    const mail = await eventually(
      async () => smtp.mails.find((m) => m.to === 'jane@acme.test' && m.raw.includes(jane.invoice)),
      30_000,
      "jane's invoice e-mail",
    );
    const text = mail.raw.replace(/=\r?\n/g, '');
    expect(text).to.include('13.50 EUR');
    expect(text).to.include('IBAN CH93 0076 2011 6238 5295 7');
    await eventually(async () => smtp.mails.find((m) => m.to === 'bob@acme.test' && m.raw.includes(bob.invoice)), 30_000, "bob's invoice e-mail");
    // Brand B does not send them: carol gets none.
    expect(smtp.mails.filter((m) => m.to === 'carol@other.test' && m.raw.includes(carol.invoice))).to.deep.equal([]);
  });

  it("lists a customer's invoices to its brand's operator: OPEN, manual collection, for the hand calculation", async () => {
    const [invoice] = await ok('GET', `${base()}/customers/${jane.id}/invoices`);
    expect(invoice).to.include({
      invoiceNumber: jane.invoice,
      status: 'OPEN',
      manualCollection: true,
      customerEmail: 'jane@acme.test',
      customerId: jane.id,
      projectId: jane.projectId,
      amount: 13.5,
      year: 2026,
      month: 1,
    });
    expect(invoice.currencyType).to.deep.equal({ id: 2, name: 'EUR' });
    // the project's own view answers the customer id as CustomerDTO.id, an integer
    const own = await ok('GET', `/projects/${jane.projectId}/invoices`, { key: jane.key });
    expect(own[0]).to.include({ invoiceNumber: jane.invoice, customerId: jane.id });
  });

  it("answers the customer list's money members and the dashboard", async () => {
    const list = await ok('GET', `${base()}/customers`);
    const money = (id: number) => {
      const c = list.find((x: { customer: { id: number } }) => x.customer.id === id);
      return [c.openInvoices, c.outstandingAmount, c.paidAmount, c.currentMonthOutstanding];
    };
    expect(money(jane.id)).to.deep.equal([1, 13.5, 0, 1]);
    expect(money(bob.id)).to.deep.equal([1, 21.6, 0, 1.6]);

    const dashboard = await ok('GET', `${base()}/dashboard`);
    expect(dashboard).to.include({
      featureId: brandA,
      subdomain: A,
      customerCount: 2,
      blockedCustomerCount: 0,
      projectCount: 2,
      activeProjectCount: 2,
      openInvoices: 2,
      outstandingAmount: 35.1,
      paidAmount: 0,
      currentMonthOutstanding: 2.6,
    });
    expect(dashboard.recentInvoices.map((i: { invoiceNumber: string }) => i.invoiceNumber).sort()).to.deep.equal([jane.invoice, bob.invoice].sort());
    const projects = dashboard.projects.map((p: Record<string, unknown>) => [p.projectId, p.customerEmail, p.accountCount, p.outstandingAmount]);
    expect(projects).to.deep.equal([
      [jane.projectId, 'jane@acme.test', 1, 13.5],
      [bob.projectId, 'bob@acme.test', 1, 21.6],
    ]);
  });

  it("reads the customer list's money in as many queries for two customers as for one (no query per customer)", async () => {
    const { services } = t.service;
    let queries = 0;
    const counting = services.db.withPlugin({
      transformQuery: (args) => {
        queries += 1;
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    });
    const customers = await customersOfBrand(services.db, brandA);
    const countFor = async (rows: typeof customers) => {
      queries = 0;
      const money = await customersMoney({ ...services, db: counting }, rows);
      return { queries, money: [...money.values()].map((m) => [m.customerId, m.outstandingAmount, m.currentMonthOutstanding]) };
    };
    const one = await countFor(customers.filter((c) => c.customerId === jane.id));
    const both = await countFor(customers);
    expect(one.money).to.deep.equal([[jane.id, '13.50', '1.00']]);
    expect(both.money).to.deep.equal([
      [jane.id, '13.50', '1.00'],
      [bob.id, '21.60', '1.60'],
    ]);
    expect(one.queries).to.be.greaterThan(0);
    expect(both.queries).to.equal(one.queries);
  });

  it('marks all OPEN invoices of a customer paid, then refunds the PAID one; nothing else moves it (409, no event)', async () => {
    const paid = await ok('PUT', `${base()}/customers/${jane.id}/invoices/paid`, { body: { externalReference: 'BANK-2026-0042', note: 'by transfer' } });
    expect(paid).to.have.length(1);
    expect(paid[0]).to.include({ invoiceNumber: jane.invoice, status: 'PAID', externalReference: 'BANK-2026-0042', note: 'by transfer' });
    expect(await ok('PUT', `${base()}/customers/${jane.id}/invoices/paid`, { body: {} }), 'nothing OPEN left').to.deep.equal([]);
    await refused('PUT', `${base()}/invoices/${jane.invoice}/paid`, 409, '[INVOICE_NOT_OPEN]');

    const refunded = await ok('PUT', `${base()}/invoices/${jane.invoice}/void`, { body: { reason: 'goodwill' } });
    expect(refunded).to.include({ status: 'REFUNDED', reason: 'goodwill' });
    await refused('PUT', `${base()}/invoices/${jane.invoice}/void`, 409, '[INVOICE_ALREADY_CLOSED]');
    await refused('PUT', `${base()}/invoices/${jane.invoice}/paid`, 409, '[INVOICE_NOT_OPEN]');
    expect(await invoiceEvents(jane.invoice)).to.deep.equal(['InvoiceIssued', 'InvoicePaid', 'InvoiceRefunded']);

    const amounts = (await ok('GET', `/projects/${jane.projectId}/transactions`, { key: jane.key })).map((x: { amount: number }) => x.amount);
    expect(amounts).to.deep.equal([-13.5, 13.5, -13.5, 13.5]);
  });

  it('voids an OPEN invoice: it can then be neither paid nor voided again', async () => {
    const voided = await ok('PUT', `${base()}/invoices/${bob.invoice}/void`);
    expect(voided).to.include({ status: 'VOIDED', reason: null });
    await refused('PUT', `${base()}/invoices/${bob.invoice}/paid`, 409, '[INVOICE_NOT_OPEN]', { externalReference: 'late' });
    await refused('PUT', `${base()}/invoices/${bob.invoice}/void`, 409, '[INVOICE_ALREADY_CLOSED]');
    expect(await ok('PUT', `${base()}/customers/${bob.id}/invoices/paid`), 'a voided invoice is not paid in bulk').to.deep.equal([]);
    expect(await invoiceEvents(bob.invoice)).to.deep.equal(['InvoiceIssued', 'InvoiceVoided']);
    const dashboard = await ok('GET', `${base()}/dashboard`);
    expect(dashboard).to.include({ openInvoices: 0, outstandingAmount: 0, paidAmount: 0, refundedAmount: 13.5 });
  });

  it("refuses bad input in the spec's error format, changing nothing", async () => {
    await refused('PUT', `${baseB()}/invoices/${carol.invoice}/paid`, 400, '[VALIDATION_FAILED]', { externalReference: 42 }, OTHER_KEY);
    await refused('PUT', `${baseB()}/invoices/${carol.invoice}/void`, 400, '[VALIDATION_FAILED]', { reason: 'x', amount: 1 }, OTHER_KEY);
    await refused('GET', `${base()}/customers/0/invoices`, 400, '[VALIDATION_FAILED]', undefined);
    await refused('PUT', `${base()}/invoices/INV-209901-00000000/paid`, 404, '[INVOICE_NOT_FOUND]');
    expect(await invoiceEvents(carol.invoice)).to.deep.equal(['InvoiceIssued']);
  });

  it("shows and moves nothing of brand A to brand B's operator; B's own invoice moves by its own operator", async () => {
    const bDashboard = await ok('GET', `${baseB()}/dashboard`, { key: OTHER_KEY });
    expect(bDashboard).to.include({ customerCount: 1, openInvoices: 1, outstandingAmount: 13.5 });
    const text = JSON.stringify(bDashboard) + JSON.stringify(await ok('GET', `${baseB()}/customers`, { key: OTHER_KEY }));
    for (const leak of [jane.invoice, bob.invoice, jane.projectId, bob.projectId, 'jane@acme.test']) expect(text).not.to.include(leak);
    // A's customer and invoices through B's own brand: as if they did not exist
    await refused('GET', `${baseB()}/customers/${jane.id}/invoices`, 404, '[CUSTOMER_NOT_FOUND]', undefined, OTHER_KEY);
    await refused('PUT', `${baseB()}/customers/${bob.id}/invoices/paid`, 404, '[CUSTOMER_NOT_FOUND]', {}, OTHER_KEY);
    await refused('PUT', `${baseB()}/invoices/${bob.invoice}/paid`, 404, '[INVOICE_NOT_FOUND]', {}, OTHER_KEY);
    await refused('PUT', `${baseB()}/invoices/${jane.invoice}/void`, 404, '[INVOICE_NOT_FOUND]', {}, OTHER_KEY);
    // A's brand under B's project, and A's project with B's key
    await refused('GET', `/projects/${OTHER_PROJECT}/features/${brandA}/whitelabel/dashboard`, 404, '[FEATURE_NOT_FOUND]', undefined, OTHER_KEY);
    const foreign = await t.call('GET', `${base()}/dashboard`, { key: OTHER_KEY });
    expect(foreign.status).to.be.oneOf([403, 404]);
    // and A's operator cannot move B's invoice through A's brand
    await refused('PUT', `${base()}/invoices/${carol.invoice}/paid`, 404, '[INVOICE_NOT_FOUND]');
    expect(await invoiceEvents(carol.invoice)).to.deep.equal(['InvoiceIssued']);

    const paid = await ok('PUT', `${baseB()}/invoices/${carol.invoice}/paid`, { key: OTHER_KEY, body: { externalReference: 'CARD-9' } });
    expect(paid).to.include({ status: 'PAID', externalReference: 'CARD-9', note: null });
    expect(await invoiceEvents(carol.invoice)).to.deep.equal(['InvoiceIssued', 'InvoicePaid']);
    expect(await invoiceEvents(bob.invoice)).to.deep.equal(['InvoiceIssued', 'InvoiceVoided']);
  });

  it('answers the same dashboards after a rebuild of the invoices read model', async () => {
    const read = async () => ({
      a: await ok('GET', `${base()}/dashboard`),
      b: await ok('GET', `${baseB()}/dashboard`, { key: OTHER_KEY }),
      jane: await ok('GET', `${base()}/customers/${jane.id}/invoices`),
    });
    const before = await read();
    const { db, store } = t.service.services;
    await rebuildProjection(
      db,
      store,
      allProjections.find((p) => p.name === 'invoices')!,
    );
    const after = await read();
    // the current month so far moves with the clock; everything else is as it was
    const still = (d: typeof before) => JSON.stringify(d).replace(/"currentMonthOutstanding":[\d.]+/g, '');
    expect(still(after)).to.equal(still(before));
  });
});
