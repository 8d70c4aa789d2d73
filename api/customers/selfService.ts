// The customers' own operations (ours: the spec gives registration and sign-in "by e-mail" and customers
// owning projects, without paths). None takes an API key, so they are served before authentication:
//   GET    /whitelabel/{subdomain}/brand                 the brand's public look, for its sign-in page
//   POST   /whitelabel/{subdomain}/customers/code        mails a one-time code (registers on first use)
//   POST   /whitelabel/{subdomain}/customers/session     the code opens a session: a bearer token
// and, with `Authorization: Bearer <token>` (the session's token):
//   GET    /customer                                     the customer, its brand's limits and its projects
//   POST   /customer/projects                            a new project of its own, with a project-level key
//   POST   /customer/projects/{projectId}/apiKeys        another project-level key of one of its projects
//   PUT    /customer/payoutMethod                        its own payout method (PayoutDTO)
//   DELETE /customer/session                             signs out
// Use cases: app/customersSignIn.ts, app/customersProjects.ts, app/payouts.ts. Declared with the other routes (OpenAPI,
// contract checks) and mounted here, before api/auth.ts.
import { type TSchema, Type } from '@sinclair/typebox';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createCustomerProject, customerOverview, issueCustomerProjectKey } from '../../app/customersProjects.js';
import { customerOfToken, loadBrandAt, requestCustomerCode, signInCustomer, signOutCustomer, type SignedInCustomer } from '../../app/customersSignIn.js';
import { MAX_WISE_EMAILS, setOwnPayoutMethod } from '../../app/payouts.js';
import type { Services } from '../../app/services.js';
import { payoutMethodOf } from '../../projections/payouts/queries.js';
import { requestContext } from '../context.js';
import { ApiError } from '../errors.js';
import type { FirstSegmentDispatch } from '../dispatch.js';
import type { Routes, RouteSpec } from '../route.js';
import { errorResponses, IsoDateTime, Uuid } from '../shared/schemas.js';
import { validate } from '../validation.js';
import { toCustomerDTO, toPayoutMethodDTO } from './dto.js';
import { CustomerDTO, PayoutDTO } from './schemas.js';

const TAG = 'White-label customers';

const SubdomainParams = Type.Object(
  {
    subdomain: Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: '^[A-Za-z0-9.-]+$',
      description: "the brand's subdomain (FeatureWhiteLabelDTO.subdomain), such as trade.brand.com",
    }),
  },
  { additionalProperties: false },
);

const CustomerCodeRequestDTO = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 254, description: 'the address to send the code to (case-insensitive)' }) },
  { $id: 'CustomerCodeRequestDTO', additionalProperties: false },
);
const CustomerCodeDTO = Type.Object(
  {
    codeId: Uuid,
    purpose: Type.Union([Type.Literal('REGISTRATION'), Type.Literal('SIGN_IN')], {
      description: 'REGISTRATION: the address is not registered under the brand yet',
    }),
    expiresAt: IsoDateTime,
  },
  { $id: 'CustomerCodeDTO', description: 'Ours: the code was mailed; send it back with codeId to POST .../customers/session', additionalProperties: false },
);
const CustomerSignInRequestDTO = Type.Object(
  { codeId: Uuid, code: Type.String({ minLength: 1, maxLength: 32, description: 'the code from the e-mail' }) },
  { $id: 'CustomerSignInRequestDTO', additionalProperties: false },
);
const CustomerSessionDTO = Type.Object(
  {
    token: Type.String({ description: 'the bearer token of the session, shown only here: send it as Authorization: Bearer <token>' }),
    expiresAt: IsoDateTime,
    registered: Type.Boolean({ description: 'true: this sign-in registered the address' }),
    customer: CustomerDTO,
  },
  { $id: 'CustomerSessionDTO', additionalProperties: false },
);
const BrandLookDTO = Type.Object(
  {
    name: Type.String(),
    logo: Type.String(),
    subdomain: Type.String(),
    layout: Type.String(),
    theme: Type.String(),
    authPageBackground: Type.String(),
    registrationLink: Type.String(),
    homeLink: Type.String(),
    supportLink: Type.String(),
    restrictRegistration: Type.Boolean({ description: 'only listed domains and addresses may register' }),
  },
  {
    $id: 'WhiteLabelBrandLookDTO',
    description: "Ours: the brand's public members, for its sign-in page (no secret, no price, no control list)",
    additionalProperties: false,
  },
);
const CustomerProjectDTO = Type.Object({ id: Uuid, name: Type.String(), created: IsoDateTime }, { $id: 'CustomerProjectDTO', additionalProperties: false });
const CustomerAccountDTO = Type.Object(
  {
    customer: CustomerDTO,
    brand: Type.Object({ featureId: Uuid, name: Type.String(), subdomain: Type.String() }, { additionalProperties: false }),
    projects: Type.Array(CustomerProjectDTO, { description: 'its live projects, oldest first' }),
    maxProjects: Type.Integer({ description: "the projects it may own (the brand's maxProjectsPerUser, or the platform's 10 when that is 0)" }),
    maxAccountsPerProject: Type.Integer({ description: "the accounts each of its projects may hold (maxAccountsPerProject, or the platform's 100 when 0)" }),
    allowedAccountTypeIds: Type.Array(Type.Integer(), { description: 'the platform types its accounts may have' }),
    allowedRegionIds: Type.Array(Type.Integer(), { description: 'the regions its accounts may use; empty: all' }),
  },
  { $id: 'CustomerAccountDTO', description: 'Ours: the signed-in customer and what its brand allows it', additionalProperties: false },
);
const CustomerProjectRequestDTO = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 255 }) },
  { $id: 'CustomerProjectRequestDTO', additionalProperties: false },
);
const IssuedProjectKeyDTO = Type.Object(
  {
    projectId: Uuid,
    apiKeyId: Uuid,
    key: Type.String({ description: 'a project-level API key of the project (X-API-KEY), shown only here' }),
  },
  { $id: 'CustomerProjectKeyDTO', additionalProperties: false },
);
const CreatedCustomerProjectDTO = Type.Object(
  { project: CustomerProjectDTO, apiKeyId: Uuid, key: Type.String({ description: "the project's first project-level API key (X-API-KEY), shown only here" }) },
  { $id: 'CreatedCustomerProjectDTO', additionalProperties: false },
);

const BEARER =
  "Authorization: Bearer <token> of POST /whitelabel/{subdomain}/customers/session; 401 [CUSTOMER_TOKEN_INVALID] when it is missing, unknown, expired (12 hours) or signed out; 403 [CUSTOMER_BLOCKED] once the brand's operator blocked the customer; an X-API-KEY instead of the token: 403 [CUSTOMER_SESSION_REQUIRED].";

interface SelfServiceInput {
  readonly params: Record<string, string>;
  readonly body: Record<string, unknown>;
  readonly customer: SignedInCustomer | null;
  readonly req: Request;
}

interface SelfServiceRoute {
  readonly spec: Omit<RouteSpec, 'handler'>;
  readonly signedIn: boolean;
  readonly run: (input: SelfServiceInput) => Promise<{ status: number; body?: unknown }>;
}

const bearerOf = (req: Request): string | null => {
  const header = req.header('authorization') ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match ? match[1]! : null;
};

const contextOf = (req: Request, res: Response) => requestContext(req, res.locals.correlationId as string, null);

const selfServiceRoutes = (services: Services): SelfServiceRoute[] => [
  {
    signedIn: false,
    spec: {
      method: 'get',
      path: '/whitelabel/{subdomain}/brand',
      tag: TAG,
      operationId: 'getWhiteLabelBrandLook',
      summary: "The brand's public look",
      description: 'No key: the members a sign-in page shows (name, logo, links, colours). 404 [WHITE_LABEL_NOT_FOUND] when no brand has this subdomain.',
      params: SubdomainParams,
      authenticated: false,
      responses: { 200: { description: 'the brand', schema: BrandLookDTO }, ...errorResponses(404) },
    },
    async run({ params }) {
      const { settings: s } = await loadBrandAt(services, params.subdomain!);
      return {
        status: 200,
        body: {
          name: s.name,
          logo: s.logo,
          subdomain: s.subdomain,
          layout: s.layout,
          theme: s.theme,
          authPageBackground: s.authPageBackground,
          registrationLink: s.registrationLink,
          homeLink: s.homeLink,
          supportLink: s.supportLink,
          restrictRegistration: s.restrictRegistration,
        },
      };
    },
  },
  {
    signedIn: false,
    spec: {
      method: 'post',
      path: '/whitelabel/{subdomain}/customers/code',
      tag: TAG,
      operationId: 'requestWhiteLabelCustomerCode',
      summary: 'Mail a one-time sign-in code',
      description:
        "No key. Sends an 8-digit code to `email` through the service's SMTP server (SMTP_URL, From SMTP_FROM; SMTP_ALLOWED_RECIPIENTS does not apply: the brand's controls do), good for 10 minutes, one use and 5 wrong guesses; only its hash is stored. An address not registered under the brand yet (purpose REGISTRATION) must pass the brand's controls: with restrictRegistration, its domain must be in allowedEmailDomains or the address in allowedRegistrationEmails (exact, case-insensitive), else 403 [CUSTOMER_REGISTRATION_NOT_ALLOWED] and nothing is sent. A blocked customer gets 403 [CUSTOMER_BLOCKED]. At most 5 codes an hour go to one address per brand (429 [RATE_LIMITED]). No SMTP server, or one that refuses: 503 [EMAIL_UNAVAILABLE]. 404 [WHITE_LABEL_NOT_FOUND] for an unknown subdomain.",
      params: SubdomainParams,
      body: CustomerCodeRequestDTO,
      bodyRequired: true,
      authenticated: false,
      responses: { 202: { description: 'the code was mailed', schema: CustomerCodeDTO }, ...errorResponses(400, 403, 404, 429, 503) },
    },
    async run({ params, body, req }) {
      const sent = await requestCustomerCode(services, params.subdomain!, String(body.email), contextOf(req, req.res!));
      return { status: 202, body: sent };
    },
  },
  {
    signedIn: false,
    spec: {
      method: 'post',
      path: '/whitelabel/{subdomain}/customers/session',
      tag: TAG,
      operationId: 'signInWhiteLabelCustomer',
      summary: 'Sign in with the mailed code',
      description:
        "No key. The code opens a session of 12 hours: its bearer token is answered once (only its SHA-256 is stored). The first sign-in of an address registers it under the brand (the brand's controls are checked again: 403 [CUSTOMER_REGISTRATION_NOT_ALLOWED]). A wrong, used or unknown code: 400 [CUSTOMER_CODE_INVALID] (each wrong guess counts); an expired one: 400 [CUSTOMER_CODE_EXPIRED]; after 5 wrong guesses: 429 [CUSTOMER_CODE_ATTEMPTS_EXCEEDED] (ask for a new code). A blocked customer: 403 [CUSTOMER_BLOCKED].",
      params: SubdomainParams,
      body: CustomerSignInRequestDTO,
      bodyRequired: true,
      authenticated: false,
      responses: { 200: { description: 'the session', schema: CustomerSessionDTO }, ...errorResponses(400, 403, 404, 429) },
    },
    async run({ params, body, req }) {
      const session = await signInCustomer(services, params.subdomain!, { codeId: String(body.codeId), code: String(body.code) }, contextOf(req, req.res!));
      return {
        status: 200,
        body: {
          token: session.token,
          expiresAt: session.expiresAt,
          registered: session.registered,
          customer: toCustomerDTO(session.customer, await payoutMethodOf(services.db, session.customer.customerId)),
        },
      };
    },
  },
  {
    signedIn: true,
    spec: {
      method: 'get',
      path: '/customer',
      tag: TAG,
      operationId: 'getSignedInCustomer',
      summary: 'The signed-in customer',
      description: `${BEARER} The customer, its brand, its live projects and what the brand allows it.`,
      authenticated: false,
      responses: { 200: { description: 'the customer', schema: CustomerAccountDTO }, ...errorResponses(401, 403) },
    },
    async run({ customer }) {
      const o = await customerOverview(services, customer!);
      return {
        status: 200,
        body: {
          customer: toCustomerDTO(o.customer, o.payoutEmails),
          brand: { featureId: o.brand.featureId, name: o.brand.settings.name, subdomain: o.brand.settings.subdomain },
          projects: o.projects.map((p) => ({ id: p.id, name: p.name, created: new Date(p.created).toISOString() })),
          maxProjects: o.maxProjects,
          maxAccountsPerProject: o.maxAccountsPerProject,
          allowedAccountTypeIds: [...o.allowedAccountTypeIds],
          allowedRegionIds: [...o.allowedRegionIds],
        },
      };
    },
  },
  {
    signedIn: true,
    spec: {
      method: 'post',
      path: '/customer/projects',
      tag: TAG,
      operationId: 'createCustomerProject',
      summary: 'Create a project of the customer',
      description: `${BEARER} A new project (never dedicated: customers get shared projects only, which is what disableDedicatedProjects asks) owned by the customer, with its first project-level API key, answered once. The key reaches this project only, like any project key; accounts created with it honour the brand's maxAccountsPerProject (409 [CUSTOMER_ACCOUNT_LIMIT_REACHED]), allowedRegions (403 [REGION_NOT_ALLOWED]), account types (accountTypes less OAuth types without their pair: 403 [ACCOUNT_TYPE_NOT_ALLOWED]) and disableDedicatedIpPurchase (403 [DEDICATED_IP_NOT_ALLOWED]). Beyond maxProjectsPerUser (0: 10) live projects: 409 [CUSTOMER_PROJECT_LIMIT_REACHED]. Project names need not be unique.`,
      body: CustomerProjectRequestDTO,
      bodyRequired: true,
      authenticated: false,
      responses: { 201: { description: 'the project and its key', schema: CreatedCustomerProjectDTO }, ...errorResponses(400, 401, 403, 409) },
    },
    async run({ body, customer, req }) {
      const { project, key } = await createCustomerProject(services, customer!, String(body.name), contextOf(req, req.res!));
      return {
        status: 201,
        body: { project: { id: project.id, name: project.name, created: new Date(project.created).toISOString() }, apiKeyId: key.apiKeyId, key: key.key },
      };
    },
  },
  {
    signedIn: true,
    spec: {
      method: 'post',
      path: '/customer/projects/{projectId}/apiKeys',
      tag: TAG,
      operationId: 'issueCustomerProjectKey',
      summary: 'Another key of one of its projects',
      description: `${BEARER} A new project-level API key of one of the customer's own live projects (404 [PROJECT_NOT_FOUND] for any other), answered once. Manage it further with the key itself (/projects/{projectId}/apiKeys).`,
      params: Type.Object({ projectId: Uuid }, { additionalProperties: false }),
      authenticated: false,
      responses: { 201: { description: 'the key', schema: IssuedProjectKeyDTO }, ...errorResponses(401, 403, 404) },
    },
    async run({ params, customer, req }) {
      const key = await issueCustomerProjectKey(services, customer!, params.projectId!, contextOf(req, req.res!));
      return { status: 201, body: { projectId: params.projectId, apiKeyId: key.apiKeyId, key: key.key } };
    },
  },
  {
    signedIn: true,
    spec: {
      method: 'put',
      path: '/customer/payoutMethod',
      tag: TAG,
      operationId: 'setCustomerPayoutMethod',
      summary: 'Record its own payout method',
      description: `${BEARER} Where the customer's signal-provider earnings are to be paid (PayoutDTO: wiseDetails, the e-mail addresses of its Wise account, at most ${MAX_WISE_EMAILS}; the first is the one the operator's payout export gives; empty or absent: none), by the same rules as the operator's PUT /projects/{projectId}/features/{featureId}/whitelabel/customers/{customerId}/payoutMethod and on the same record: it replaces the earlier one, whoever recorded it (an event PayoutMethodSet; the same method again records nothing). A malformed address or more than ${MAX_WISE_EMAILS}: 400 [VALIDATION_FAILED], nothing recorded. Answered as CustomerDTO.payoutMethod by GET /customer and in the operator's customer list. Nothing is ever paid from this service.`,
      body: PayoutDTO,
      bodyRequired: true,
      authenticated: false,
      responses: {
        200: { description: 'the payout method as kept (addresses in lower case, repeats removed)', schema: PayoutDTO },
        ...errorResponses(400, 401, 403),
      },
    },
    async run({ body, customer, req }) {
      const emails = ((body.wiseDetails ?? []) as { email: string }[]).map((w) => w.email);
      return { status: 200, body: toPayoutMethodDTO(await setOwnPayoutMethod(services, customer!, emails, contextOf(req, req.res!))) };
    },
  },
  {
    signedIn: true,
    spec: {
      method: 'delete',
      path: '/customer/session',
      tag: TAG,
      operationId: 'signOutCustomer',
      summary: 'Sign out',
      description: `${BEARER} Ends the session: its token is refused from now on. The project keys stay.`,
      authenticated: false,
      responses: { 204: { description: 'signed out' }, ...errorResponses(401, 403) },
    },
    async run({ customer, req }) {
      await signOutCustomer(services, customer!, contextOf(req, req.res!));
      return { status: 204 };
    },
  },
];

/** Declares the self-service operations for the OpenAPI document and the contract checks. */
export const declareSelfServiceRoutes = (routes: Routes, services: Services): void => {
  for (const route of selfServiceRoutes(services)) {
    routes.add({ ...route.spec, handler: () => Promise.reject(new Error('served by api/customers/selfService.ts before authentication')) } as RouteSpec);
  }
};

const EMPTY = Type.Object({}, { additionalProperties: false });

/** Serves them through `dispatch` (the routes served before authentication, api/app.ts). */
export const mountSelfServiceRoutes = (dispatch: FirstSegmentDispatch, services: Services): void => {
  const json = express.json({ limit: '16kb', strict: true, type: ['application/json', 'application/*+json'] });
  for (const route of selfServiceRoutes(services)) {
    dispatch.route(route.spec.method, route.spec.path, json, async (req: Request, res: Response, next: NextFunction) => {
      try {
        if (route.signedIn && bearerOf(req) === null && req.header('x-api-key') !== undefined) {
          throw new ApiError(
            403,
            '[CUSTOMER_SESSION_REQUIRED]',
            "an API key does not reach a customer's own operations: send the session's token as Authorization: Bearer <token>",
          );
        }
        const customer = route.signedIn ? await customerOfToken(services, bearerOf(req)) : null;
        const params = route.spec.params ? (validate(route.spec.params, { ...req.params }, 'path') as Record<string, string>) : {};
        validate(route.spec.query ?? EMPTY, { ...(req.query as object) }, 'query');
        let body: Record<string, unknown> = {};
        if (route.spec.body) {
          if (req.body === undefined || typeof req.body !== 'object' || req.body === null)
            throw new ApiError(400, '[VALIDATION_FAILED]', 'a JSON request body is required');
          body = validate(route.spec.body as TSchema, req.body, 'body') as Record<string, unknown>;
        }
        const out = await route.run({ params, body, customer, req });
        res.set('cache-control', 'no-store');
        if (out.body === undefined) res.status(out.status).end();
        else res.status(out.status).json(out.body);
      } catch (error) {
        next(error);
      }
    });
  }
};
