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

export type Resolver = (hostname: string, options: { all: true; family?: number }, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, options, callback) => dns.lookup(hostname, options, callback);

/** Only a canonical address that ipaddr.js classes as plain unicast is public. */
export const isPublicAddress = (address: string): boolean => {
  if (net.isIP(address) === 0) return false;
  return ipaddr.process(address).range() === 'unicast';
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
