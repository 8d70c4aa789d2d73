// Invoice numbers (spec: `invoiceNumber` is a string): `INV-<YYYYMM>-<8 hex>`, fixed by who is billed
// and the month, so the monthly close issues the same invoice whichever instance runs it and however
// often, and a rebuild finds the same numbers.
import { v5 as uuidv5 } from 'uuid';
import type { Month } from '../billing/usage.js';
import type { InvoiceParty } from './events.js';

const INVOICE_NAMESPACE = '0f6f3a52-9a0b-4d3e-8a7c-5b1e2d4c6f80';

const partyKey = (party: InvoiceParty): string => (party.kind === 'CUSTOMER' ? `customer:${party.customerId}` : `project:${party.projectId}`);

export const invoiceNumberOf = (party: InvoiceParty, month: Month): string => {
  const period = `${month.year}${String(month.month).padStart(2, '0')}`;
  return `INV-${period}-${uuidv5(`${partyKey(party)}/${period}`, INVOICE_NAMESPACE)
    .replace(/-/g, '')
    .slice(0, 8)
    .toUpperCase()}`;
};

export const INVOICE_NUMBER = /^INV-\d{6}-[0-9A-F]{8}$/;
