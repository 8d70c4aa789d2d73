// One HTTP POST attempt to a client's URL, with the outbound guard of outboundUrl.ts: IP literals are
// checked before connecting, names inside the connection's lookup. Receivers are untrusted (OWASP
// API10): their body is never read beyond draining it, redirects are not followed, and every attempt
// has a deadline.
import http from 'node:http';
import https from 'node:https';
import { guardedLookup, hostOf, OutboundUrlError, parseOutboundUrl, type Resolver } from './outboundUrl.js';

export interface AttemptResult {
  /** Any 2xx acknowledges; everything else (3xx included) is a failed attempt. */
  readonly ok: boolean;
  readonly status: number | null;
  readonly error: string | null;
}

export interface SendOptions {
  readonly allowPrivate: boolean;
  readonly timeoutMs: number;
  readonly resolve?: Resolver;
}

export const postJson = (rawUrl: string, body: string, headers: Readonly<Record<string, string>>, options: SendOptions): Promise<AttemptResult> =>
  new Promise((resolve) => {
    let url: URL;
    try {
      url = parseOutboundUrl(rawUrl, options.allowPrivate);
    } catch (error) {
      resolve({ ok: false, status: null, error: error instanceof OutboundUrlError ? error.message : String(error) });
      return;
    }
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
    };
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: hostOf(url),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        // A fresh connection per attempt, so every attempt resolves (and checks) the name again.
        agent: false,
        lookup: guardedLookup(options.allowPrivate, options.resolve) as unknown as http.RequestOptions['lookup'],
        ...(url.protocol === 'https:' ? { servername: hostOf(url) } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        res.on('error', () => undefined);
        finish({ ok: status >= 200 && status < 300, status, error: status >= 200 && status < 300 ? null : `answered ${status}` });
      },
    );
    const deadline = setTimeout(() => {
      req.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => finish({ ok: false, status: null, error: error.message || error.code || 'request failed' }));
    req.end(body);
  });
