// Every response an end-to-end spec receives is checked against the OpenAPI declaration of its route:
// the status must be declared, and a JSON body must match the declared schema.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { declareRoutes } from '../../api/app.js';
import { errorResponses } from '../../api/shared/schemas.js';
import type { ResponseSpec, RouteSpec } from '../../api/route.js';
import type { Services } from '../../app/services.js';

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
