// The access policy of an API key (spec "Access policy of an API key"). Absent, or present with
// `enabled: false`, it restricts nothing, except for an AI key, which then is denied everything (spec
// "Authentication" 3: an AI key without an access policy fails closed; a disabled policy counts as
// none). A section left empty restricts nothing: no field or endpoint section, an empty IP whitelist,
// no CORS origins. A change takes effect on the next request.
import { invalid } from '../shared/errors.js';
import type { ApiKeyType } from './kinds.js';
import { type EndpointAccess, patternProblem } from './endpointRules.js';
import { type FieldAccess, formatFieldEntry, parseFieldEntry } from './fieldAccess.js';
import { ipEntryProblem } from './ipWhitelist.js';
import { originEntryProblem } from './origins.js';

export interface AccessPolicy {
  readonly enabled: boolean;
  readonly fieldAccess: FieldAccess | null;
  readonly endpointAccess: EndpointAccess | null;
  readonly ipWhitelist: readonly string[];
  readonly corsOrigins: readonly string[];
  readonly hiddenFrontendFeatures: readonly string[];
}

/** What a policy may name: the restrictable fields of each DTO, the hideable frontend features. */
export interface PolicyCatalog {
  readonly fields: ReadonlyMap<string, readonly string[]>;
  readonly frontendFeatures: readonly string[];
}

export const LIMITS = { fields: 300, rules: 100, ipWhitelist: 100, corsOrigins: 50, hiddenFrontendFeatures: 50 } as const;

/** The policy that applies to a request, or 'DENIED' when the key may do nothing at all. */
export const effectivePolicy = (keyType: ApiKeyType, policy: AccessPolicy | null): AccessPolicy | null | 'DENIED' => {
  const active = policy && policy.enabled ? policy : null;
  if (keyType === 'AI' && !active) return 'DENIED';
  return active;
};

const findCaseInsensitive = (items: Iterable<string>, wanted: string): string | undefined => {
  for (const item of items) if (item.toLowerCase() === wanted.toLowerCase()) return item;
  return undefined;
};

/**
 * Checks every entry of a policy against the catalog and returns it in canonical form (DTO and field
 * names as the catalog spells them, `DTO: field`, entries trimmed, duplicates dropped), or throws
 * 400 [ACCESS_POLICY_INVALID] listing every problem.
 */
export const checkAccessPolicy = (policy: AccessPolicy, catalog: PolicyCatalog): AccessPolicy => {
  const problems: { field: string; message: string }[] = [];
  const problem = (field: string, message: string) => problems.push({ field, message });
  const unique = (items: readonly string[]) => [...new Set(items)];

  let fieldAccess: FieldAccess | null = null;
  if (policy.fieldAccess) {
    const fields: string[] = [];
    policy.fieldAccess.fields.forEach((entry, i) => {
      const at = `fieldAccess.fields.${i}`;
      const ref = parseFieldEntry(entry);
      if (!ref) return problem(at, `"${entry}" is neither "field" nor "DTO: field"`);
      if (ref.dto !== null) {
        const dto = findCaseInsensitive(catalog.fields.keys(), ref.dto);
        if (!dto) return problem(at, `${ref.dto} is not a restrictable DTO (${[...catalog.fields.keys()].join(', ')})`);
        const field = findCaseInsensitive(catalog.fields.get(dto)!, ref.field);
        if (!field) return problem(at, `${dto} has no restrictable field ${ref.field}`);
        fields.push(formatFieldEntry({ dto, field }));
      } else {
        const field = findCaseInsensitive([...catalog.fields.values()].flat(), ref.field);
        if (!field) return problem(at, `no restrictable DTO has a field ${ref.field}`);
        fields.push(field);
      }
    });
    if (policy.fieldAccess.fields.length > LIMITS.fields) problem('fieldAccess.fields', `at most ${LIMITS.fields} entries`);
    fieldAccess = { mode: policy.fieldAccess.mode, fields: unique(fields) };
  }

  if (policy.endpointAccess) {
    if (policy.endpointAccess.rules.length > LIMITS.rules) problem('endpointAccess.rules', `at most ${LIMITS.rules} rules`);
    policy.endpointAccess.rules.forEach((rule, i) => {
      const trouble = patternProblem(rule.pathPattern);
      if (trouble) problem(`endpointAccess.rules.${i}.pathPattern`, `"${rule.pathPattern}" ${trouble}`);
    });
  }

  const list = (name: 'ipWhitelist' | 'corsOrigins' | 'hiddenFrontendFeatures', check: (entry: string) => string | null) => {
    const items = policy[name];
    if (items.length > LIMITS[name]) problem(name, `at most ${LIMITS[name]} entries`);
    items.forEach((entry, i) => {
      const trouble = check(entry);
      if (trouble) problem(`${name}.${i}`, trouble);
    });
    return unique(items.map((e) => e.trim()));
  };
  const ipWhitelist = list('ipWhitelist', ipEntryProblem);
  const corsOrigins = list('corsOrigins', originEntryProblem);
  const hiddenFrontendFeatures = list('hiddenFrontendFeatures', (id) =>
    catalog.frontendFeatures.includes(id.trim()) ? null : `"${id}" is not a frontend feature (see availableFrontendFeatures)`,
  );

  if (problems.length > 0) {
    const first = problems[0]!;
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    throw invalid('[ACCESS_POLICY_INVALID]', `${first.field}: ${first.message}${more}`, { problems });
  }
  return {
    enabled: policy.enabled,
    fieldAccess,
    endpointAccess: policy.endpointAccess
      ? { mode: policy.endpointAccess.mode, rules: policy.endpointAccess.rules.map((r) => ({ pathPattern: r.pathPattern, method: r.method })) }
      : null,
    ipWhitelist,
    corsOrigins,
    hiddenFrontendFeatures: unique(hiddenFrontendFeatures),
  };
};

/** Key order does not count: a policy read back from jsonb has its members in another order. */
const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
};

export const samePolicy = (a: AccessPolicy, b: AccessPolicy): boolean => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
