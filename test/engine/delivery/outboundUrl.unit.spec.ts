// Outbound safety (engine/delivery/outboundUrl.ts, httpSender.ts): which URLs the service refuses to
// call, in every notation of an address, after DNS resolution, and again at delivery (rebinding).
// Nothing here sends a packet anywhere but to a receiver on 127.0.0.1, and only where a spec says so.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { expect } from 'chai';
import { postJson } from '../../../engine/delivery/httpSender.js';
import { checkOutboundUrl, isPublicAddress, OutboundUrlError, parseOutboundUrl, type Resolver } from '../../../engine/delivery/outboundUrl.js';

const refusal = async (raw: string, resolve?: Resolver): Promise<string | null> => {
  try {
    await checkOutboundUrl(raw, { allowPrivate: false, ...(resolve ? { resolve } : {}) });
    return null;
  } catch (error) {
    if (error instanceof OutboundUrlError) return error.reason;
    throw error;
  }
};

/** A resolver with fixed answers, and a count of how often each name was asked. */
const fakeDns = (answers: Record<string, string[] | string[][]>) => {
  const asked = new Map<string, number>();
  const resolve: Resolver = (hostname, _options, callback) => {
    const n = asked.get(hostname) ?? 0;
    asked.set(hostname, n + 1);
    const entry = answers[hostname];
    if (!entry) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    const list = Array.isArray(entry[0]) ? (entry as string[][])[Math.min(n, entry.length - 1)]! : (entry as string[]);
    callback(
      null,
      list.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return { resolve, asked };
};

describe('outbound URLs: refused addresses', () => {
  const privateLiterals = [
    'http://127.0.0.1/cb',
    'http://2130706433/cb',
    'http://0177.0.0.1/cb',
    'http://0x7f.1/cb',
    'http://0x7f000001/cb',
    'http://127.1/cb',
    'http://127.0.0.1.:8080/cb',
    'http://[::1]/cb',
    'http://[::ffff:127.0.0.1]/cb',
    'http://[::ffff:7f00:1]/cb',
    'http://[0:0:0:0:0:ffff:7f00:1]/cb',
    'http://0.0.0.0/cb',
    'http://[::]/cb',
    'http://10.0.0.1/cb',
    'http://012.1.2.3/cb',
    'http://172.16.5.4/cb',
    'http://192.168.1.1/cb',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/cb',
    'http://100.100.100.200/cb',
    'http://[fd00::1]/cb',
    'http://[fd00:ec2::254]/cb',
    'http://[fe80::1]/cb',
    'http://[64:ff9b::7f00:1]/cb',
    'http://[2002:7f00:1::]/cb',
    'http://224.0.0.1/cb',
    'http://255.255.255.255/cb',
    'https://192.0.0.192/cb',
  ];
  for (const url of privateLiterals) {
    it(`refuses ${url} as NOT_ALLOWED`, async () => {
      expect(await refusal(url)).to.equal('NOT_ALLOWED');
    });
  }

  // Issue 13 item 10: IPv4-compatible literals (::127.0.0.1, normalised by the URL parser to ::7f00:1)
  // were classed as unicast and accepted.
  const embeddedIpv4Literals = [
    'http://[::127.0.0.1]/cb',
    'http://[::7f00:1]/cb',
    'http://[::a9fe:a9fe]/latest/meta-data/',
    'http://[::10.0.0.1]/cb',
    'http://[::192.168.1.1]/cb',
    'http://[0:0:0:0:0:0:7f00:1]/cb',
    'http://[::ffff:0:7f00:1]/cb',
    'http://[::ffff:169.254.169.254]/cb',
    'http://[64:ff9b::a9fe:a9fe]/cb',
    'http://[64:ff9b:1::a00:1]/cb',
    'http://[2002:a9fe:a9fe::1]/cb',
    'http://[2002:c0a8:101::]/cb',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/cb',
    'http://[2001:db8::5efe:7f00:1]/cb',
    'http://[2a00:1450::5efe:a9fe:a9fe]/cb',
    'http://[2a00:1450::200:5efe:a00:1]/cb',
    'http://[100::7f00:1]/cb',
  ];
  for (const url of embeddedIpv4Literals) {
    it(`refuses ${url}: an IPv6 address that embeds or maps a non-public IPv4 address`, async () => {
      expect(await refusal(url)).to.equal('NOT_ALLOWED');
    });
  }

  it('judges a resolved address the way the socket would use it: ::8.8.8.8 is IPv4-compatible, not mapped, and refused', () => {
    expect(isPublicAddress('::8.8.8.8')).to.equal(false);
    expect(isPublicAddress('::808:808')).to.equal(false);
    expect(isPublicAddress('::ffff:8.8.8.8')).to.equal(true);
    expect(isPublicAddress('fe80::1%eth0')).to.equal(false);
  });

  it('refuses names resolving to an IPv6 address that embeds a non-public IPv4 address', async () => {
    const { resolve } = fakeDns({ 'compat.example': ['::7f00:1'], 'nat64.example': ['64:ff9b::a00:5'], 'isatap.example': ['2a00:1450::5efe:c0a8:101'] });
    expect(await refusal('https://compat.example/cb', resolve)).to.equal('NOT_ALLOWED');
    expect(await refusal('https://nat64.example/cb', resolve)).to.equal('NOT_ALLOWED');
    expect(await refusal('https://isatap.example/cb', resolve)).to.equal('NOT_ALLOWED');
  });

  it('allows public addresses, in both families', async () => {
    expect(await refusal('https://8.8.8.8/cb')).to.equal(null);
    expect(await refusal('https://[2001:4860:4860::8888]:8443/cb?x=1')).to.equal(null);
    expect(isPublicAddress('1.1.1.1')).to.equal(true);
    expect(isPublicAddress('2a00:1450:4001:82b::200e')).to.equal(true);
    expect(isPublicAddress('2a00:1450::200:5efe:808:808')).to.equal(true);
    expect(isPublicAddress('0177.0.0.1')).to.equal(false);
  });

  it('tells empty, invalid, non-http(s) and credential-carrying URLs apart', async () => {
    expect(await refusal('  ')).to.equal('EMPTY');
    expect(await refusal('not a url')).to.equal('INVALID');
    expect(await refusal('//no-scheme.example/cb')).to.equal('INVALID');
    expect(await refusal('ftp://8.8.8.8/cb')).to.equal('PROTOCOL');
    expect(await refusal('file:///etc/passwd')).to.equal('PROTOCOL');
    expect(await refusal('gopher://8.8.8.8/')).to.equal('PROTOCOL');
    expect(await refusal('https://user:secret@8.8.8.8/cb')).to.equal('NOT_ALLOWED');
  });

  it('refuses a name when any address it resolves to is not public; accepts one that does not resolve (checked again at delivery)', async () => {
    const { resolve } = fakeDns({
      'public.example': ['93.184.216.34'],
      'internal.example': ['10.0.0.5'],
      'mixed.example': ['93.184.216.34', '127.0.0.1'],
      'mapped.example': ['::ffff:169.254.169.254'],
    });
    expect(await refusal('https://public.example/cb', resolve)).to.equal(null);
    expect(await refusal('https://internal.example/cb', resolve)).to.equal('NOT_ALLOWED');
    expect(await refusal('https://mixed.example/cb', resolve)).to.equal('NOT_ALLOWED');
    expect(await refusal('https://mapped.example/cb', resolve)).to.equal('NOT_ALLOWED');
    expect(await refusal('https://unknown.example/cb', resolve)).to.equal(null);
  });

  it('refuses localhost through the system resolver', async () => {
    expect(await refusal('http://localhost:9/cb')).to.equal('NOT_ALLOWED');
    expect(await refusal('http://LOCALHOST./cb')).to.equal('NOT_ALLOWED');
    expect(await refusal('http://api.localhost/cb')).to.equal('NOT_ALLOWED');
  });

  it('ALLOW_PRIVATE_OUTBOUND lets every address through, but not other schemes', async () => {
    await checkOutboundUrl('http://127.0.0.1:9/cb', { allowPrivate: true });
    expect(parseOutboundUrl('http://[::1]/cb', true).hostname).to.equal('[::1]');
    expect(() => parseOutboundUrl('ftp://127.0.0.1/', true)).to.throw(OutboundUrlError);
  });
});

describe('outbound delivery: the connection connects only where it checked', () => {
  let server: http.Server;
  let port: number;
  const received: string[] = [];
  let answer = 200;
  before(async () => {
    server = http.createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      req.resume();
      if (answer === 302) res.writeHead(302, { Location: '/elsewhere' }).end();
      else res.writeHead(answer).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  beforeEach(() => {
    received.length = 0;
    answer = 200;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('DNS rebinding: a name public when registered but loopback at delivery is refused, and nothing connects', async () => {
    const dns = fakeDns({ 'rebind.example': [['93.184.216.34'], ['127.0.0.1']] });
    const url = `http://rebind.example:${port}/cb`;
    await checkOutboundUrl(url, { allowPrivate: false, resolve: dns.resolve });

    const result = await postJson(url, '{}', { 'Content-Type': 'application/json' }, { allowPrivate: false, timeoutMs: 2000, resolve: dns.resolve });

    expect(result.ok).to.equal(false);
    expect(result.error).to.match(/not a public address/);
    expect(dns.asked.get('rebind.example')).to.equal(2);
    expect(received).to.deep.equal([]);
  });

  it('an IP literal is refused before connecting (no lookup is asked for it)', async () => {
    const dns = fakeDns({});
    const result = await postJson(`http://127.0.0.1:${port}/cb`, '{}', {}, { allowPrivate: false, timeoutMs: 2000, resolve: dns.resolve });
    expect(result.ok).to.equal(false);
    expect(dns.asked.size).to.equal(0);
    expect(received).to.deep.equal([]);
  });

  it('with private addresses allowed it delivers, and a redirect is a failed attempt, not followed', async () => {
    const dns = fakeDns({ 'receiver.example': ['127.0.0.1'] });
    const ok = await postJson(
      `http://receiver.example:${port}/cb`,
      '{"a":1}',
      { 'Content-Type': 'application/json' },
      { allowPrivate: true, timeoutMs: 2000, resolve: dns.resolve },
    );
    expect(ok).to.deep.equal({ ok: true, status: 200, error: null });

    answer = 302;
    const redirected = await postJson(`http://127.0.0.1:${port}/cb`, '{}', {}, { allowPrivate: true, timeoutMs: 2000 });
    expect(redirected.ok).to.equal(false);
    expect(redirected.status).to.equal(302);
    expect(received).to.deep.equal(['POST /cb', 'POST /cb']);
  });
});
