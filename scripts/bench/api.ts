// API throughput benchmark (item 5 of the benchmark issue): autocannon, 50 connections, on
// GET /accounts/{accountId} and GET /accounts (1,000 accounts), against our service (npm start's
// script in a child process, embedded PostgreSQL) and against the limit: a bare express route in
// another child process that answers the same JSON from memory (api/bareServer.ts). Runs alternate
// between the two (rotating order) and a ratio is taken within each run; figures are medians.
//
//   npm run bench:api [-- --accounts 1000 --connections 50 --seconds 5 --warm-up-seconds 2 --runs 3]
//     [--database-url postgres://...] [--out bench-results] [--cpu-prof-dir DIR]
// prints a table and writes bench-results/api.json; with --cpu-prof-dir the service is restarted under
// node --cpu-prof once the accounts exist, so its profile (written when it stops) covers the load runs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { runningEmbeddedPostgres } from '../../store/postgres/embedded.js';
import { parseArgs } from '../support/connect.js';
import { type ListeningProcess, startListening } from './support/listening.js';
import { serverVersion, startBenchServer } from './support/postgres.js';
import { apiCaller, integerOption } from './support/options.js';
import { progress } from './support/progress.js';
import { machine, median, publish, round } from './support/report.js';

const args = parseArgs(process.argv.slice(2), ['accounts', 'connections', 'seconds', 'warm-up-seconds', 'runs', 'database-url', 'out', 'cpu-prof-dir']);
const option = (name: string, fallback: number, least = 1): number => integerOption(args, name, fallback, least);
const ACCOUNTS = option('accounts', 1000);
const CONNECTIONS = option('connections', 50);
const SECONDS = option('seconds', 5);
const RUNS = option('runs', 3);
/** A first, unrecorded load of each endpoint and target: JIT, pools and caches warm up. */
const WARM_UP_SECONDS = option('warm-up-seconds', 2, 0);
const OUT = args.get('out')?.[0] ?? 'bench-results';
/** Where the service writes a V8 CPU profile of the whole benchmark (node --cpu-prof), if anywhere. */
const PROFILE = args.get('cpu-prof-dir')?.[0];
const KEY = 'bench-key-0123456789abcdef-api-throughput';

interface Target {
  readonly name: 'ours' | 'bare express';
  readonly server: ListeningProcess;
}

/**
 * One load: answers per second counts 2xx answers only. A refusal (503 [SERVICE_BUSY] when the machine is
 * so loaded that a read waits for its slot longer than the service lets it) is counted, named with its
 * status in a warning and in the results, not a reason to lose the whole run (on 2026-11-27, under load,
 * a list load answered 5 such refusals and the bench stopped after creating its 1,000 accounts);
 * connection errors, or no 2xx answer at all, still are.
 */
const load = async (url: string, seconds: number) => {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers: { 'X-API-KEY': KEY } });
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, { count }]) => `${count} × ${status}`)
    .join(', ');
  const failure = `${url}: ${result.errors} errors and ${result.non2xx} non-2xx answers (${statuses || 'none'}) of ${result.requests.total}`;
  if (result.errors > 0 || result['2xx'] === 0) throw new Error(failure);
  if (result.non2xx > 0) console.warn(`  warning: ${failure}; answers per second count the 2xx only`);
  return { reqPerSec: result['2xx'] / result.duration, p99Ms: result.latency.p99, refused: result.non2xx };
};

/**
 * Waits until the target answers a request of its own again. A load's last requests go on being made
 * after autocannon closed their connections (50 lists of 1,000 accounts are 50 JSON.stringify calls
 * of 2 MB each for the bare route): without this, the next target or endpoint measured would share the
 * cores with that tail, and on a loaded machine a bare route measured right after its own list answered
 * nothing in 5 s (0 req/s, 2026-11-26).
 */
const settle = async (url: string): Promise<void> => {
  const response = await fetch(url, { headers: { 'X-API-KEY': KEY } });
  await response.arrayBuffer();
};

interface Endpoint {
  readonly label: string;
  readonly route: string;
}

/** `ACCOUNTS` accounts, created 16 requests at a time; returns their ids. */
const createAccounts = async (call: (method: string, route: string, body?: unknown) => Promise<unknown>): Promise<string[]> => {
  const bar = progress(`creating ${ACCOUNTS} accounts`, ACCOUNTS);
  const ids: string[] = [];
  let next = 0;
  const creator = async () => {
    while (next < ACCOUNTS) {
      const n = next++;
      const created = (await call('POST', '/accounts', {
        loginServer: 'Bench-Demo',
        loginAccountNumber: String(700000 + n),
        loginAccountPassword: 'bench-secret',
        type: { id: 1 + (n % 5) },
        region: { id: 2 },
        alias: `bench account ${n}`,
      })) as { id: string };
      ids.push(created.id);
      bar.increment();
    }
  };
  await Promise.all(Array.from({ length: 16 }, creator));
  bar.stop();
  return ids;
};

/** A first, unrecorded load of each endpoint and target, then RUNS recorded ones, alternating the targets' order. */
const loadRuns = async (targets: readonly Target[], endpoints: readonly Endpoint[]) => {
  const runBar = progress('load runs', endpoints.length * targets.length * (RUNS + (WARM_UP_SECONDS ? 1 : 0)));
  if (WARM_UP_SECONDS) {
    for (const endpoint of endpoints) {
      for (const target of targets) {
        await load(`${target.server.url}${endpoint.route}`, WARM_UP_SECONDS);
        await settle(`${target.server.url}${endpoints[0]!.route}`);
        runBar.increment();
      }
    }
  }
  const figures = new Map<string, { reqPerSec: number[]; p99Ms: number[]; refused: number }>();
  const ofLimit = new Map<string, number[]>();
  const record = (key: string, value: number) => ofLimit.set(key, [...(ofLimit.get(key) ?? []), value]);
  for (let run = 0; run < RUNS; run++) {
    for (const endpoint of endpoints) {
      const order = run % 2 ? [...targets].reverse() : targets;
      const measured = new Map<string, { reqPerSec: number; p99Ms: number; refused: number }>();
      for (const target of order) {
        const result = await load(`${target.server.url}${endpoint.route}`, SECONDS);
        await settle(`${target.server.url}${endpoints[0]!.route}`);
        measured.set(target.name, result);
        const key = `${endpoint.label}\t${target.name}`;
        const entry = figures.get(key) ?? { reqPerSec: [], p99Ms: [], refused: 0 };
        entry.reqPerSec.push(result.reqPerSec);
        entry.p99Ms.push(result.p99Ms);
        entry.refused += result.refused;
        figures.set(key, entry);
        runBar.increment();
      }
      const ours = measured.get('ours')!;
      const limit = measured.get('bare express')!;
      record(`${endpoint.label}: req/s ours/bare express`, ours.reqPerSec / limit.reqPerSec);
      // Latency is better when lower: bare p99 / our p99, so 1 still means we reach the limit.
      record(`${endpoint.label}: p99 bare express/ours`, limit.p99Ms / ours.p99Ms);
    }
  }
  runBar.stop();
  return { figures, ofLimit };
};

const main = async (): Promise<void> => {
  console.log(`API throughput: autocannon, ${CONNECTIONS} connections, ours vs a bare express route`);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ct-bench-api-'));
  const databaseUrl = args.get('database-url')?.[0];
  // The embedded server of our own when none is given: the service then starts it under DATA_DIR.
  const external = databaseUrl ? await startBenchServer(databaseUrl) : null;
  const servers: ListeningProcess[] = [];
  try {
    const env: Record<string, string> = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_API_KEY: KEY, LOG_LEVEL: 'warn' };
    if (external) env.DATABASE_URL = await external.database('api');
    console.log("  starting the service (npm start's script, embedded PostgreSQL) ...");
    const startOurs = (nodeOptions: readonly string[] = []) => startListening('scripts/start.ts', [], env, { ready: 'Stop with Ctrl+C', nodeOptions });
    let ours = await startOurs();
    servers.push(ours);
    const api = apiCaller(() => ours.url, KEY);
    const call = async (method: string, route: string, body?: unknown): Promise<unknown> => (await api(method, route, body)).body;

    const ids = await createAccounts(call);
    const accountId = ids[Math.floor(ids.length / 2)]!;
    const bodies = { account: await call('GET', `/accounts/${accountId}`), accounts: await call('GET', '/accounts') };
    if (!Array.isArray(bodies.accounts) || bodies.accounts.length !== ACCOUNTS) {
      throw new Error(`GET /accounts answered ${Array.isArray(bodies.accounts) ? bodies.accounts.length : 'no list of'} accounts, expected ${ACCOUNTS}`);
    }
    if (PROFILE) {
      // A profile of the load runs, not of creating the accounts: the same service, restarted profiled.
      await ours.stop();
      servers.splice(servers.indexOf(ours), 1);
      ours = await startOurs(['--cpu-prof', '--cpu-prof-dir', PROFILE]);
      servers.push(ours);
    }
    const bodiesFile = path.join(dataDir, 'bodies.json');
    writeFileSync(bodiesFile, JSON.stringify(bodies));
    const bare = await startListening('scripts/bench/api/bareServer.ts', [bodiesFile], {});
    servers.push(bare);
    const targets: Target[] = [
      { name: 'ours', server: ours },
      { name: 'bare express', server: bare },
    ];
    const endpoints: Endpoint[] = [
      { label: 'GET /accounts/{accountId}', route: `/accounts/${accountId}` },
      { label: `GET /accounts (${ACCOUNTS} accounts)`, route: '/accounts' },
    ];
    const { figures, ofLimit } = await loadRuns(targets, endpoints);

    const results = [...figures].map(([key, entry]) => {
      const [endpoint, target] = key.split('\t') as [string, string];
      return {
        endpoint,
        target,
        reqPerSec: Math.round(median(entry.reqPerSec)),
        p99Ms: round(median(entry.p99Ms)),
        connections: CONNECTIONS,
        seconds: SECONDS,
        runs: entry.reqPerSec.length,
        /** Non-2xx answers over the recorded runs (see load). */
        refused: entry.refused,
      };
    });
    const serviceDatabase = env.DATABASE_URL ?? runningEmbeddedPostgres(dataDir);
    const postgres = serviceDatabase ? await serverVersion(serviceDatabase) : null;
    publish(
      {
        name: 'api',
        machine: machine(postgres),
        results,
        ratios: {},
        ofLimit: Object.fromEntries([...ofLimit].map(([label, values]) => [label, round(median(values))])),
      },
      OUT,
      `API throughput: autocannon, ${CONNECTIONS} connections, ${SECONDS} s per run, median of ${RUNS} alternating runs`,
    );
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await external?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
