// A started service for end-to-end specs: real HTTP on a free port, a fresh database on the shared
// embedded PostgreSQL, a known project key, and helpers to call it.
import { issueProjectKey, ensureProject } from '../../app/bootstrap.js';
import { loadConfig } from '../../app/config.js';
import { silentLogger } from '../../app/logger.js';
import { type RunningService, startService } from '../../app/service.js';
import { httpLayer } from '../../api/httpLayer.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { checkReference, checkResponse } from './contract.js';
import { freshDatabase } from './postgres.js';
import { tempDir } from './tempDirs.js';

export const TEST_KEY = 'test-key-0123456789abcdef-project-one';

export interface TestService {
  readonly service: RunningService;
  readonly url: string;
  readonly key: string;
  readonly databaseUrl: string;
  readonly dataDir: string;
  call(method: string, route: string, options?: CallOptions): Promise<TestResponse>;
  stop(): Promise<void>;
}

export interface CallOptions {
  readonly body?: unknown;
  /** Sent as is (for malformed JSON). */
  readonly rawBody?: string;
  readonly key?: string | null;
  readonly headers?: Record<string, string>;
  /** Default true: the response must match the route's OpenAPI declaration. */
  readonly checkContract?: boolean;
  /**
   * The key's access policy hides members as null (the spec's rule, over the reference's types): the
   * answer is checked against the reference without its null members.
   */
  readonly hiddenAsNull?: boolean;
  /**
   * Why this exchange goes beyond the reference on purpose: a request with an extension of ours the
   * route documents (null removing a member), or an answer the spec 1.2.6 shapes otherwise (an access
   * policy hiding members the reference requires). It is not checked against the reference; it still
   * is against our own document. A spec of the reference's behaviour never sets it.
   */
  readonly beyondReference?: string;
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read response bodies freely
  readonly body: any;
}

/** A copy without the members whose value is null, at any depth. */
const withoutNulls = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
};

export const callService = async (baseUrl: string, defaultKey: string, method: string, route: string, options: CallOptions = {}): Promise<TestResponse> => {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? defaultKey : options.key;
  if (key !== null) headers['X-API-KEY'] = key;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${baseUrl}${route}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text
  }
  if (options.checkContract !== false) {
    checkResponse(method, route, res.status, parsed);
    if (options.beyondReference === undefined) {
      checkReference(method, route, res.status, body === undefined ? undefined : options.body, options.hiddenAsNull ? withoutNulls(parsed) : parsed);
    }
  }
  return { status: res.status, headers: res.headers, body: parsed };
};

/** Starts the service on a fresh database (or the given one, to test a restart). */
export const startTestService = async (
  options: {
    databaseUrl?: string;
    dataDir?: string;
    clock?: () => Date;
    openRetryIntervalMs?: number;
    /** More configuration variables (ALLOW_PRIVATE_OUTBOUND, OPERATOR_DOMAIN, TRUSTED_PROXIES...). */
    env?: Record<string, string>;
    venueTicker?: boolean;
  } = {},
): Promise<TestService> => {
  const databaseUrl = options.databaseUrl ?? (await freshDatabase());
  const dataDir = options.dataDir ?? tempDir('ct-test-data-');
  // No sample calendar week unless a spec asks for it (CALENDAR_SAMPLE_WEEK): its events would be in every spec's store.
  const config = loadConfig({
    CALENDAR_SAMPLE_WEEK: 'false',
    // No spec reaches outside the machine: the white-label DNS check asks a closed local port unless a spec runs its own DNS server.
    WHITE_LABEL_DNS_SERVERS: '127.0.0.1:9',
    ...options.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    BOOTSTRAP_API_KEY: TEST_KEY,
  });
  const service = await startService(config, {
    http: httpLayer,
    log: silentLogger,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.venueTicker !== undefined ? { venueTicker: options.venueTicker } : {}),
    ...(options.openRetryIntervalMs ? { openRetryIntervalMs: options.openRetryIntervalMs } : {}),
  });
  return {
    service,
    url: service.url,
    key: TEST_KEY,
    databaseUrl,
    dataDir,
    call: (method, route, callOptions) => callService(service.url, TEST_KEY, method, route, callOptions),
    stop: () => service.stop(),
  };
};

/** A second project with its own project-level key, for isolation tests. */
export const createOtherProject = async (t: TestService, projectId: string, key: string): Promise<void> => {
  if (projectId === DEFAULT_PROJECT_ID) throw new Error('pick another project id');
  await ensureProject(t.service.services, projectId, 'Other project');
  await issueProjectKey(t.service.services, projectId, key, 'other project key');
};

export const validAccount = (overrides: Record<string, unknown> = {}) => ({
  loginServer: 'Demo-Server-01',
  loginAccountNumber: '5001234',
  loginAccountPassword: 'secret-password',
  type: { id: 1 },
  region: { id: 2 },
  alias: 'Main account',
  ...overrides,
});

/**
 * A PUT /accounts/{accountId} body as a reference client sends it: the members the reference requires
 * (loginServer, type, region as the account has them, loginAccountPassword "" to keep the password),
 * then the changes. `account` is the account as answered, or the creation body it was made with.
 */
export const accountUpdate = (account: object, changes: Record<string, unknown> = {}) => {
  const { loginServer, type, region } = account as { loginServer: string; type: { id: number }; region: { id: number } };
  return { loginServer, loginAccountPassword: '', type: { id: type.id }, region: { id: region.id }, ...changes };
};

const STATUS_NAMES = { 1: 'New', 2: 'Active', 3: 'Stopped', 4: 'Deleted' } as const;

/** The members of an AccountDTO that tell its status (1 New, 2 Active, 3 Stopped, 4 Deleted). */
export const accountStatus = (id: 1 | 2 | 3 | 4) => ({ status: { id, name: STATUS_NAMES[id] }, statusMessage: STATUS_NAMES[id] });

/**
 * `account` (an AccountDTO as answered) in another status after start, stop or delete: the status
 * members, and its accountInformation's status and connected (only an Active account has a session).
 */
export const withStatus = <T extends object>(account: T, id: 1 | 2 | 3 | 4) => ({
  ...account,
  ...accountStatus(id),
  accountInformation: { ...((account as { accountInformation?: object }).accountInformation ?? {}), status: STATUS_NAMES[id], connected: id === 2 },
});

/**
 * Runs `body` while the customers read model (projections/customers) holds `projectId` as a blocked
 * customer's project, the row written directly: nothing else changes (no event, the read models' stamp
 * stays), so a spec sees exactly what reading the block with a key does. The row is gone afterwards.
 */
export const whileCustomerBlocked = async (t: TestService, projectId: string, body: () => Promise<void>): Promise<void> => {
  const db = t.service.services.db.withTables<{
    customer_projects: { project_id: string; customer_id: number; brand_feature_id: string; blocked: boolean; created: Date };
  }>();
  await db
    .insertInto('customer_projects')
    .values({ project_id: projectId, customer_id: 1, brand_feature_id: crypto.randomUUID(), blocked: true, created: new Date() })
    .execute();
  try {
    await body();
  } finally {
    await db.deleteFrom('customer_projects').where('project_id', '=', projectId).execute();
  }
};
