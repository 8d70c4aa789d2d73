// The white-label brands' DNS expectations (environment variables, checked at start with the rest, app/config.ts):
//   WHITE_LABEL_CNAME_TARGET  OPERATOR_DOMAIN  the host a brand's subdomain must be a CNAME of (where this service is reached)
//   WHITE_LABEL_SPF_INCLUDE   unset            a domain the brand's SPF record must include (the operator's mail servers)
//   WHITE_LABEL_DKIM          unset            selector:target: <selector>._domainkey.<subdomain> must be a CNAME of target
//   WHITE_LABEL_DNS_SERVERS   the system's     comma-separated resolvers (ip or ip:port) the DNS check asks
import { isIP } from 'node:net';
import type { DnsExpectations } from '../domain/whiteLabel/dns.js';

export interface WhiteLabelConfig extends DnsExpectations {
  /** Resolvers as node:dns takes them; empty: the system's. */
  readonly dnsServers: readonly string[];
}

const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.?$/i;

const server = (text: string): boolean => {
  if (isIP(text)) return true;
  const bracketed = /^\[([^\]]+)\]:(\d{1,5})$/.exec(text);
  if (bracketed) return isIP(bracketed[1]!) === 6 && Number(bracketed[2]) <= 65535;
  const withPort = /^([^:]+):(\d{1,5})$/.exec(text);
  return !!withPort && isIP(withPort[1]!) === 4 && Number(withPort[2]) <= 65535;
};

export const loadWhiteLabelConfig = (env: NodeJS.ProcessEnv, operatorDomain: string | null, fail: (message: string) => Error): WhiteLabelConfig => {
  const text = (name: string): string | null => env[name]?.trim() || null;
  const host = (name: string, value: string | null): string | null => {
    if (value !== null && !HOST.test(value)) throw fail(`${name} must be a host name such as app.example.com, got "${value}"`);
    return value?.toLowerCase() ?? null;
  };
  const dkimText = text('WHITE_LABEL_DKIM');
  let dkim: WhiteLabelConfig['dkim'] = null;
  if (dkimText !== null) {
    const [selector, target, ...rest] = dkimText.split(':');
    if (!selector || !target || rest.length > 0 || !/^[a-z0-9-_]{1,63}$/i.test(selector) || !HOST.test(target)) {
      throw fail(`WHITE_LABEL_DKIM must be selector:target, such as brand1:dkim.example.com, got "${dkimText}"`);
    }
    dkim = { selector: selector.toLowerCase(), target: target.toLowerCase() };
  }
  const dnsServers = (text('WHITE_LABEL_DNS_SERVERS') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const wrong = dnsServers.find((s) => !server(s));
  if (wrong) throw fail(`WHITE_LABEL_DNS_SERVERS must be addresses such as 10.0.0.2 or 10.0.0.2:53, got "${wrong}"`);
  return {
    cnameTarget: host('WHITE_LABEL_CNAME_TARGET', text('WHITE_LABEL_CNAME_TARGET')) ?? operatorDomain,
    spfInclude: host('WHITE_LABEL_SPF_INCLUDE', text('WHITE_LABEL_SPF_INCLUDE')),
    dkim,
    dnsServers,
  };
};
