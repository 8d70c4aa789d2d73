// Every response an end-to-end spec receives is checked against the OpenAPI declaration of its route:
// the status must be declared, and a JSON body must match the declared schema.
import { appendFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { declareRoutes } from '../../api/app.js';
import { errorResponses } from '../../api/shared/schemas.js';
import { featureTypeById } from '../../domain/feature/types.js';
import type { ResponseSpec, RouteSpec } from '../../api/route.js';
import type { Services } from '../../app/services.js';
import {
  API_BASE,
  findOperation,
  loadReference,
  type Operation,
  referenceComponentValidator,
  referenceErrors,
  referenceRequestValidator,
  referenceResponseValidator,
} from './reference.js';
import { ANSWER_GAPS, KNOWN_SCHEMA_GAPS, NOT_YET_ROUTED, REQUEST_GAPS } from './referenceGaps.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
const specs: readonly RouteSpec[] = declareRoutes({} as Services).specs;
const compiled = new Map<object, ValidateFunction>();

const matcher = (spec: RouteSpec) => new RegExp(`^${spec.path.replace(/\{\w+\}/g, '[^/]+')}/?$`);
const routes = specs.map((spec) => ({ spec, re: matcher(spec) }));

// Statuses any operation may give (see buildOpenApi) besides those it declares: 400 for an unknown
// query member or a body where none is taken.
const generic = { ...errorResponses(400, 401, 413, 415, 500) };

export const checkResponse = (method: string, route: string, status: number, body: unknown): void => {
  const path = route.split('?')[0]!;
  const match = routes.find((r) => r.spec.method === method.toLowerCase() && r.re.test(path));
  if (!match) return; // unknown routes and methods: 404/405, checked by their own specs
  const declared = match.spec.responses[status] ?? (generic as Record<number, (typeof generic)[401]>)[status];
  if (!declared) throw new Error(`${method} ${match.spec.path} answered ${status}, which its OpenAPI operation does not declare`);
  const { contentType } = declared as ResponseSpec;
  if (contentType && contentType !== 'application/json') {
    if (typeof body !== 'string' || body.length === 0) throw new Error(`${method} ${match.spec.path} ${status} should send a ${contentType} body`);
    return;
  }
  if (!declared.schema) {
    if (body !== undefined && body !== '') throw new Error(`${method} ${match.spec.path} ${status} declares no body but sent one`);
    return;
  }
  let validate = compiled.get(declared.schema);
  if (!validate) {
    // The same named schema may appear twice (AccountDTO in MasterAccountSummaryDTO): drop the $id names.
    validate = ajv.compile(JSON.parse(JSON.stringify(declared.schema), (key, value: unknown) => (key === '$id' ? undefined : value)));
    compiled.set(declared.schema, validate);
  }
  if (!validate(body)) {
    throw new Error(
      `${method} ${match.spec.path} ${status}: body does not match its schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
    );
  }
};

// ---------------------------------------------------------------------------------------------
// The reference wire format (issue 15): every operation the reference document defines, and that
// test/support/referenceGaps.ts does not list as still open, answers a successful call with a body
// the reference's response schema accepts, and the body of that call is one the reference's request
// schema accepts. Errors keep the spec's own format and are not compared.

const referenceName = (op: Operation): string => `${op.method.toUpperCase()} ${op.fullPath.slice(API_BASE.length)}`;

/** REFERENCE_GAPS_COLLECT=FILE: the mismatches are appended to FILE (JSON lines) instead of failing the call. */
const collectInto = process.env['REFERENCE_GAPS_COLLECT'];

const mismatch = (message: string, entry: Record<string, unknown>): void => {
  if (!collectInto) throw new Error(message);
  appendFileSync(collectInto, `${JSON.stringify({ ...entry, message })}\n`);
};

/**
 * Successful statuses the spec 1.2.6 adds to an operation of the reference (its additions sit on top):
 * the asynchronous account creation (callbackUrl) answers 202 with an AsyncAccountCreationResponseDTO.
 * Their answers are checked against our document only; their requests against the reference too.
 */
const SPEC_ADDED_STATUSES: Readonly<Record<string, readonly number[]>> = { 'POST /accounts': [202] };

export const checkReference = (method: string, route: string, status: number, requestBody: unknown, responseBody: unknown): void => {
  if (status < 200 || status > 299) return;
  const op = findOperation(loadReference(), method, route);
  if (!op) return; // an operation of our own
  const name = referenceName(op);
  // An operation of our own whose literal path fits a template of the reference (GET /accounts/masters
  // is not the reference's GET /accounts/{accountId}): the route our router picks decides.
  const path = route.split('?')[0]!;
  const ours = routes.find((r) => r.spec.method === method.toLowerCase() && r.re.test(path));
  const template = (p: string) => p.replace(/\{\w+\}/g, '{}').replace(/\/+$/, '');
  if (ours && template(ours.spec.path) !== template(name.slice(name.indexOf(' ') + 1))) return;
  if (NOT_YET_ROUTED[name]) return;
  const gaps = KNOWN_SCHEMA_GAPS[name];
  const branches = gaps ? openBranches(gaps) : null;
  if (gaps && !branches) return;
  if (SPEC_ADDED_STATUSES[name]?.includes(status)) {
    checkReferenceRequest(name, op, method, route, requestBody);
    return;
  }
  if (!op.operation.responses?.[String(status)]) {
    mismatch(`${name} answered ${status}, which the reference does not declare`, { name, kind: 'status', status });
    return;
  }
  if (branches) {
    checkFeatureSettings(name, 'response', responseBody, branches);
    if (requestBody !== undefined && op.operation.requestBody) checkFeatureSettings(name, 'request', requestBody, branches);
    return;
  }
  const validateResponse = referenceResponseValidator(method, route, status);
  if (!ANSWER_GAPS.has(name) && !validateResponse(responseBody)) {
    const errors = referenceErrors(validateResponse);
    mismatch(`${name} ${status}: the answer does not match the reference: ${errors}\n${JSON.stringify(responseBody).slice(0, 500)}`, {
      name,
      kind: 'response',
      errors,
    });
  }
  checkReferenceRequest(name, op, method, route, requestBody);
};

const checkReferenceRequest = (name: string, op: Operation, method: string, route: string, requestBody: unknown): void => {
  if (requestBody === undefined || REQUEST_GAPS.has(name) || !op.operation.requestBody) return;
  const validateRequest = referenceRequestValidator(method, route);
  if (!validateRequest(requestBody)) {
    const errors = referenceErrors(validateRequest);
    mismatch(`${name}: the request body does not match the reference: ${errors}\n${JSON.stringify(requestBody).slice(0, 500)}`, {
      name,
      kind: 'request',
      errors,
    });
  }
};

// FeatureDTO answers and requests. The reference's `setting` is a oneOf of every feature branch without
// a discriminator (so almost any object passes it), and the branches this service does not run yet
// stay listed as gaps of the feature operations. Those operations are therefore checked feature by
// feature: the envelope against FeatureDTO, and the setting against the one branch its `type.name`
// names (the reference's DTO name), unless that branch is itself listed as a gap.
const BRANCH_GAP = /^setting<(\w+)>/;

/** The setting branches of a gap list made only of setting-branch gaps, or null (another gap: not checked). */
const openBranches = (gaps: readonly string[]): ReadonlySet<string> | null =>
  gaps.every((gap) => BRANCH_GAP.test(gap)) ? new Set(gaps.map((gap) => BRANCH_GAP.exec(gap)![1]!)) : null;

const checkFeatureSettings = (name: string, direction: 'request' | 'response', body: unknown, open: ReadonlySet<string>): void => {
  const features = Array.isArray(body) ? body : [body];
  for (const feature of features) {
    if (typeof feature !== 'object' || feature === null) continue;
    const envelope = referenceComponentValidator('FeatureDTO', direction);
    if (!envelope(feature)) {
      const errors = referenceErrors(envelope);
      mismatch(`${name}: the ${direction} does not match the reference's FeatureDTO: ${errors}\n${JSON.stringify(feature).slice(0, 500)}`, {
        name,
        kind: direction,
        errors,
      });
      continue;
    }
    const { type, setting } = feature as { type?: { id?: number; name?: string }; setting?: unknown };
    // A request names its type by id only: the reference's ids are ours (GET /types/featureTypes).
    const branch = type?.name ?? (typeof type?.id === 'number' ? featureTypeById(type.id)?.dto : undefined);
    // Branches of the spec's own (1.2.6) that the reference does not have are checked by our document only.
    if (!branch || open.has(branch) || setting === undefined || !loadReference().components?.schemas?.[branch]) continue;
    const validate = referenceComponentValidator(branch, direction);
    if (!validate(setting)) {
      const errors = referenceErrors(validate);
      mismatch(`${name}: the ${direction}'s setting does not match the reference's ${branch}: ${errors}\n${JSON.stringify(setting).slice(0, 500)}`, {
        name,
        kind: direction,
        errors,
      });
    }
  }
};
