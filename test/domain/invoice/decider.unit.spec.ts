import { expect } from 'chai';
import { decide, evolve, initialState, type InvoiceCommand, type InvoiceState } from '../../../domain/invoice/decider.js';
import type { InvoiceEvent, InvoiceIssuedData } from '../../../domain/invoice/events.js';
import { invoiceNumberOf } from '../../../domain/invoice/number.js';
import { DomainError } from '../../../domain/shared/errors.js';
import { systemContext } from '../../../domain/shared/command.js';

const metadata = { now: '2026-02-01T00:05:00.000Z', context: systemContext('spec') };
const number = 'INV-202601-0A1B2C3D';
const issue: Omit<InvoiceIssuedData, 'at'> = {
  invoiceNumber: number,
  party: { kind: 'PROJECT', projectId: '00000000-0000-4000-8000-000000000001' },
  customerEmail: null,
  brandFeatureId: null,
  projectId: '00000000-0000-4000-8000-000000000001',
  projectIds: ['00000000-0000-4000-8000-000000000001'],
  year: 2026,
  month: 1,
  currency: 'USD',
  lines: [],
  amount: '10.00',
  dueDate: '2026-02-15T00:05:00.000Z',
  manualCollection: true,
  paymentInstructions: null,
};
const paid: InvoiceCommand = { type: 'MarkInvoicePaid', data: { invoiceNumber: number, externalReference: 'BANK-1', note: null, bulk: false }, metadata };
const voided: InvoiceCommand = { type: 'VoidInvoice', data: { invoiceNumber: number, reason: 'duplicate' }, metadata };

const stateAfter = (...commands: InvoiceCommand[]): InvoiceState =>
  commands.reduce(
    (state, c) => decide(c, state).reduce(evolve, state),
    decide({ type: 'IssueInvoice', data: issue, metadata }, initialState).reduce(evolve, initialState),
  );

const refused = (command: InvoiceCommand, state: InvoiceState, code: string) => {
  try {
    decide(command, state);
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).code).to.equal(code);
    expect((error as DomainError).kind).to.equal('conflict');
    return;
  }
  expect.fail(`${command.type} was not refused`);
};

describe('invoice: the states of the spec and nothing else', () => {
  it('issues once: a second issue of the same invoice is no event', () => {
    const events: InvoiceEvent[] = decide({ type: 'IssueInvoice', data: issue, metadata }, initialState);
    expect(events.map((e) => e.type)).to.deep.equal(['InvoiceIssued']);
    expect(decide({ type: 'IssueInvoice', data: issue, metadata }, events.reduce(evolve, initialState))).to.deep.equal([]);
  });

  it('moves OPEN to PAID by mark paid, keeping the external reference', () => {
    const events = decide(paid, stateAfter());
    expect(events).to.deep.equal([
      { type: 'InvoicePaid', data: { invoiceNumber: number, externalReference: 'BANK-1', note: null, bulk: false, at: metadata.now } },
    ]);
    expect(stateAfter(paid).status).to.equal('PAID');
  });

  it('moves OPEN to VOIDED and PAID to REFUNDED by void', () => {
    expect(decide(voided, stateAfter()).map((e) => e.type)).to.deep.equal(['InvoiceVoided']);
    expect(stateAfter(voided).status).to.equal('VOIDED');
    expect(decide(voided, stateAfter(paid)).map((e) => e.type)).to.deep.equal(['InvoiceRefunded']);
    expect(stateAfter(paid, voided).status).to.equal('REFUNDED');
  });

  it('refuses every other move with 409 and a code naming it', () => {
    refused(paid, stateAfter(paid), '[INVOICE_NOT_OPEN]');
    refused(paid, stateAfter(voided), '[INVOICE_NOT_OPEN]');
    refused(paid, stateAfter(paid, voided), '[INVOICE_NOT_OPEN]');
    refused(voided, stateAfter(voided), '[INVOICE_ALREADY_CLOSED]');
    refused(voided, stateAfter(paid, voided), '[INVOICE_ALREADY_CLOSED]');
  });

  it('finds no invoice that was never issued', () => {
    expect(() => decide(paid, initialState)).to.throw(DomainError, /not found/);
  });

  it('numbers an invoice by who is billed and the month, the same every time', () => {
    const party = { kind: 'CUSTOMER', customerId: '00000000-0000-4000-8000-00000000000c' } as const;
    expect(invoiceNumberOf(party, { year: 2026, month: 1 })).to.equal(invoiceNumberOf(party, { year: 2026, month: 1 }));
    expect(invoiceNumberOf(party, { year: 2026, month: 1 })).to.match(/^INV-202601-[0-9A-F]{8}$/);
    expect(invoiceNumberOf(party, { year: 2026, month: 2 })).to.not.equal(invoiceNumberOf(party, { year: 2026, month: 1 }));
  });
});
