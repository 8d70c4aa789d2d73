// Copy latency and fan-out (item 4 of the benchmark issue): from a master fill to each slave order
// accepted by the venue, for 1, 10, 100 and 1,000 slaves on one master, and the time until the last
// slave order of the fan-out is placed. The whole service runs in this process on an embedded
// PostgreSQL, with the simulated venue; trades go through the REST API like a user's.
//
// Latency of one copy = venue time of the slave fill - venue time of the master fill. Both are the
// service clock's milliseconds, stamped by the venue, so neither HTTP nor the benchmark's own polling
// is counted. Fan-out completion = the latest slave fill of a master trade - the master fill. Each
// master trade is one run: p50/p99 are over every copy of every trade, the fan-out figures over trades.
// There is no peer to compare with and no limit to reach, so ratios and ofLimit stay empty.
//
//   npm run bench:copy-latency [-- --slaves 1,10,100,1000 --trades 20] [--database-url postgres://...] [--out bench-results]
// prints a table and writes bench-results/copyLatency.json.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../app/config.js';
import { silentLogger } from '../../app/logger.js';
import { startService } from '../../app/service.js';
import { httpLayer } from '../../api/httpLayer.js';
import type { CopyEvent } from '../../domain/copy/events.js';
import { parseArgs } from '../support/connect.js';
import { apiCaller, createBenchAccount } from './support/options.js';
import { type BenchServer, serverVersion, startBenchServer } from './support/postgres.js';
import { progress } from './support/progress.js';
import { machine, percentile, publish } from './support/report.js';

const args = parseArgs(process.argv.slice(2), ['slaves', 'trades', 'database-url', 'out']);
const FAN_OUTS = (args.get('slaves')?.[0] ?? '1,10,100,1000').split(',').map(Number);
const TRADES = Number(args.get('trades')?.[0] ?? '20');
if (FAN_OUTS.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(TRADES) || TRADES < 1) {
  throw new Error('--slaves takes positive integers separated by commas, --trades a positive integer');
}
const OUT = args.get('out')?.[0] ?? 'bench-results';
/** Fewer trades where one trade is a thousand copies. */
const tradesFor = (slaves: number): number => (slaves >= 1000 ? Math.max(3, Math.ceil(TRADES / 4)) : TRADES);
const KEY = 'bench-key-0123456789abcdef-copy-latency';
/** Forex markets close on weekends: the service's clock runs from a Wednesday 10:00 UTC. */
const CLOCK_START = Date.parse('2026-01-07T10:00:00.000Z');

type Service = Awaited<ReturnType<typeof startService>>;
type Call = ReturnType<typeof apiCaller>;
/** The copies of one master trade: when the master filled, and when each slave did (venue times). */
type Fill = { masterAt: number; slaveAt: number[] };

/** The whole service in this process, on a clock that starts on a weekday. */
const startBenchService = async (dataDir: string, external: BenchServer | null): Promise<Service> => {
  const offset = CLOCK_START - Date.now();
  const clock = () => new Date(Date.now() + offset);
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    BOOTSTRAP_API_KEY: KEY,
    READ_MODEL_WAIT_MS: '60000',
    ...(external ? { DATABASE_URL: await external.database('copy_latency') } : {}),
  });
  console.log(`starting the service (${external ? 'the PostgreSQL of --database-url' : 'embedded PostgreSQL'}, simulated venue) ...`);
  return startService(config, { http: httpLayer, log: silentLogger, clock });
};

/** Every CopyExecuted open from now on, by the master event that caused it, until `stop`. */
const collectFills = (service: Service): { fills: Map<string, Fill>; stop: () => Promise<void> } => {
  const fills = new Map<string, Fill>();
  const subscription = service.services.store.subscribeToAll({ fromPosition: 'end', filter: { streamNamePrefixes: ['copies-'] } });
  const collecting = (async () => {
    for await (const { event } of subscription) {
      const copy = event as unknown as CopyEvent;
      if (copy.type !== 'CopyExecuted' || copy.data.action.type !== 'open' || copy.data.result.type !== 'opened') continue;
      const entry = fills.get(copy.data.source.eventId) ?? { masterAt: Date.parse(copy.data.masterEventAt ?? ''), slaveAt: [] };
      entry.slaveAt.push(Date.parse(copy.data.result.time));
      fills.set(copy.data.source.eventId, entry);
    }
  })();
  return {
    fills,
    stop: async () => {
      await subscription.unsubscribe();
      await collecting;
    },
  };
};

/** Slaves (accounts copying `master`) added to `slaves` until there are `fanOut`, eight at a time. */
const addSlaves = async (call: Call, master: string, slaves: string[], fanOut: number): Promise<void> => {
  if (slaves.length >= fanOut) return;
  const bar = progress(`adding slaves up to ${fanOut}`, fanOut - slaves.length);
  const missing = fanOut - slaves.length;
  let next = 0;
  const worker = async () => {
    while (next < missing) {
      next += 1;
      const slave = await createBenchAccount(call, `bench-slave-${slaves.length + next}-${Math.random().toString(36).slice(2, 8)}`);
      await call('POST', `/accounts/${slave}/copiers`, { fromAccountId: master, multiplier: 1 });
      slaves.push(slave);
      bar.increment();
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  bar.stop();
};

/** Waits for every copy of trade `i` (the newest master event with `fanOut` copies) and marks it done. */
const copiesOf = async (fills: Map<string, Fill>, fanOut: number, i: number): Promise<Fill> => {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const entry = [...fills.values()].find((e) => e.slaveAt.length >= fanOut && !('done' in e));
    if (entry) return Object.assign(entry, { done: true });
    if (Date.now() > deadline) throw new Error(`the copies of trade ${i} did not arrive in 2 minutes`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

/** Trades sent so far, over every fan-out: the requestId of the next one (0 to 999, as a reference client counts). */
let tradesSent = 0;

/** The master trades `tradesFor(fanOut)` times; each trade's copies are timed, then it is closed. */
const measureFanOut = async (service: Service, call: Call, fills: Map<string, Fill>, master: string, fanOut: number): Promise<Record<string, number>> => {
  const latencies: number[] = [];
  const fanOutTimes: number[] = [];
  const trades = tradesFor(fanOut);
  const bar = progress(`${fanOut} slave${fanOut === 1 ? '' : 's'}: master trades`, trades);
  for (let i = 0; i < trades; i++) {
    // A PositionRequestDTO as a reference client sends it (requestId counts 0 to 999 and wraps): each
    // trade is a new request, over every fan-out, since the same requestId with the same body within two
    // minutes is a retry of the first (api/trading: requestId).
    const n = tradesSent++;
    await call('POST', `/accounts/${master}/positions`, {
      symbol: 'EURUSD',
      orderType: i % 2 ? 'Sell' : 'Buy',
      volume: 0.01,
      openPrice: 0,
      stopLoss: 0,
      takeProfit: 0,
      requestId: n % 1000,
      comment: `bench ${n}`,
    });
    const entry = await copiesOf(fills, fanOut, i);
    for (const at of entry.slaveAt) latencies.push(at - entry.masterAt);
    fanOutTimes.push(Math.max(...entry.slaveAt) - entry.masterAt);
    await call('POST', `/accounts/${master}/actions/closeAllPositions`);
    await service.services.engine.idle();
    bar.increment();
  }
  bar.stop();
  latencies.sort((a, b) => a - b);
  fanOutTimes.sort((a, b) => a - b);
  return {
    slaves: fanOut,
    trades,
    copies: latencies.length,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies[latencies.length - 1] ?? Number.NaN,
    fanOutP50Ms: percentile(fanOutTimes, 50),
    fanOutMaxMs: fanOutTimes[fanOutTimes.length - 1] ?? Number.NaN,
  };
};

const main = async (): Promise<void> => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ct-bench-copy-'));
  // With --database-url the service uses a database of its own on that server; else its embedded one.
  const databaseUrl = args.get('database-url')?.[0];
  const external = databaseUrl ? await startBenchServer(databaseUrl) : null;
  const service = await startBenchService(dataDir, external);
  const call = apiCaller(() => service.url, KEY);
  const collector = collectFills(service);

  const master = await createBenchAccount(call, 'bench-master');
  await service.services.venues.desk((venue) => venue.setQuote('EURUSD', { bid: 1.085, ask: 1.0851 }));
  const slaves: string[] = [];
  const results: Record<string, number>[] = [];
  for (const fanOut of FAN_OUTS) {
    await addSlaves(call, master, slaves, fanOut);
    results.push(await measureFanOut(service, call, collector.fills, master, fanOut));
  }

  await collector.stop();
  const postgres = await serverVersion(service.connectionString);
  await service.stop();
  await external?.stop();
  rmSync(dataDir, { recursive: true, force: true });

  publish(
    { name: 'copyLatency', machine: machine(postgres), results, ratios: {}, ofLimit: {} },
    OUT,
    'Copy latency: master fill -> slave order accepted by the venue (ms)',
  );
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
