// Load benchmark (issue 13, item 7): does trading stay responsive under a flood of reads? autocannon
// keeps CONNECTIONS connections busy on GET /accounts/{accountId} while a trader opens a master
// position every 500 ms; one slave copies it. Run twice, with the bounded request lanes of
// api/availability.ts off (LOAD_SHEDDING=false) and on, the service in a child process (npm start's
// script, embedded PostgreSQL). Reported: reads answered per second, their p99, how many were shed
// (503 [SERVICE_BUSY]), the master trade's answer time p50/p99, and the copy latency (venue time of
// the slave's fill minus the master's).
//
//   npm run bench:load [-- --connections 2000 --seconds 20 --trade-every-ms 500] [--database-url postgres://...] [--out bench-results]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { runningEmbeddedPostgres } from '../../store/postgres/embedded.js';
import { parseArgs } from '../support/connect.js';
import { type ListeningProcess, startListening } from './support/listening.js';
import { apiCaller, createBenchAccount, integerOption } from './support/options.js';
import { serverVersion, startBenchServer } from './support/postgres.js';
import { machine, percentile, publish, round } from './support/report.js';

const args = parseArgs(process.argv.slice(2), ['connections', 'seconds', 'trade-every-ms', 'database-url', 'out']);
const CONNECTIONS = integerOption(args, 'connections', 2000);
const SECONDS = integerOption(args, 'seconds', 20);
const TRADE_EVERY_MS = integerOption(args, 'trade-every-ms', 500);
const OUT = args.get('out')?.[0] ?? 'bench-results';
const KEY = 'bench-key-0123456789abcdef-load-shedding';
/** What a trader can live with: the answer to a master's trade within a second. */
const TRADE_P99_BUDGET_MS = 1000;

interface Run {
  readonly shedding: 'off' | 'on';
  readonly readsPerSec: number;
  readonly readP99Ms: number;
  readonly shed: number;
  readonly otherErrors: number;
  readonly trades: number;
  readonly tradeP50Ms: number;
  readonly tradeP99Ms: number;
  readonly copyP50Ms: number | null;
  readonly copyP99Ms: number | null;
}

/** The trader: one master open every TRADE_EVERY_MS for SECONDS, each timed to its answer; the times of those answered. */
const trade = async (url: string, master: string, shedding: boolean): Promise<number[]> => {
  const tradeMs: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  let n = 0;
  while (performance.now() < until) {
    const started = performance.now();
    const res = await fetch(`${url}/accounts/${master}/positions`, {
      method: 'POST',
      headers: { 'X-API-KEY': KEY, 'content-type': 'application/json', 'Idempotency-Key': `load-${shedding}-${n}` },
      body: JSON.stringify({
        symbol: 'BTCUSD',
        orderType: 'Buy',
        volume: 0.01,
        openPrice: 0,
        stopLoss: 0,
        takeProfit: 0,
        requestId: n % 1000,
        comment: `load-${n}`,
      }),
    }).catch(() => null);
    await res?.text();
    if (res?.status === 204) tradeMs.push(performance.now() - started);
    n += 1;
    await new Promise((r) => setTimeout(r, Math.max(0, TRADE_EVERY_MS - (performance.now() - started))));
  }
  return tradeMs;
};

/** Copy latency from the venue's own times, read once the flood is over (and its queue drained): slave open - master open, sorted. */
const copyLatencies = async (api: ReturnType<typeof apiCaller>, master: string, slave: string): Promise<number[]> => {
  const book = async (accountId: string): Promise<{ comment: string; openTime: string }[]> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await api('GET', `/accounts/${accountId}/positions`)).body as { comment: string; openTime: string }[];
      } catch (error) {
        if (attempt >= 100) throw error;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  await new Promise((r) => setTimeout(r, 2000));
  const masterBook = await book(master);
  const slaveBook = await book(slave);
  const openedAt = new Map(masterBook.map((p) => [p.comment, Date.parse(p.openTime)]));
  return slaveBook
    .filter((p) => openedAt.has(p.comment))
    .map((p) => Date.parse(p.openTime) - openedAt.get(p.comment)!)
    .sort((a, b) => a - b);
};

const once = async (shedding: boolean, databaseUrl: string | null): Promise<{ run: Run; postgres: string | null }> => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ct-bench-load-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    BOOTSTRAP_API_KEY: KEY,
    LOG_LEVEL: 'error',
    LOAD_SHEDDING: String(shedding),
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  let service: ListeningProcess | null = null;
  try {
    service = await startListening('scripts/start.ts', [], env, { ready: 'Stop with Ctrl+C' });
    const url = service.url;
    const api = apiCaller(() => url, KEY);
    const account = (alias: string) => createBenchAccount(api, alias, { loginServer: 'Load-Demo', login: `${alias}-${shedding}` });
    const master = await account('load-master');
    const slave = await account('load-slave');
    await api('POST', `/accounts/${slave}/copiers`, { fromAccountId: master });

    const flood = autocannon({ url: `${url}/accounts/${master}`, connections: CONNECTIONS, duration: SECONDS, headers: { 'X-API-KEY': KEY }, workers: 1 });
    const tradeMs = await trade(url, master, shedding);
    const result = await flood;
    const copyMs = await copyLatencies(api, master, slave);
    tradeMs.sort((a, b) => a - b);
    const serviceDatabase = databaseUrl ?? runningEmbeddedPostgres(dataDir);
    const postgres = serviceDatabase ? await serverVersion(serviceDatabase).catch(() => null) : null;
    const shed = result.statusCodeStats?.['503']?.count ?? 0;
    return {
      postgres,
      run: {
        shedding: shedding ? 'on' : 'off',
        readsPerSec: Math.round(result.requests.average),
        readP99Ms: round(result.latency.p99),
        shed,
        otherErrors: result.errors + result.non2xx - shed,
        trades: tradeMs.length,
        tradeP50Ms: round(percentile(tradeMs, 50)),
        tradeP99Ms: round(percentile(tradeMs, 99)),
        copyP50Ms: copyMs.length ? round(percentile(copyMs, 50)) : null,
        copyP99Ms: copyMs.length ? round(percentile(copyMs, 99)) : null,
      },
    };
  } finally {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

const main = async (): Promise<void> => {
  console.log(
    `Load: ${CONNECTIONS} connections on GET /accounts/{accountId} for ${SECONDS} s, a master trade every ${TRADE_EVERY_MS} ms, shedding off then on`,
  );
  const external = args.get('database-url')?.[0] ? await startBenchServer(args.get('database-url')![0]) : null;
  try {
    const runs: Run[] = [];
    let postgres: string | null = null;
    for (const shedding of [false, true]) {
      console.log(`  shedding ${shedding ? 'on' : 'off'} ...`);
      const measured = await once(shedding, external ? await external.database(`load_${shedding ? 'on' : 'off'}`) : null);
      runs.push(measured.run);
      postgres ??= measured.postgres;
    }
    const [off, on] = runs as [Run, Run];
    publish(
      {
        name: 'load',
        machine: machine(postgres),
        results: runs.map((r) => ({ ...r, connections: CONNECTIONS, seconds: SECONDS })),
        // Better when higher: how many times faster a master's trade is answered with shedding on.
        ratios: {
          'trade p99 off/on': round(off.tradeP99Ms / Math.max(on.tradeP99Ms, 0.001)),
          'read p99 off/on': round(off.readP99Ms / Math.max(on.readP99Ms, 0.001)),
        },
        ofLimit: { [`trade p99 budget ${TRADE_P99_BUDGET_MS} ms / on`]: round(TRADE_P99_BUDGET_MS / Math.max(on.tradeP99Ms, 0.001)) },
      },
      OUT,
      `Load shedding: ${CONNECTIONS} connections of reads, ${SECONDS} s, a master trade every ${TRADE_EVERY_MS} ms`,
    );
  } finally {
    await external?.stop();
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
