// The customers' wire shapes: the reference's CustomerDTO (with PayoutDTO), the spec's CustomerSummaryDTO
// (members named only: their types are ours), BlockCustomerRequestDTO / BlockCustomerResponseDTO (named only,
// "email plus optional reason"), and ours for registration and sign-in under a brand.
import { Type } from '@sinclair/typebox';
import { IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

const WisePayoutDetailsDTO = Type.Object(
  { email: Type.String({ description: 'Wise email address' }) },
  { $id: 'WisePayoutDetailsDTO', description: 'Wise payout details', additionalProperties: false },
);
export const PayoutDTO = Type.Object({ wiseDetails: Type.Optional(Type.Array(WisePayoutDetailsDTO)) }, { $id: 'PayoutDTO', additionalProperties: false });

export const CustomerDTO = Type.Object(
  {
    id: Type.Optional(Type.Integer({ format: 'int32', readOnly: true, description: 'unique across the service (ours: drawn at registration, never reused)' })),
    email: Type.Optional(Type.String({ readOnly: true, description: 'in lower case' })),
    created: Type.Optional(Type.String({ format: 'date-time', readOnly: true, description: 'when the customer registered' })),
    blocked: Type.Optional(
      Type.Boolean({
        readOnly: true,
        description: "true while the brand's operator blocks the customer (PUT .../whitelabel/customers/block, lifted by .../unblock)",
      }),
    ),
    kyc: Type.Optional(Type.Boolean({ readOnly: true, description: 'always false: no identity check runs on this service' })),
    tos: Type.Optional(
      Type.String({ format: 'date-time', readOnly: true, description: 'not answered: this service records no acceptance of terms of service' }),
    ),
    permissionType: Type.Optional(
      Type.Union([Type.Literal('READ_WRITE'), Type.Literal('READ_ONLY')], {
        readOnly: true,
        description: 'Permission level for this customer in the project: READ_WRITE (a customer owns its projects; no shared projects here)',
      }),
    ),
    payoutMethod: Type.Optional(PayoutDTO),
  },
  {
    $id: 'CustomerDTO',
    readOnly: true,
    description:
      "A customer of a white-label brand (issue 23): registered by e-mail under the brand, owner of its projects. Answered: id, email, created, blocked, kyc (false), permissionType (READ_WRITE), payoutMethod (where its signal-provider earnings are paid: the Wise addresses recorded by the brand's operator or by the customer itself, the latest wins; empty wiseDetails: none recorded); tos is not (nothing records it here). A project that no customer owns answers its owner as an e-mail only (the operator's CLI), permissionType READ_WRITE.",
    additionalProperties: false,
  },
);

const money = (what: string) => Type.Number({ description: `${what}; to the cent, in the price list's currency` });

export const CustomerSummaryDTO = Type.Object(
  {
    customer: CustomerDTO,
    projectIds: Type.Array(Uuid, { description: 'the projects the customer owns and has not deleted, oldest first' }),
    activeProjectCount: Type.Integer({ minimum: 0, description: 'how many of projectIds are not blocked (0 for a blocked customer)' }),
    openInvoices: Type.Integer({ minimum: 0, description: 'OPEN invoices of the customer' }),
    outstandingAmount: money('the sum of the OPEN invoices'),
    paidAmount: money('the sum of the PAID invoices (refunded ones not counted)'),
    currentMonthOutstanding: money(
      "the current month's usage (TIME_ZONE) of its projects so far (up to the end of today there), priced now: not invoiced until the month's close",
    ),
    // Ours.
    lastSignIn: Nullable(IsoDateTime),
    blockedAt: Nullable(IsoDateTime),
    blockedReason: Nullable(Type.String({ description: "the operator's reason given with the block" })),
    blockCompleted: Type.Boolean({
      description: 'false while the block job of a blocked customer still runs; true once it finished (and for a customer never blocked)',
    }),
    unblockedAt: Type.Optional(Nullable(Type.String({ format: 'date-time', description: 'when the last block was lifted; null if never (ours)' }))),
    unblockCompleted: Type.Optional(
      Type.Boolean({ description: 'false while the unblock job still starts the accounts the block stopped; true otherwise (ours)' }),
    ),
  },
  {
    $id: 'CustomerSummaryDTO',
    description:
      "A customer in the operator's list (the spec names projectIds, activeProjectCount, openInvoices, outstandingAmount, paidAmount and currentMonthOutstanding; their types, `customer` and the rest are ours).",
    additionalProperties: false,
  },
);

export const BlockCustomerRequestDTO = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254, description: "the customer's e-mail address (case-insensitive)" }),
    reason: Type.Optional(
      Nullable(Type.String({ maxLength: 1000, description: "why: kept with the block, in the customer's accounts' logs and the summary e-mail" })),
    ),
  },
  { $id: 'BlockCustomerRequestDTO', additionalProperties: false },
);

export const BlockCustomerResponseDTO = Type.Object(
  {
    customerId: Type.Integer({ format: 'int32' }),
    email: Type.String(),
    jobId: Uuid,
    status: Type.Union([Type.Literal('QUEUED'), Type.Literal('RUNNING'), Type.Literal('COMPLETED')], {
      description:
        'QUEUED: the block job was started by this request; RUNNING: a job of an earlier request still runs; COMPLETED: never answered by the PUT itself, only in the list (blockCompleted)',
    }),
    projectIds: Type.Array(Uuid, { description: 'the projects the job blocks (every project of the customer under this brand)' }),
    blockedAt: IsoDateTime,
  },
  { $id: 'BlockCustomerResponseDTO', description: 'Ours: the spec names the DTO only.', additionalProperties: false },
);

export const UnblockCustomerRequestDTO = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 254, description: "the customer's e-mail address (case-insensitive)" }) },
  { $id: 'UnblockCustomerRequestDTO', description: 'Ours: lifts the block of this customer of the brand.', additionalProperties: false },
);

export const UnblockCustomerResponseDTO = Type.Object(
  {
    customerId: Type.Integer({ format: 'int32' }),
    email: Type.String(),
    jobId: Uuid,
    projectIds: Type.Array(Uuid, { description: 'the projects of the customer, whose keys work again' }),
    accountIds: Type.Array(Uuid, { description: 'the accounts the block stopped, which the job starts again' }),
  },
  { $id: 'UnblockCustomerResponseDTO', description: 'Ours: the block is lifted; the job restarts the accounts.', additionalProperties: false },
);
