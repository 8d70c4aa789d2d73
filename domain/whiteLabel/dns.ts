// The DNS records a white-label brand needs (spec: GET /projects/{projectId}/whitelabel/dns, DnsConfigDTO,
// DnsRecordCheckDTO, DnsCheckResultDTO), and how what DNS answered is judged. Which records, from the
// operator's configuration (app/config.ts WHITE_LABEL_*):
//   - the brand's subdomain points at the service: a CNAME to WHITE_LABEL_CNAME_TARGET (default the
//     OPERATOR_DOMAIN). A subdomain whose addresses are exactly the target's also passes (a provider that
//     flattens the CNAME answers A/AAAA records only);
//   - e-mail in the brand's name (when WHITE_LABEL_SPF_INCLUDE is set): a TXT record on the subdomain
//     with an SPF policy that includes it;
//   - DKIM (when WHITE_LABEL_DKIM is set, `selector:target`): a CNAME `<selector>._domainkey.<subdomain>`
//     to the target.
// Pure: the lookups are the app's (app/whiteLabelDns.ts).

export type DnsRecordType = 'CNAME' | 'TXT';
export type DnsRecordStatus = 'OK' | 'MISSING' | 'MISMATCH' | 'NOT_CONFIGURED' | 'ERROR';

export interface DnsExpectations {
  /** Where the subdomain must point; null: the operator configured none. */
  readonly cnameTarget: string | null;
  readonly spfInclude: string | null;
  readonly dkim: { readonly selector: string; readonly target: string } | null;
}

/** One record the brand needs (DnsConfigDTO's records). */
export interface DnsRequiredRecord {
  readonly type: DnsRecordType;
  readonly name: string;
  /** The value expected; null when the operator configured none. */
  readonly value: string | null;
  readonly purpose: string;
}

/** What DNS answered for one record. */
export interface DnsFound {
  /** CNAME targets or TXT strings (each TXT record's chunks joined). */
  readonly values: readonly string[];
  /** The name's own addresses and the target's, for a flattened CNAME; absent for other records. */
  readonly addresses?: readonly string[];
  readonly targetAddresses?: readonly string[];
  /** A lookup that failed for another reason than "no such record" (timeout, refused). */
  readonly error?: string;
}

export interface DnsRecordCheck extends DnsRequiredRecord {
  readonly found: readonly string[];
  readonly status: DnsRecordStatus;
  readonly message: string;
}

const normal = (name: string): string => name.toLowerCase().replace(/\.$/, '');

export const requiredDnsRecords = (subdomain: string, expect: DnsExpectations): DnsRequiredRecord[] => {
  const host = normal(subdomain);
  return [
    { type: 'CNAME', name: host, value: expect.cnameTarget && normal(expect.cnameTarget), purpose: "the brand's address reaches this service" },
    ...(expect.spfInclude
      ? [
          {
            type: 'TXT' as const,
            name: host,
            value: `v=spf1 include:${expect.spfInclude} ~all`,
            purpose: "e-mail in the brand's name may be sent by the operator's mail servers (SPF)",
          },
        ]
      : []),
    ...(expect.dkim
      ? [
          {
            type: 'CNAME' as const,
            name: `${expect.dkim.selector}._domainkey.${host}`,
            value: normal(expect.dkim.target),
            purpose: "e-mail in the brand's name is signed by the operator's key (DKIM)",
          },
        ]
      : []),
  ];
};

const spfIncludes = (txt: string, include: string): boolean =>
  /^v=spf1(\s|$)/i.test(txt.trim()) &&
  txt
    .trim()
    .split(/\s+/)
    .some((term) => normal(term.replace(/^[+?~-]/, '')) === `include:${normal(include)}`);

/** The verdict on one record. */
export const judgeDnsRecord = (record: DnsRequiredRecord, found: DnsFound, expect: DnsExpectations): DnsRecordCheck => {
  const values = found.values.map((v) => (record.type === 'CNAME' ? normal(v) : v));
  const verdict = (status: DnsRecordStatus, message: string): DnsRecordCheck => ({ ...record, found: values, status, message });
  if (record.value === null) {
    return verdict('NOT_CONFIGURED', 'the operator has not configured where brands point (WHITE_LABEL_CNAME_TARGET or OPERATOR_DOMAIN)');
  }
  if (found.error) return verdict('ERROR', `the lookup failed: ${found.error}`);
  if (record.type === 'TXT') {
    if (values.length === 0) return verdict('MISSING', `no TXT record at ${record.name}: add ${record.value}`);
    const spf = values.filter((v) => /^v=spf1(\s|$)/i.test(v.trim()));
    if (spf.length > 1) return verdict('MISMATCH', `${spf.length} SPF records at ${record.name}: keep one (receivers ignore them all otherwise)`);
    return spf.length === 1 && spfIncludes(spf[0]!, expect.spfInclude ?? '')
      ? verdict('OK', 'the SPF policy includes the operator')
      : verdict('MISMATCH', `the SPF policy at ${record.name} does not include ${expect.spfInclude}`);
  }
  if (values.includes(record.value)) return verdict('OK', `${record.name} points at ${record.value}`);
  if (values.length > 0) return verdict('MISMATCH', `${record.name} points at ${values.join(', ')}, not at ${record.value}`);
  const own = [...(found.addresses ?? [])].sort();
  const target = [...(found.targetAddresses ?? [])].sort();
  if (own.length > 0 && target.length > 0 && own.join() === target.join()) {
    return verdict('OK', `${record.name} has the addresses of ${record.value} (a flattened CNAME)`);
  }
  if (own.length > 0) return verdict('MISMATCH', `${record.name} has addresses ${own.join(', ')}, not a CNAME to ${record.value}`);
  return verdict('MISSING', `no CNAME at ${record.name}: add ${record.name} CNAME ${record.value}`);
};
