// CORS origins of an access policy (spec "Access policy of an API key"): an exact origin
// (`https://app.example.com:8443`), a subdomain wildcard (`https://*.example.com`: any depth of
// subdomain, not example.com itself) or `*` (any origin). Case does not matter; scheme and port must
// match (a missing port is the scheme's default). The operator's own domain and its subdomains are
// always allowed, over https on the default port.

interface Origin {
  readonly scheme: string;
  readonly host: string;
  readonly port: string;
}

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };
const ENTRY = /^(https?):\/\/(\*\.)?([^/:*?#@\s]+)(?::(\d{1,5}))?$/i;

/** Host names as a browser sends them: lower case, international names in punycode. */
const canonicalHost = (scheme: string, host: string): string | null => {
  try {
    return new URL(`${scheme}://${host}`).hostname;
  } catch {
    return null;
  }
};

const parseOrigin = (origin: string): Origin | null => {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return null;
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!(scheme in DEFAULT_PORTS) || url.username || url.password) return null;
  if (url.pathname !== '/' && url.pathname !== '') return null;
  return { scheme, host: url.hostname, port: url.port || DEFAULT_PORTS[scheme]! };
};

interface Entry {
  readonly any: boolean;
  readonly wildcard: boolean;
  readonly origin: Origin | null;
}

const parseEntry = (entry: string): Entry | null => {
  const text = entry.trim();
  if (text === '*') return { any: true, wildcard: false, origin: null };
  const m = ENTRY.exec(text);
  if (!m) return null;
  const scheme = m[1]!.toLowerCase();
  const host = canonicalHost(scheme, m[3]!);
  if (!host || (m[4] !== undefined && (Number(m[4]) < 1 || Number(m[4]) > 65535))) return null;
  return { any: false, wildcard: m[2] !== undefined, origin: { scheme, host, port: m[4] ? String(Number(m[4])) : DEFAULT_PORTS[scheme]! } };
};

export const originEntryProblem = (entry: string): string | null =>
  parseEntry(entry) ? null : `"${entry}" is not an origin: use scheme://host[:port], https://*.domain or *`;

const matches = (entry: Entry, origin: Origin): boolean => {
  if (entry.any) return true;
  const e = entry.origin!;
  if (e.scheme !== origin.scheme || e.port !== origin.port) return false;
  return entry.wildcard ? origin.host.endsWith(`.${e.host}`) : origin.host === e.host;
};

/** Is the operator's domain (or one of its subdomains) the origin? */
export const isOperatorOrigin = (origin: string, operatorDomain: string | null): boolean => {
  if (!operatorDomain) return false;
  const parsed = parseOrigin(origin);
  if (!parsed) return false;
  const own = parseEntry(`https://${operatorDomain}`);
  const subdomains = parseEntry(`https://*.${operatorDomain}`);
  return [own, subdomains].some((e) => e !== null && matches(e, parsed));
};

/** An empty list restricts nothing; `*` allows every origin, even `null`. */
export const originAllowed = (entries: readonly string[], origin: string, operatorDomain: string | null): boolean => {
  if (entries.length === 0 || isOperatorOrigin(origin, operatorDomain)) return true;
  const parsed = parseOrigin(origin);
  return entries.some((text) => {
    const entry = parseEntry(text);
    if (!entry) return false;
    if (entry.any) return true;
    return parsed !== null && matches(entry, parsed);
  });
};
