// Payouts to signal providers, for a white-label brand's operator (issue 23: "payouts to signal providers
// exported (PayoutDTO), never sent from here"), under the brand's feature:
//   PUT .../whitelabel/customers/{customerId}/payoutMethod   the customer's PayoutDTO (Wise addresses)
//   GET .../whitelabel/payouts                               what each provider earned in a month, and where to
//   GET .../whitelabel/payouts/export                        the same as CSV, for the operator's bank or Wise
// All ours (the spec names PayoutDTO and WisePayoutDetailsDTO only, as CustomerDTO.payoutMethod). Use
// cases: app/payouts.ts; rules: domain/billing/payouts.ts and domain/earnings; read models:
// projections/payouts and projections/earnings.
import { type Static, Type } from '@sinclair/typebox';
import { brandPayouts, MAX_WISE_EMAILS, type Payout, setPayoutMethod } from '../../app/payouts.js';
import { currencyTypes } from '../../domain/account/enums.js';
import type { Services } from '../../app/services.js';
import { invalid } from '../../domain/shared/errors.js';
import { toPayoutMethodDTO } from '../customers/dto.js';
import { PayoutDTO } from '../customers/schemas.js';
import { currencyType } from '../invoices/dto.js';
import type { Routes } from '../route.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses, Uuid } from '../shared/schemas.js';
import { CurrencyTypeDTO } from '../types/schemas.js';

const TAG = 'White label';
const BASE = '/projects/{projectId}/features/{featureId}/whitelabel';
const KEY =
  "Needs a project-level key of the brand's project (featureId: its FeatureWhiteLabelDTO); another project's brand answers 404 [FEATURE_NOT_FOUND], a customer of another brand 404 [CUSTOMER_NOT_FOUND].";
const NEVER_SENT =
  "Nothing is sent from this service and no money moves: the brand collects its followers' fees and pays its providers itself; this is what to pay and where.";

const BrandParams = Type.Object({ projectId: Uuid, featureId: Uuid }, { additionalProperties: false });
const CustomerParams = Type.Object(
  { projectId: Uuid, featureId: Uuid, customerId: Type.Integer({ format: 'int32', minimum: 1, description: 'CustomerDTO.id' }) },
  { additionalProperties: false },
);
const MonthQuery = Type.Object(
  {
    year: Type.Optional(Type.Integer({ minimum: 2000, maximum: 2100 })),
    month: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 12, description: '1 = January; with year (both or neither); default: the last month that has ended (TIME_ZONE)' }),
    ),
  },
  { additionalProperties: false },
);

export const SignalProviderPayoutDTO = Type.Object(
  {
    signalProviderId: Uuid,
    accountId: Uuid,
    projectId: Uuid,
    customerId: Type.Integer({ format: 'int32' }),
    customerEmail: Type.String(),
    year: Type.Integer(),
    month: Type.Integer({ minimum: 1, maximum: 12 }),
    subscriptionAmount: Type.Number({ description: "the month's subscription fees of its followers, to the cent" }),
    profitSharingAmount: Type.Number({ description: "the month's profit-sharing fees, to the cent" }),
    total: Type.Number({ description: 'what to pay the provider for the month' }),
    currency: Type.String({
      description:
        "the currency of the amounts (ISO 4217): the provider account's, as its venue reported it on its last connection (USD for an account never connected)",
    }),
    currencyType: Type.Union([CurrencyTypeDTO, Type.Null()], {
      description: "currency as the reference's CurrencyTypeDTO (1 USD, 2 EUR, 3 CHF); null for a currency it has no id for (GBP, JPY): read currency",
    }),
    payoutMethod: PayoutDTO,
    monthEnded: Type.Boolean({ description: 'false: the month is still under way and its amount may grow' }),
    status: Type.Literal('NOT_SENT', { description: 'always NOT_SENT: payouts are exported, never sent from here' }),
  },
  {
    $id: 'SignalProviderPayoutDTO',
    description:
      "Ours: what a signal provider of one of the brand's customers earned in a month (as GET /signals/{signalProviderId}/earnings computes it) and the customer's payout method.",
    additionalProperties: false,
  },
);

const toPayoutDTO = (p: Payout): Static<typeof SignalProviderPayoutDTO> => ({
  signalProviderId: p.signalProviderId,
  accountId: p.accountId,
  projectId: p.projectId,
  customerId: p.customerId,
  customerEmail: p.customerEmail,
  year: p.month.year,
  month: p.month.month,
  subscriptionAmount: Number(p.subscriptionAmount),
  profitSharingAmount: Number(p.profitSharingAmount),
  total: Number(p.total),
  currency: p.currency,
  currencyType: currencyTypes.some((c) => c.name === p.currency) ? currencyType(p.currency) : null,
  payoutMethod: toPayoutMethodDTO(p.wiseEmails),
  monthEnded: p.monthEnded,
  status: 'NOT_SENT',
});

const csvField = (value: string | number | boolean): string => {
  const text = String(value);
  // a leading =, +, - or @ would be a formula in a spreadsheet
  const safe = /^[=+\-@]/.test(text) && typeof value === 'string' ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export const CSV_COLUMNS = [
  'year',
  'month',
  'signalProviderId',
  'accountId',
  'projectId',
  'customerId',
  'customerEmail',
  'wiseEmail',
  'subscriptionAmount',
  'profitSharingAmount',
  'total',
  'currency',
  'monthEnded',
] as const;

export const payoutsCsv = (payouts: readonly Payout[]): string =>
  [
    CSV_COLUMNS.join(','),
    ...payouts.map((p) =>
      [
        p.month.year,
        p.month.month,
        p.signalProviderId,
        p.accountId,
        p.projectId,
        p.customerId,
        p.customerEmail,
        p.wiseEmails[0] ?? '',
        p.subscriptionAmount,
        p.profitSharingAmount,
        p.total,
        p.currency,
        p.monthEnded,
      ]
        .map(csvField)
        .join(','),
    ),
  ].join('\r\n') + '\r\n';

const monthOf = (query: Static<typeof MonthQuery>) => {
  if ((query.year === undefined) !== (query.month === undefined)) throw invalid('[VALIDATION_FAILED]', 'month and year go together: give both or neither');
  return query.year !== undefined && query.month !== undefined ? { year: query.year, month: query.month } : undefined;
};

const EXPLAINED = `For a month (year and month, both or neither; default the last month that has ended; months of the service's TIME_ZONE): every signal provider whose project belongs to one of the brand's customers and that earned more than 0 in it, with its subscription and profit-sharing fees as GET /signals/{signalProviderId}/earnings computes them (in the provider account's currency, as its earnings are: currency), and its customer's payout method (empty wiseDetails: none recorded yet). ${NEVER_SENT} Changes nothing.`;

export const payoutRoutes = (routes: Routes, services: Services): void => {
  routes.add<Static<typeof CustomerParams>, unknown, Static<typeof PayoutDTO>>({
    method: 'put',
    path: `${BASE}/customers/{customerId}/payoutMethod`,
    tag: TAG,
    operationId: 'setWhiteLabelCustomerPayoutMethod',
    summary: "Record a customer's payout method",
    description: `Ours: the brand's operator records where the customer's signal-provider earnings are to be paid (PayoutDTO: wiseDetails, the e-mail addresses of its Wise account, at most ${MAX_WISE_EMAILS}; the first is the one exported; empty or absent: none). Replaces the earlier one; an event of the customer's payout stream (PayoutMethodSet; the same method again records nothing; the customer may record its own with PUT /customer/payoutMethod, the latest wins). A malformed address gives 400 [VALIDATION_FAILED]. ${NEVER_SENT} ${KEY}`,
    params: CustomerParams,
    body: PayoutDTO,
    bodyRequired: true,
    responses: {
      200: { description: 'the payout method as kept (addresses in lower case, repeats removed)', schema: PayoutDTO },
      ...errorResponses(400, 401, 403, 404),
    },
    async handler({ params, body, caller, context }) {
      checkProjectScope(caller, params.projectId, "a customer's payout method");
      const emails = (body.wiseDetails ?? []).map((w) => w.email);
      return { body: toPayoutMethodDTO(await setPayoutMethod(services, params.projectId, params.featureId, params.customerId, emails, context)) };
    },
  });

  routes.add<Static<typeof BrandParams>, Static<typeof MonthQuery>, unknown>({
    method: 'get',
    path: `${BASE}/payouts`,
    tag: TAG,
    operationId: 'getWhiteLabelPayouts',
    summary: 'Payouts to signal providers',
    description: `Ours. ${EXPLAINED} ${KEY}`,
    params: BrandParams,
    query: MonthQuery,
    responses: { 200: { description: 'the payouts of the month', schema: Type.Array(SignalProviderPayoutDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, query, caller }) {
      checkProjectScope(caller, params.projectId, 'payouts');
      return { body: (await brandPayouts(services, params.projectId, params.featureId, monthOf(query))).map(toPayoutDTO) };
    },
  });

  routes.add<Static<typeof BrandParams>, Static<typeof MonthQuery>, unknown>({
    method: 'get',
    path: `${BASE}/payouts/export`,
    tag: TAG,
    operationId: 'exportWhiteLabelPayouts',
    summary: 'Payouts to signal providers, as CSV',
    description: `Ours: GET .../whitelabel/payouts as CSV (RFC 4180, a header line: ${CSV_COLUMNS.join(', ')}; wiseEmail is the first address of the payout method, empty when none; amounts as decimal text to the cent; a text field starting with =, +, - or @ is prefixed with ' so no spreadsheet takes it for a formula). ${EXPLAINED} ${KEY}`,
    params: BrandParams,
    query: MonthQuery,
    responses: {
      200: { description: 'the payouts of the month (text/csv)', contentType: 'text/csv', schema: Type.String() },
      ...errorResponses(400, 401, 403, 404),
    },
    async handler({ params, query, caller }) {
      checkProjectScope(caller, params.projectId, 'payouts');
      const payouts = await brandPayouts(services, params.projectId, params.featureId, monthOf(query));
      return { raw: { contentType: 'text/csv; charset=utf-8', body: payoutsCsv(payouts) } };
    },
  });
};
