// The white-label operator's customer operations (spec "Operations known by path and purpose"), under the
// brand's feature of the operator's project:
//   GET /projects/{projectId}/features/{featureId}/whitelabel/customers        the brand's customers (ours)
//   PUT /projects/{projectId}/features/{featureId}/whitelabel/customers/block  blocks one, asynchronously (spec)
//   PUT .../whitelabel/customers/unblock                                        lifts the block, asynchronously (ours)
// Use cases: app/customers.ts; read model: projections/customers/.
import { type Static, Type } from '@sinclair/typebox';
import { listCustomers } from '../../app/customers.js';
import { blockCustomer } from '../../app/customersBlock.js';
import { unblockCustomer } from '../../app/customersUnblock.js';
import { customersMoney } from '../../app/invoicesWhiteLabel.js';
import type { Services } from '../../app/services.js';
import { payoutMethodsOfBrand } from '../../projections/payouts/queries.js';
import type { Routes } from '../route.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses, Uuid } from '../shared/schemas.js';
import { toCustomerSummaryDTO } from './dto.js';
import { BlockCustomerRequestDTO, BlockCustomerResponseDTO, CustomerSummaryDTO, UnblockCustomerRequestDTO, UnblockCustomerResponseDTO } from './schemas.js';

const TAG = 'White label';

export const BrandParams = Type.Object({ projectId: Uuid, featureId: Uuid }, { additionalProperties: false });
type BrandParams = Static<typeof BrandParams>;

export const customerRoutes = (routes: Routes, services: Services): void => {
  routes.add<BrandParams, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/features/{featureId}/whitelabel/customers',
    tag: TAG,
    operationId: 'listWhiteLabelCustomers',
    summary: "The brand's customers",
    description:
      "Ours (the spec gives the operator's customer view, CustomerSummaryDTO, without a path of its own): every customer who registered under this brand (featureId: the project's FeatureWhiteLabelDTO), blocked ones included, in order of registration. Customers of another brand are never listed, whatever their e-mail address: the same address under two brands is two customers. The money members: openInvoices (OPEN invoices), outstandingAmount (their sum), paidAmount (the PAID ones' sum; refunded ones not counted) over the customer's invoices of this brand, and currentMonthOutstanding (its projects' usage this month up to the end of today, priced now: invoiced at the month's close), in the price list's currency. customer.payoutMethod: the Wise addresses recorded by the operator (PUT .../whitelabel/customers/{customerId}/payoutMethod) or by the customer itself (PUT /customer/payoutMethod); empty wiseDetails: none yet. Needs a project-level key of the brand's project; another project's feature answers 404 [FEATURE_NOT_FOUND].",
    params: BrandParams,
    responses: { 200: { description: 'the customers', schema: Type.Array(CustomerSummaryDTO) }, ...errorResponses(401, 403, 404) },
    async handler({ params, caller }) {
      checkProjectScope(caller, params.projectId, "the brand's customers");
      const customers = await listCustomers(services, params.projectId, params.featureId);
      const money = await customersMoney(services, customers);
      const payouts = await payoutMethodsOfBrand(services.db, params.featureId);
      return { body: customers.map((c) => toCustomerSummaryDTO(c, money.get(c.customerId)!, payouts.get(c.customerId) ?? [])) };
    },
  });

  routes.add<BrandParams, unknown, Static<typeof BlockCustomerRequestDTO>>({
    method: 'put',
    path: '/projects/{projectId}/features/{featureId}/whitelabel/customers/block',
    tag: TAG,
    operationId: 'blockWhiteLabelCustomer',
    summary: 'Block a customer across every project of the brand',
    description:
      "Asynchronous (spec). At once: the customer (by e-mail, case-insensitive, under this brand only; 404 [CUSTOMER_NOT_FOUND] otherwise) is blocked: from the next request on, its session tokens and every API key of its projects are refused with 403 [CUSTOMER_BLOCKED], it cannot sign in, register again or get a project, key or account. The keys of its projects are suspended, not revoked: refused while the block lasts, they work again once it is lifted. Then a background job (one instance at a time) stops every started account (its broker session closed; the account's log says why, code [CUSTOMER_BLOCKED]), so nothing is traded or copied on them; when it is done, a summary e-mail (projects, keys suspended, accounts stopped, copiers affected) goes through SMTP_URL to the brand project's owner address (else to SMTP_FROM's), and the customer's entry in GET .../whitelabel/customers shows blockCompleted true (also true once the block is lifted, finished or not; a job stopped part-way by an unblock sends no block summary). PUT .../whitelabel/customers/unblock lifts the block (ours). Blocking again while the job runs answers its job (status RUNNING), afterwards it starts a new sweep. `reason` is kept with the block, in the account logs and in the e-mail. Needs a project-level key of the brand's project.",
    params: BrandParams,
    body: BlockCustomerRequestDTO,
    bodyRequired: true,
    responses: { 202: { description: 'blocked; the job runs', schema: BlockCustomerResponseDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, body, caller, context }) {
      checkProjectScope(caller, params.projectId, 'blocking a customer');
      const { customer, jobId, started } = await blockCustomer(
        services,
        params.projectId,
        params.featureId,
        { email: body.email, reason: body.reason ?? null },
        context,
      );
      return {
        status: 202,
        body: {
          customerId: customer.customerId,
          email: customer.email,
          jobId,
          status: started ? 'QUEUED' : 'RUNNING',
          projectIds: [...customer.projectIds],
          blockedAt: (customer.blockedAt ?? new Date()).toISOString(),
        },
      };
    },
  });

  routes.add<BrandParams, unknown, Static<typeof UnblockCustomerRequestDTO>>({
    method: 'put',
    path: '/projects/{projectId}/features/{featureId}/whitelabel/customers/unblock',
    tag: TAG,
    operationId: 'unblockWhiteLabelCustomer',
    summary: "Lift a customer's block",
    description:
      "Ours (the spec gives blocking only); asynchronous like the block. At once: the customer (by e-mail, case-insensitive, under this brand only; 404 [CUSTOMER_NOT_FOUND] otherwise; 409 [CUSTOMER_NOT_BLOCKED] when it is not blocked) is no longer blocked: from the next request on, the API keys of its projects work again (blocking suspended them, it did not revoke them), it may ask for a code and sign in (its former sessions stay ended: it signs in anew), and get projects, keys and accounts within the brand's limits; its projects answer ProjectDTO.blocked false again. Then the block job's loop (one instance at a time) starts again every account the block stopped that is still stopped and not deleted, opening its venue session first as POST /accounts/{accountId}/actions/start does (one the venue refuses stays stopped, its log says why), so it trades and copies again; a block job still running when the block is lifted stops at its next account. When done, a summary e-mail (accounts started, accounts left stopped) goes to the same address as the block's, and the customer's entry in GET .../whitelabel/customers shows unblockCompleted true. Needs a project-level key of the brand's project.",
    params: BrandParams,
    body: UnblockCustomerRequestDTO,
    bodyRequired: true,
    responses: {
      202: { description: 'unblocked; the job restarts the accounts', schema: UnblockCustomerResponseDTO },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    async handler({ params, body, caller, context }) {
      checkProjectScope(caller, params.projectId, 'unblocking a customer');
      const { customer, jobId, accountIds } = await unblockCustomer(services, params.projectId, params.featureId, body.email, context);
      return {
        status: 202,
        body: { customerId: customer.customerId, email: customer.email, jobId, projectIds: [...customer.projectIds], accountIds: [...accountIds] },
      };
    },
  });
};
