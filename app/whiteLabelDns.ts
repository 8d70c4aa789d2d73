// GET /projects/{projectId}/whitelabel/dns: the records a brand needs (domain/whiteLabel/dns.ts), each
// looked up with node:dns (the resolvers of WHITE_LABEL_DNS_SERVERS, else the system's) and judged on its
// own. The subdomain is the brand's once its FeatureWhiteLabelDTO exists; before, the one the caller names.
import { Resolver } from 'node:dns/promises';
import { type DnsFound, type DnsRecordCheck, judgeDnsRecord, requiredDnsRecords, type DnsRequiredRecord } from '../domain/whiteLabel/dns.js';
import { subdomainProblem, WHITE_LABEL } from '../domain/whiteLabel/feature.js';
import { projectFeatureRows } from '../projections/features/queries.js';
import type { WhiteLabelConfig } from './whiteLabelConfig.js';
import type { Services } from './services.js';
import { invalid } from '../domain/shared/errors.js';

export interface DnsCheckResult {
  readonly subdomain: string;
  /** true: the brand's white-label feature exists (its subdomain was checked, a `subdomain` sent was ignored). */
  readonly whiteLabelExists: boolean;
  readonly records: readonly DnsRequiredRecord[];
  readonly checks: readonly DnsRecordCheck[];
  /** Every record OK. */
  readonly ready: boolean;
  readonly checked: string;
}

const LOOKUP_TIMEOUT_MS = 2_000;

/** "No such record" answers: an empty list, not a failure. */
const ABSENT = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

const resolverOf = (config: WhiteLabelConfig): Resolver => {
  const resolver = new Resolver({ timeout: LOOKUP_TIMEOUT_MS, tries: 2 });
  if (config.dnsServers.length > 0) resolver.setServers([...config.dnsServers]);
  return resolver;
};

const listOrAbsent = async <T>(lookup: () => Promise<T[]>): Promise<T[]> => {
  try {
    return await lookup();
  } catch (error) {
    if (ABSENT.has((error as NodeJS.ErrnoException).code ?? '')) return [];
    throw error;
  }
};

const addressesOf = async (resolver: Resolver, name: string): Promise<string[]> => [
  ...(await listOrAbsent(() => resolver.resolve4(name))),
  ...(await listOrAbsent(() => resolver.resolve6(name))),
];

const lookUp = async (resolver: Resolver, record: DnsRequiredRecord): Promise<DnsFound> => {
  try {
    if (record.type === 'TXT') return { values: (await listOrAbsent(() => resolver.resolveTxt(record.name))).map((chunks) => chunks.join('')) };
    const values = await listOrAbsent(() => resolver.resolveCname(record.name));
    if (values.length > 0 || record.value === null) return { values };
    // No CNAME: maybe flattened into addresses.
    const [addresses, targetAddresses] = await Promise.all([addressesOf(resolver, record.name), addressesOf(resolver, record.value)]);
    return { values, addresses, targetAddresses };
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    return { values: [], error: e.code ? `${e.code} (${e.message})` : String(error) };
  }
};

export const checkWhiteLabelDns = async (services: Services, projectId: string, asked: string | undefined): Promise<DnsCheckResult> => {
  const brand = (await projectFeatureRows(services.db, projectId)).find((r) => r.type === WHITE_LABEL);
  const stored = brand ? (brand.setting as { subdomain?: unknown }).subdomain : undefined;
  const subdomain = typeof stored === 'string' ? stored : asked;
  if (subdomain === undefined || subdomain === '') {
    throw invalid('[VALIDATION_FAILED]', 'subdomain: required before the project has a white label (FeatureWhiteLabelDTO)');
  }
  const problem = subdomainProblem(subdomain);
  if (problem) throw invalid('[VALIDATION_FAILED]', problem);
  const config = services.config.whiteLabel;
  const records = requiredDnsRecords(subdomain, config);
  const resolver = resolverOf(config);
  const checks = await Promise.all(
    records.map(async (record) => judgeDnsRecord(record, record.value === null ? { values: [] } : await lookUp(resolver, record), config)),
  );
  return {
    subdomain: subdomain.toLowerCase(),
    whiteLabelExists: !!brand,
    records,
    checks,
    ready: checks.every((c) => c.status === 'OK'),
    checked: services.clock().toISOString(),
  };
};
