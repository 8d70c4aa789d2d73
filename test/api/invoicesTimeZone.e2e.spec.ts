// Billing months are the calendar months of the service's TIME_ZONE, not UTC's (issue 23, the
// closing note's "billing months are UTC"). TIME_ZONE Pacific/Auckland (UTC+13 in summer); the price
// list's account-day 0.50. One account is created on 31 January 12:00 UTC, which is 1 February 01:00
// in Auckland: January has no usage there (UTC would bill 31 January), February's 28 local days cost
// 28 x 0.50 = 14.00, and February is closed when it ends in Auckland (28 February 11:00 UTC), not at
// midnight UTC.
import { expect } from 'chai';
import { closeDueMonths } from '../../app/invoices.js';
import { settle } from '../../app/services.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { startTestService, type TestService, validAccount } from '../support/service.js';
import { movableClock } from '../support/trading.js';

describe('invoices: billing months in TIME_ZONE', function () {
  this.timeout(90_000);
  const clock = movableClock(Date.parse('2026-01-31T12:00:00.000Z'));
  const advanceTo = (iso: string) => clock.advance(Date.parse(iso) - clock().getTime());
  let t: TestService;

  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await t.call(method, path, body === undefined ? {} : { body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 201]);
    return res.body;
  };
  const close = async () => {
    const issued = await closeDueMonths(t.service.services);
    await settle(t.service.services);
    return issued;
  };
  const forecast = async () => {
    const f = await ok('GET', `/projects/${DEFAULT_PROJECT_ID}/costs/forecast`);
    return { year: f.year, month: f.month, soFar: f.soFar, total: f.total };
  };

  before(async () => {
    t = await startTestService({ clock, env: { TIME_ZONE: 'Pacific/Auckland', PRICE_LIST: JSON.stringify({ currency: 'USD', accountDaily: '0.50' }) } });
    await ok('POST', '/accounts', validAccount({ alias: 'NZ', loginAccountNumber: '7101' }));
  });
  after(() => t?.stop());

  it("counts 31 January 12:00 UTC as Auckland's 1 February: no January invoice, February forecast from its first day", async () => {
    expect(await close()).to.deep.equal([]);
    expect(await ok('GET', `/projects/${DEFAULT_PROJECT_ID}/invoices`)).to.deep.equal([]);
    expect(await forecast()).to.deep.equal({ year: 2026, month: 2, soFar: 0.5, total: 14 });
  });

  it("does not close February at 23:30 on the 28th in Auckland (10:30 UTC), though the day's end is near", async () => {
    advanceTo('2026-02-28T10:30:00.000Z');
    expect(await close()).to.deep.equal([]);
    expect(await forecast()).to.deep.equal({ year: 2026, month: 2, soFar: 14, total: 14 });
  });

  it('closes February half an hour after it ends in Auckland (11:30 UTC on the 28th): 28 local days', async () => {
    advanceTo('2026-02-28T11:30:00.000Z');
    const issued = await close();
    expect(issued).to.have.length(1);
    expect(issued[0]).to.match(/^INV-202602-/);
    const [invoice] = await ok('GET', `/projects/${DEFAULT_PROJECT_ID}/invoices`);
    expect(invoice).to.include({ invoiceNumber: issued[0], year: 2026, month: 2, amount: 14, status: 'OPEN' });
    const details = await ok('GET', `/projects/${DEFAULT_PROJECT_ID}/invoices/${issued[0]}/details`);
    expect(details.lines.map((l: { kind: string; quantity: number; amount: number }) => [l.kind, l.quantity, l.amount])).to.deep.equal([['ACCOUNT', 28, 14]]);
    expect(await forecast(), 'March (31 days) has begun in Auckland').to.deep.equal({ year: 2026, month: 3, soFar: 0.5, total: 15.5 });
    expect(await close(), 'closed once').to.deep.equal([]);
  });
});
