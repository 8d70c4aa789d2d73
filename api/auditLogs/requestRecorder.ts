// Records every authenticated API request that may change something (POST, PUT, DELETE) for the audit
// log's request view (the reference's AuditLogDTO: endpoint, statusCode, success, durationMs, ipAddress,
// userAgent, serverHost, queryString, request headers and body, the error answer, sizes). Recording never
// slows or fails a request: the record is made when the answer has been sent, queued in memory (at most
// MAX_QUEUED; beyond that records are dropped and a warning says how many) and written in batches by one
// writer a few times a second; a failed write is logged and its records dropped. A graceful stop writes
// what is still queued (stop(), called by the composition root after the HTTP server closed and before
// the database does); only a crash loses the last fraction of a second. Secrets never reach the queue:
// the API key header, authorization, cookies and every member or query parameter whose name says
// password, secret, token, key or credential are masked, in headers, queries and bodies, at any depth.
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Services } from '../../app/services.js';
import { type ApiRequestRow, insertApiRequests } from '../../projections/auditLogs/requests.js';
import type { Caller } from '../route.js';

export const MAX_QUEUED = 10_000;
const BATCH = 500;
const INTERVAL_MS = 100;
/** Bodies longer than this are kept cut, with a mark (the sizes stay exact). */
const MAX_BODY_CHARS = 64 * 1024;
const RECORDED_METHODS = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);
export const MASK = '********';

/** Names of members and headers whose values are secrets. */
const SECRET_NAME = /pass(word|phrase)?$|password|secret|token|api[-_]?key|^key$|authori[sz]ation|credential|cookie|signature|private/i;
const SECRET_HEADERS = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-account-api-key']);
const MAX_DEPTH = 64;

/** A copy of a parsed JSON body with every secret member's value replaced by the mask. */
export const maskSecrets = (value: unknown, depth = 0): unknown => {
  if (depth > MAX_DEPTH) return MASK;
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, depth + 1));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_NAME.test(k) && v !== null && typeof v !== 'boolean' ? MASK : maskSecrets(v, depth + 1);
  return out;
};

/** The request headers as a JSON object, secrets masked. */
export const maskedHeaders = (headers: Request['headers']): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    out[lower] = SECRET_HEADERS.has(lower) || SECRET_NAME.test(lower) ? MASK : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
};

const decoded = (text: string): string => {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
};

/** The query string with the value of every parameter whose name says a secret masked. */
export const maskedQuery = (query: string): string =>
  query
    .split('&')
    .map((pair) => {
      const at = pair.indexOf('=');
      const name = at === -1 ? pair : pair.slice(0, at);
      return at !== -1 && SECRET_NAME.test(decoded(name)) ? `${name}=${MASK}` : pair;
    })
    .join('&');

const cut = (text: string): string => (text.length > MAX_BODY_CHARS ? `${text.slice(0, MAX_BODY_CHARS)}…[cut]` : text);
const ACCOUNT_IN_PATH = /\/accounts\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\/|$)/i;

export class RequestRecorder {
  private queue: ApiRequestRow[] = [];
  private writing: Promise<void> | null = null;
  private dropped = 0;
  private readonly host = os.hostname();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly services: Pick<Services, 'db' | 'log' | 'clock'>) {
    this.timer = setInterval(() => void this.flush(), INTERVAL_MS);
    this.timer.unref();
  }

  /** The middleware: after authentication (it records only callers with a project), before the routes. */
  readonly middleware: RequestHandler = (req, res, next) => {
    if (!RECORDED_METHODS.has(req.method)) {
      next();
      return;
    }
    const requestId = randomUUID();
    res.locals.requestId = requestId;
    const receivedAt = this.services.clock();
    const started = process.hrtime.bigint();
    let answered: unknown;
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      answered = body;
      return json(body);
    };
    res.once('finish', () => {
      try {
        this.record(req, res, { requestId, receivedAt, durationMs: Number((process.hrtime.bigint() - started) / 1_000_000n), answered });
      } catch (error) {
        this.services.log.warn(`audit: a request could not be recorded: ${String(error)}`);
      }
    });
    next();
  };

  private record(req: Request, res: Response, r: { requestId: string; receivedAt: Date; durationMs: number; answered: unknown }): void {
    const caller = res.locals.caller as Caller | undefined;
    if (!caller) return;
    if (this.queue.length >= MAX_QUEUED) {
      if (this.dropped++ === 0) this.services.log.warn(`audit: ${MAX_QUEUED} requests wait to be recorded; further ones are dropped until they are written`);
      return;
    }
    const [endpoint, query] = req.originalUrl.split('?', 2) as [string, string | undefined];
    const failed = res.statusCode >= 400;
    const body = req.body as unknown;
    const hasBody = body !== undefined && !(typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
    const error = failed && r.answered && typeof r.answered === 'object' ? (r.answered as { message?: unknown }).message : undefined;
    this.queue.push({
      request_id: r.requestId,
      project_id: caller.projectId,
      account_id: ACCOUNT_IN_PATH.exec(endpoint)?.[1]?.toLowerCase() ?? caller.accountId,
      api_key_id: caller.apiKeyId,
      method: req.method,
      endpoint,
      query_string: query === undefined ? null : maskedQuery(query),
      status_code: res.statusCode,
      duration_ms: r.durationMs,
      ip_address: req.ip ?? null,
      user_agent: req.get('user-agent') ?? null,
      server_host: this.host,
      request_headers: JSON.stringify(maskedHeaders(req.headers)),
      request_body: hasBody ? cut(JSON.stringify(maskSecrets(body))) : null,
      request_body_size: Number(req.get('content-length') ?? 0) || 0,
      // As the reference: the answer only of a failed request.
      response_body: failed && r.answered !== undefined ? cut(JSON.stringify(maskSecrets(r.answered))) : null,
      response_body_size: Number(res.getHeader('content-length') ?? 0) || 0,
      error_message: typeof error === 'string' ? error : null,
      received_at: r.receivedAt,
    });
  }

  /** Writes everything queued so far (the audit log's reads wait for it: what this instance answered is listed). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.queue.length === 0) return;
    this.writing = this.write().finally(() => {
      this.writing = null;
    });
    await this.writing;
  }

  private async write(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0, BATCH);
      try {
        await insertApiRequests(this.services.db, batch);
      } catch (error) {
        this.services.log.warn(`audit: ${batch.length} request records could not be written and are dropped: ${String(error)}`);
      }
    }
    if (this.dropped) {
      this.services.log.warn(`audit: ${this.dropped} request records were dropped while the queue was full`);
      this.dropped = 0;
    }
  }

  /** Graceful stop: no more periodic writes; what is still queued is written now (the database is still open). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

const recorders = new WeakMap<object, RequestRecorder>();

/** Writes what the service's recorder still holds and stops it (a graceful stop); nothing when it never recorded. */
export const stopRecorder = async (services: Services): Promise<void> => {
  const recorder = recorders.get(services);
  if (!recorder) return;
  recorders.delete(services);
  await recorder.stop();
};

/** The recorder of a running service: one per Services, made at first use (the app's middleware or an audit read). */
export const recorderOf = (services: Services): RequestRecorder => {
  let recorder = recorders.get(services);
  if (!recorder) {
    recorder = new RequestRecorder(services);
    recorders.set(services, recorder);
  }
  return recorder;
};
