// IP whitelist of an access policy (spec "Access policy of an API key"): single addresses or CIDR
// ranges, IPv4 and IPv6; no wildcards. An IPv4 client seen as IPv4-mapped IPv6 (::ffff:10.1.2.3, how
// a dual-stack socket reports it) matches IPv4 entries, and the other way round.
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** IPv4 only in plain dotted decimal: 0177.0.0.1 or 127.1 would mean something else to each reader. */
const parseAddress = (text: string): Address | null => {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (text.includes(':') && ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return null;
};

const parseEntry = (entry: string): [Address, number] | null => {
  const [address, bits, ...rest] = entry.trim().split('/');
  if (rest.length > 0 || address === undefined) return null;
  const parsed = parseAddress(address);
  if (!parsed) return null;
  const max = parsed.kind() === 'ipv4' ? 32 : 128;
  if (bits === undefined) return [parsed, max];
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return null;
  return [parsed, Number(bits)];
};

export const ipEntryProblem = (entry: string): string | null =>
  parseEntry(entry) ? null : `"${entry}" is not an IP address or CIDR range (IPv4 in dotted decimal; no wildcards)`;

/** The address as the client used it, and its other form (IPv4 <-> IPv4-mapped IPv6). */
const forms = (ip: string): Address[] => {
  if (!ipaddr.isValid(ip)) return [];
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv6') {
    const v6 = address as ipaddr.IPv6;
    return v6.isIPv4MappedAddress() ? [v6, v6.toIPv4Address()] : [v6];
  }
  return [address, (address as ipaddr.IPv4).toIPv4MappedAddress()];
};

/** An empty whitelist restricts nothing. */
export const ipAllowed = (whitelist: readonly string[], clientIp: string | null | undefined): boolean => {
  if (whitelist.length === 0) return true;
  if (!clientIp) return false;
  const candidates = forms(clientIp);
  return whitelist.some((entry) => {
    const range = parseEntry(entry);
    if (!range) return false;
    return candidates.some((c) => c.kind() === range[0].kind() && c.match(range as [typeof c, number]));
  });
};
