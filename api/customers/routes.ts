// The white-label operator's customer operations (spec "Operations known by path and purpose"), under the
// brand's feature of the operator's project:
//   GET /projects/{projectId}/features/{featureId}/whitelabel/customers        the brand's customers (ours)
// Use cases: app/customers.ts; read model: projections/customers/.
import { type Static, Type } from '@sinclair/typebox';
import { listCustomers } from '../../app/customers.js';
import type { Services } from '../../app/services.js';
import type { Routes } from '../route.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses, Uuid } from '../shared/schemas.js';
import { toCustomerSummaryDTO } from './dto.js';
import { CustomerSummaryDTO } from './schemas.js';

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
      "Ours (the spec gives the operator's customer view, CustomerSummaryDTO, without a path of its own): every customer who registered under this brand (featureId: the project's FeatureWhiteLabelDTO), blocked ones included, in order of registration. Customers of another brand are never listed, whatever their e-mail address: the same address under two brands is two customers. The money members (openInvoices, outstandingAmount, paidAmount, currentMonthOutstanding) are not answered until invoices exist. Needs a project-level key of the brand's project; another project's feature answers 404 [FEATURE_NOT_FOUND].",
    params: BrandParams,
    responses: { 200: { description: 'the customers', schema: Type.Array(CustomerSummaryDTO) }, ...errorResponses(401, 403, 404) },
    async handler({ params, caller }) {
      checkProjectScope(caller, params.projectId, "the brand's customers");
      return { body: (await listCustomers(services, params.projectId, params.featureId)).map(toCustomerSummaryDTO) };
    },
  });
};
