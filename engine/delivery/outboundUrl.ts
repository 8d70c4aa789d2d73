// Outbound safety for every URL the service calls on a client's behalf (async creation callbacks now,
// webhooks later): OWASP API7 (SSRF). A URL whose host is, or resolves to, anything but a public
// unicast address (loopback, private, link-local, unique-local, CGNAT, cloud metadata, multicast,
// reserved, NAT64/6to4 embeddings...) is refused unless ALLOW_PRIVATE_OUTBOUND is set.
//
// - IP literals in any notation (2130706433, 0177.0.0.1, 0x7f.1, 127.1, [::ffff:7f00:1]) are
//   normalised by the WHATWG URL parser before they are checked, and are checked here, because a
//   connection to an IP literal never asks the resolver.
// - Names are resolved and every address is checked, when the URL is given and again at each
//   delivery, inside the connection's own lookup: the socket connects to exactly the addresses that
//   were checked, so a DNS answer that changes in between (rebinding) cannot reach a private address.
// - Redirects are never followed (the sender treats a 3xx as a failed attempt).
import dns, { type LookupAddress } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export type OutboundRefusal = 'EMPTY' | 'INVALID' | 'PROTOCOL' | 'NOT_ALLOWED';

export class OutboundUrlError extends Error {
  constructor(
    readonly reason: OutboundRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundUrlError';
  }
}

export type Resolver = (
  hostname: string,
  options: { all: true; family?: number },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, options, callback) => dns.lookup(hostname, options, callback);

/** IANA's global unicast block: every public IPv6 address is in it. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * The IPv4 address an ISATAP interface identifier carries (RFC 5214: ::0000:5efe:a.b.c.d, or
 * ::0200:5efe:a.b.c.d with the universal/local bit set, in any /64): a host with an ISATAP interface
 * in that prefix tunnels the packet to that IPv4 address.
 */
const isatapIpv4 = (address: ipaddr.IPv6): ipaddr.IPv4 | null => {
  const [, , , , w4, w5, w6, w7] = address.parts as [number, number, number, number, number, number, number, number];
  if ((w4 & 0xfcff) !== 0 || w5 !== 0x5efe) return null;
  return new ipaddr.IPv4([w6 >> 8, w6 & 0xff, w7 >> 8, w7 & 0xff]);
};

/**
 * The WHATWG form of an IPv6 literal (::7f00:1 for ::127.0.0.1), or null (a zone id). ipaddr.js reads
 * a dotted tail as IPv4-mapped whatever precedes it (::8.8.8.8 as ::ffff:8.8.8.8), but the socket
 * connects to the IPv4-compatible ::808:808: judge the address the socket would use.
 */
const canonicalIpv6 = (address: string): string | null => {
  try {
    return hostOf(new URL(`http://[${address}]/`));
  } catch {
    return null;
  }
};

/**
 * Only plain unicast is public: IPv4 that ipaddr.js classes as unicast, or IPv6 in 2000::/3 that it
 * classes as unicast and that does not carry a non-public IPv4 address. Every IPv6 form that embeds an
 * IPv4 address is judged by that address or refused outright: IPv4-mapped ::ffff:a.b.c.d (judged as
 * the IPv4 address by ipaddr.process), IPv4-compatible ::a.b.c.d (outside 2000::/3, like all of ::/8),
 * IPv4-translated ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96 and 64:ff9b:1::/48 (outside 2000::/3), 6to4
 * 2002::/16 and Teredo 2001::/32 (ranges of their own, refused whatever they carry), and ISATAP
 * identifiers (judged by their IPv4 address).
 */
export const isPublicAddress = (address: string): boolean => {
  const family = net.isIP(address);
  if (family === 0) return false;
  const canonical = family === 6 ? canonicalIpv6(address) : address;
  if (canonical === null) return false;
  const parsed = ipaddr.process(canonical);
  if (parsed.range() !== 'unicast') return false;
  if (parsed.kind() === 'ipv4') return true;
  const v6 = parsed as ipaddr.IPv6;
  if (!v6.match(GLOBAL_UNICAST_V6)) return false;
  const tunnelled = isatapIpv4(v6);
  return tunnelled === null || tunnelled.range() === 'unicast';
};

/** The host of a parsed URL without IPv6 brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Syntax, scheme, credentials and IP literals; names are left to `checkOutboundUrl` and the lookup. */
export const parseOutboundUrl = (raw: string, allowPrivate: boolean): URL => {
  if (raw.trim() === '') throw new OutboundUrlError('EMPTY', 'the URL is empty');
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new OutboundUrlError('INVALID', 'not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundUrlError('PROTOCOL', 'the protocol must be http or https');
  if (url.username || url.password) throw new OutboundUrlError('NOT_ALLOWED', 'the URL may not carry a user name or password');
  const host = hostOf(url);
  if (host === '') throw new OutboundUrlError('INVALID', 'the URL has no host');
  if (!allowPrivate && net.isIP(host) !== 0 && !isPublicAddress(host)) {
    throw new OutboundUrlError('NOT_ALLOWED', `${host} is not a public address (loopback, private, link-local and similar addresses are refused)`);
  }
  // RFC 6761: localhost names are loopback whatever a resolver says about them.
  if (!allowPrivate && /(^|\.)localhost\.?$/i.test(host)) throw new OutboundUrlError('NOT_ALLOWED', `${host} is a loopback name`);
  return url;
};

const resolveAll = (resolve: Resolver, hostname: string): Promise<LookupAddress[] | null> =>
  new Promise((done) => resolve(hostname, { all: true }, (error, addresses) => done(error ? null : addresses)));

/**
 * `parseOutboundUrl`, then the addresses a name resolves to, now. A name that does not resolve is
 * accepted here (a DNS hiccup is no reason to refuse): every delivery resolves and checks it again.
 */
export const checkOutboundUrl = async (raw: string, options: { allowPrivate: boolean; resolve?: Resolver }): Promise<URL> => {
  const url = parseOutboundUrl(raw, options.allowPrivate);
  const host = hostOf(url);
  if (options.allowPrivate || net.isIP(host) !== 0) return url;
  const addresses = await resolveAll(options.resolve ?? systemResolver, host);
  const refused = addresses?.find((a) => !isPublicAddress(a.address));
  if (refused) throw new OutboundUrlError('NOT_ALLOWED', `${host} resolves to ${refused.address}, which is not a public address`);
  return url;
};

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request / net.connect that refuses names resolving to any non-public address;
 * the connection then uses exactly the addresses checked here.
 */
export const guardedLookup =
  (allowPrivate: boolean, resolve: Resolver = systemResolver) =>
  (hostname: string, options: { family?: number | string; all?: boolean }, callback: LookupCallback): void => {
    const family = options.family === 'IPv6' || options.family === 6 ? 6 : options.family === 'IPv4' || options.family === 4 ? 4 : 0;
    resolve(hostname, { all: true, family }, (error, addresses) => {
      if (error) return callback(error, '');
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      const refused = allowPrivate ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (refused) {
        const message = `${hostname} resolves to ${refused.address}, which is not a public address`;
        return callback(Object.assign(new Error(message), { code: 'ERR_OUTBOUND_ADDRESS_NOT_ALLOWED' }), '');
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
