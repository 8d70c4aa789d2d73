// What the benchmark scripts share around their runs: integer options of the command line, and the
// service's REST API called with the benchmark's key.

/** The integer `--name` of parsed arguments (parseArgs), `fallback` when absent; at least `least`. */
export const integerOption = (args: ReadonlyMap<string, readonly string[]>, name: string, fallback: number, least = 1): number => {
  const value = Number(args.get(name)?.[0] ?? fallback);
  if (!Number.isInteger(value) || value < least) {
    throw new Error(`--${name} must be ${least === 1 ? 'a positive integer' : `an integer of at least ${least}`}`);
  }
  return value;
};

export interface ApiAnswer {
  readonly status: number;
  readonly headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the benchmarks read the members they asked for
  readonly body: any;
}

/** How long a call keeps retrying while the service sheds load (503 SERVICE_BUSY). */
const BUSY_PATIENCE_MS = 120_000;

/**
 * Calls the service at `baseUrl()` (read at each call: a restarted service has a new port) with `key`; a
 * status of 300 or more throws. A 503 (the service shedding load: "nothing was changed, try again
 * shortly") is tried again after its Retry-After, as a careful client does, for up to two minutes: a
 * benchmark that sets up thousands of accounts on a busy machine meets it.
 */
export const apiCaller =
  (baseUrl: () => string, key: string) =>
  async (method: string, route: string, body?: unknown): Promise<ApiAnswer> => {
    const giveUpAt = Date.now() + BUSY_PATIENCE_MS;
    for (;;) {
      const res = await fetch(`${baseUrl()}${route}`, {
        method,
        headers: { 'X-API-KEY': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (res.status === 503 && Date.now() < giveUpAt) {
        const seconds = Number(res.headers.get('retry-after'));
        await new Promise((resolve) => setTimeout(resolve, Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 250));
        continue;
      }
      if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`);
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
    }
  };

/**
 * Creates an account at the simulated venue's `loginServer` (a login of its own, named `alias` unless
 * given) and starts it unless `start` is false; answers its id. Issue 15 changes these members to the
 * reference's shapes in this one place.
 */
export const createBenchAccount = async (
  call: ReturnType<typeof apiCaller>,
  alias: string,
  options: { readonly loginServer?: string; readonly login?: string; readonly start?: boolean } = {},
): Promise<string> => {
  const created = await call('POST', '/accounts', {
    loginServer: options.loginServer ?? 'Bench-Demo',
    loginAccountNumber: options.login ?? alias,
    loginAccountPassword: 'bench',
    type: { id: 1 },
    region: { id: 2 },
    alias,
  });
  const id = created.body.id as string;
  if (options.start !== false) await call('POST', `/accounts/${id}/actions/start`);
  return id;
};
