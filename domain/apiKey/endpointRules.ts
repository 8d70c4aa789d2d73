// Endpoint access of an access policy (spec "Access policy of an API key"): rules of (path pattern,
// method). In a pattern `*` matches one path segment, `**` zero or more segments, `{variable}` a segment
// that is a path variable of the route. Other segments match literally, ignoring case.
//
// Patterns are matched against the route the router chose, not against the raw request path: the
// route's template with each variable replaced by its decoded value, as a list of segments. So an
// encoded slash inside a value stays one segment, and `//`, dot segments, case and a trailing slash
// cannot make a request look like another path (the router refuses such paths or maps them to the
// same route). Matching walks segments with memoisation: linear in pattern x path, no regular
// expressions, so no pattern a client writes can make it slow.

export type PolicyMode = 'ALLOW_LIST' | 'DENY_LIST';
export type EndpointMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ALL';

export interface EndpointRule {
  readonly pathPattern: string;
  readonly method: EndpointMethod;
}

export interface EndpointAccess {
  readonly mode: PolicyMode;
  readonly rules: readonly EndpointRule[];
}

export interface PathSegment {
  readonly value: string;
  /** The segment is a path variable of the route (`{accountId}`), not a literal part of its path. */
  readonly variable: boolean;
}

export const API_PREFIX_SEGMENTS = ['rest', 'api', 'v1'];
const MAX_PATTERN_LENGTH = 300;
const MAX_SEGMENTS = 32;
const LITERAL = /^[A-Za-z0-9._~-]+$/;
const VARIABLE = /^\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/** The segments of a pattern, without the /rest/api/v1 prefix when it was written with it. */
export const patternSegments = (pattern: string): string[] => {
  let segments = pattern.split('/').slice(1);
  if (segments.length > 0 && segments[segments.length - 1] === '') segments = segments.slice(0, -1);
  const prefixed = API_PREFIX_SEGMENTS.every((s, i) => segments[i]?.toLowerCase() === s);
  return prefixed ? segments.slice(API_PREFIX_SEGMENTS.length) : segments;
};

/** Why a pattern is not usable, or null. */
export const patternProblem = (pattern: string): string | null => {
  if (pattern.length === 0 || pattern.length > MAX_PATTERN_LENGTH) return `must have 1 to ${MAX_PATTERN_LENGTH} characters`;
  if (!pattern.startsWith('/')) return 'must start with /';
  const segments = patternSegments(pattern);
  if (segments.length > MAX_SEGMENTS) return `may have at most ${MAX_SEGMENTS} segments`;
  for (const s of segments) {
    if (s === '') return 'has an empty segment (//)';
    if (s === '.' || s === '..') return 'has a dot segment';
    if (s === '*' || s === '**' || VARIABLE.test(s)) continue;
    if (s.includes('*')) return `segment "${s}": * and ** stand alone in a segment`;
    if (!LITERAL.test(s)) return `segment "${s}" may hold only letters, digits and . _ ~ -`;
  }
  return null;
};

/** Does the pattern match the path? Both as segments. */
export const matchesPattern = (pattern: readonly string[], path: readonly PathSegment[]): boolean => {
  const memo = new Map<number, boolean>();
  const at = (p: number, s: number): boolean => {
    const key = p * (path.length + 1) + s;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    const seg = pattern[p];
    if (seg === undefined) result = s === path.length;
    else if (seg === '**') result = at(p + 1, s) || (s < path.length && at(p, s + 1));
    else if (s === path.length) result = false;
    else if (seg === '*') result = at(p + 1, s + 1);
    else if (VARIABLE.test(seg)) result = path[s]!.variable && at(p + 1, s + 1);
    else result = path[s]!.value.toLowerCase() === seg.toLowerCase() && at(p + 1, s + 1);
    memo.set(key, result);
    return result;
  };
  return at(0, 0);
};

/** HEAD is a GET without a body; everything else is its own method. */
const policyMethod = (method: string): string => (method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase());

export const ruleMatches = (rule: EndpointRule, method: string, path: readonly PathSegment[]): boolean =>
  (rule.method === 'ALL' || rule.method === policyMethod(method)) && matchesPattern(patternSegments(rule.pathPattern), path);

/** ALLOW_LIST: only what a rule matches; DENY_LIST: everything a rule does not match. */
export const endpointAllowed = (access: EndpointAccess, method: string, path: readonly PathSegment[]): boolean => {
  const matched = access.rules.some((rule) => ruleMatches(rule, method, path));
  return access.mode === 'ALLOW_LIST' ? matched : !matched;
};

/** A route template (`/accounts/{accountId}`) with its decoded values, as segments. */
export const routeSegments = (template: string, params: Readonly<Record<string, string | undefined>>): PathSegment[] =>
  template
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      const variable = /^\{(\w+)\}$/.exec(s);
      return variable ? { value: params[variable[1]!] ?? '', variable: true } : { value: s, variable: false };
    });
