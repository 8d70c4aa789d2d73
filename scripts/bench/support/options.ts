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

/** Calls the service at `baseUrl()` (read at each call: a restarted service has a new port) with `key`; a status of 300 or more throws. */
export const apiCaller =
  (baseUrl: () => string, key: string) =>
  async (method: string, route: string, body?: unknown): Promise<ApiAnswer> => {
    const res = await fetch(`${baseUrl()}${route}`, {
      method,
      headers: { 'X-API-KEY': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`);
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
