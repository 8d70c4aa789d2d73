// Customers to their DTOs (schemas.ts).
import type { Static } from '@sinclair/typebox';
import type { CustomerMoney } from '../../app/invoicesWhiteLabel.js';
import type { CustomerRow } from '../../projections/customers/queries.js';
import type { CustomerDTO, CustomerSummaryDTO, PayoutDTO } from './schemas.js';

/** A payout method (PayoutDTO) from its Wise addresses; none recorded: an empty wiseDetails. */
export const toPayoutMethodDTO = (emails: readonly string[]): Static<typeof PayoutDTO> => ({ wiseDetails: emails.map((email) => ({ email })) });

export const toCustomerDTO = (row: CustomerRow, payoutEmails: readonly string[]): Static<typeof CustomerDTO> => ({
  id: row.customerId,
  email: row.email,
  created: row.created.toISOString(),
  blocked: row.status === 'BLOCKED',
  kyc: false,
  permissionType: 'READ_WRITE',
  payoutMethod: toPayoutMethodDTO(payoutEmails),
});

export const toCustomerSummaryDTO = (row: CustomerRow, money: CustomerMoney, payoutEmails: readonly string[]): Static<typeof CustomerSummaryDTO> => ({
  customer: toCustomerDTO(row, payoutEmails),
  projectIds: [...row.liveProjectIds],
  activeProjectCount: row.status === 'BLOCKED' ? 0 : row.liveProjectIds.length,
  openInvoices: money.openInvoices,
  outstandingAmount: Number(money.outstandingAmount),
  paidAmount: Number(money.paidAmount),
  currentMonthOutstanding: Number(money.currentMonthOutstanding),
  lastSignIn: row.lastSignIn?.toISOString() ?? null,
  blockedAt: row.blockedAt?.toISOString() ?? null,
  blockedReason: row.blockedReason,
  blockCompleted: row.status !== 'BLOCKED' || row.blockCompletedAt !== null,
  unblockedAt: row.unblockedAt?.toISOString() ?? null,
  unblockCompleted: row.unblockCompleted,
});
