// Copy latency and fan-out (item 4 of the benchmark issue): from a master fill to each slave order
// accepted by the venue, for 1, 10, 100 and 1,000 slaves on one master, and the time until the last
// slave order of the fan-out is placed. The whole service runs in this process on an embedded
// PostgreSQL, with the simulated venue; trades go through the REST API like a user's; the slaves are
// added through the service's use cases, hundreds in one turn of the project (copyLatencySeed.ts).
//
// Latency of one copy = venue time of the slave fill - venue time of the master fill. Both are the
// service clock's milliseconds, stamped by the venue, so neither HTTP nor the benchmark's own polling
// is counted. Fan-out completion = the latest slave fill of a master trade - the master fill. Each
// master trade is one run: p50/p99 are over every copy of every trade, the fan-out figures over trades.
// A fan-out splits into its first fill (master fill -> first slave fill: what the engine waits for
// before the first order) and its span (first -> last slave fill: the copiers decided and placed).
// There is no peer; ofLimit holds each figure against the target of issue 16 (target / ours: 1 or
// more meets it): p50 <= 3 ms with 1 slave, p50 <= 5 ms and p99 <= 25 ms with 100, the last of 1,000
// slaves filled <= 500 ms after the master.
//
// The soak: `--soak-slaves` slaves over `--soak-masters` masters (10,000 over 100), the masters trading
// together for `--soak-seconds` (60; 0 leaves the soak out) at `--soak-rate` master trades a second in
// all, each master opening a position and closing it at its next turn. Each second it samples the
// newest event of the store the engine reads; a sample's lag is how long after it was taken the engine had handled it with everything
// before it. It prints the newest lag known, the samples not handled yet, and the copies of that second;
// at the end, whether the backlog grows (the lag's least-squares slope over the second half is above
// 0.1 s per s and the last lag above 1 s) and how long the engine took to drain after the last trade;
// ofLimit holds both against those limits.
//
// Per fan-out size it also prints its slowest fan-outs (and the first) with the GC pauses inside each,
// and gcShareOfFanOuts: the share of all fan-out time spent in GC pauses (copyLatencyBreakdown.ts).
// --alloc-sample <bytes> samples allocations over a fan-out size's trades: bytesPerCopy, and a heap
// profile of where they go; it slows the run, so its latencies are not the bench's figures.
//
//   npm run bench:copy-latency [-- --slaves 1,10,100,1000 --trades 20] [--soak-slaves 10000 --soak-masters 100
//     --soak-seconds 60 --soak-rate 2] [--database-url postgres://...] [--out bench-results] [--alloc-sample 4096]
// prints a table and writes bench-results/copyLatency.json; a quick run: --slaves 1,100 --trades 10
// --soak-slaves 1000 --soak-masters 10 --soak-seconds 15. --slaves 0 leaves the fan-outs out.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { loadConfig } from '../../app/config.js';
import { silentLogger } from '../../app/logger.js';
import { startService } from '../../app/service.js';
import { httpLayer } from '../../api/httpLayer.js';
import { COPIER_STREAM_PREFIX } from '../../domain/copier/events.js';
import type { CopyEvent } from '../../domain/copy/events.js';
import { POSITIONS_STREAM_PREFIX } from '../../domain/positions/events.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { comparePositions, END, type EventStore, type Position } from '../../store/port.js';
import { AllocationSampling, describeFanOuts, type FanOutBreakdown, gcShareOf, heapProfileFile, watchGcPauses } from './copyLatencyBreakdown.js';
import { addCopiers, createStartedAccounts } from './copyLatencySeed.js';
import { parseArgs } from '../support/connect.js';
import { apiCaller, createBenchAccount, integerOption } from './support/options.js';
import { type BenchServer, serverVersion, startBenchServer } from './support/postgres.js';
import { progress } from './support/progress.js';
import { machine, percentile, publish, round } from './support/report.js';

/** The newest event at the head of `$all` in a stream whose name starts with one of `prefixes`. */
const newestIn = async (store: EventStore, ...prefixes: string[]): Promise<Position | null> => {
  for await (const { event } of store.readAll({ fromPosition: END, direction: 'backwards', maxCount: 2000 })) {
    if (prefixes.some((prefix) => event.streamId.startsWith(prefix))) return event.position;
  }
  return null;
};
/**
 * The newest event the copy engine reads (positions-* or copier-*): what its `handled` can wait for.
 * The head itself may be an event the engine never reads (an account log, a copy outcome), which it
 * would never report handled.
 */
const newestEngineEvent = (store: EventStore): Promise<Position | null> => newestIn(store, POSITIONS_STREAM_PREFIX, COPIER_STREAM_PREFIX);

const args = parseArgs(process.argv.slice(2), [
  'slaves',
  'trades',
  'soak-slaves',
  'soak-masters',
  'soak-seconds',
  'soak-rate',
  'database-url',
  'out',
  'alloc-sample',
  'heap-snapshots',
]);
const FAN_OUTS = (args.get('slaves')?.[0] ?? '1,10,100,1000')
  .split(',')
  .map(Number)
  .filter((n) => n !== 0);
const TRADES = Number(args.get('trades')?.[0] ?? '20');
if (FAN_OUTS.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(TRADES) || TRADES < 1) {
  throw new Error('--slaves takes positive integers separated by commas (0: none), --trades a positive integer');
}
const SOAK_SECONDS = integerOption(args, 'soak-seconds', 60, 0);
const SOAK_MASTERS = integerOption(args, 'soak-masters', 100);
const SOAK_SLAVES = integerOption(args, 'soak-slaves', 10_000);
const SOAK_RATE = Number(args.get('soak-rate')?.[0] ?? '2');
if (!(SOAK_RATE > 0)) throw new Error('--soak-rate takes a positive number of master trades a second');
const OUT = args.get('out')?.[0] ?? 'bench-results';
/** Bytes between allocation samples (--alloc-sample); 0: no sampling. */
const ALLOC_SAMPLE = integerOption(args, 'alloc-sample', 0, 0);
/**
 * Trades (1-based, of each fan-out size) after which a heap snapshot is written (--heap-snapshots 1,20):
 * OUT/copyLatency-<slaves>-<trade>.heapsnapshot, taken once the engine is idle (V8 collects first).
 */
const SNAPSHOT_AFTER = new Set(
  (args.get('heap-snapshots')?.[0] ?? '')
    .split(',')
    .filter((t) => t !== '')
    .map(Number),
);
if ([...SNAPSHOT_AFTER].some((t) => !Number.isInteger(t) || t < 1)) throw new Error('--heap-snapshots takes trade numbers (1 or more) separated by commas');
/** Fewer trades where one trade is a thousand copies. */
const tradesFor = (slaves: number): number => (slaves >= 1000 ? Math.max(3, Math.ceil(TRADES / 4)) : TRADES);
const KEY = 'bench-key-0123456789abcdef-copy-latency';
/** Forex markets close on weekends: the service's clock runs from a Wednesday 10:00 UTC. */
const CLOCK_START = Date.parse('2026-01-07T10:00:00.000Z');
/** The service's clock minus the real one (venue times are the service's; GC pauses the real clock's). */
const CLOCK_OFFSET = CLOCK_START - Date.now();

type Service = Awaited<ReturnType<typeof startService>>;
type Call = ReturnType<typeof apiCaller>;
/** The copies of one master trade: when the master filled, and when each slave did (venue times). */
type Fill = { masterAt: number; slaveAt: number[] };

/** The whole service in this process, on a clock that starts on a weekday. */
const startBenchService = async (dataDir: string, external: BenchServer | null): Promise<Service> => {
  const clock = () => new Date(Date.now() + CLOCK_OFFSET);
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

/** Slaves (accounts copying `master`) added to `slaves` until there are `fanOut` (copyLatencySeed.ts). */
const addSlaves = async (service: Service, call: Call, master: string, slaves: string[], fanOut: number): Promise<void> => {
  if (slaves.length >= fanOut) return;
  const { services } = service;
  const added = await createStartedAccounts(services, DEFAULT_PROJECT_ID, `bench-slave-from-${slaves.length + 1}`, fanOut - slaves.length);
  await addCopiers(
    services,
    DEFAULT_PROJECT_ID,
    added.map((slave) => ({ master, slave })),
  );
  slaves.push(...added);
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

/**
 * The master trades `tradesFor(fanOut)` times; each trade's copies are timed, then it is closed. Each
 * fan-out's GC pauses are taken from `gc`; with `sampling`, the bytes allocated over the trades.
 */
const measureFanOut = async (
  service: Service,
  call: Call,
  fills: Map<string, Fill>,
  master: string,
  fanOut: number,
  gc: ReturnType<typeof watchGcPauses>,
  sampling: AllocationSampling | null,
): Promise<Record<string, number>> => {
  const latencies: number[] = [];
  const fanOutTimes: number[] = [];
  const firstFills: number[] = [];
  const spans: number[] = [];
  const breakdown: FanOutBreakdown[] = [];
  const trades = tradesFor(fanOut);
  const bar = progress(`${fanOut} slave${fanOut === 1 ? '' : 's'}: master trades`, trades);
  await sampling?.start();
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
    const [first, last] = [Math.min(...entry.slaveAt), Math.max(...entry.slaveAt)];
    fanOutTimes.push(last - entry.masterAt);
    firstFills.push(first - entry.masterAt);
    spans.push(last - first);
    const pauses = gc.inWindow(entry.masterAt - CLOCK_OFFSET, last - CLOCK_OFFSET);
    breakdown.push({ trade: i, firstFillMs: first - entry.masterAt, lastFillMs: last - entry.masterAt, gc: pauses });
    await call('POST', `/accounts/${master}/actions/closeAllPositions`);
    await service.services.engine.idle();
    if (SNAPSHOT_AFTER.has(i + 1)) {
      mkdirSync(OUT, { recursive: true });
      writeHeapSnapshot(path.join(OUT, `copyLatency-${fanOut}-${i + 1}.heapsnapshot`));
    }
    bar.increment();
  }
  bar.stop();
  const allocated = sampling ? await sampling.stop(heapProfileFile(OUT, fanOut)) : null;
  for (const line of describeFanOuts(fanOut, breakdown)) console.log(line);
  const firstFanOut = fanOutTimes[0] ?? Number.NaN;
  latencies.sort((a, b) => a - b);
  for (const list of [fanOutTimes, firstFills, spans]) list.sort((a, b) => a - b);
  return {
    slaves: fanOut,
    trades,
    copies: latencies.length,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies[latencies.length - 1] ?? Number.NaN,
    fanOutP50Ms: percentile(fanOutTimes, 50),
    fanOutMaxMs: fanOutTimes[fanOutTimes.length - 1] ?? Number.NaN,
    firstFanOutMs: firstFanOut,
    firstFillP50Ms: percentile(firstFills, 50),
    spanP50Ms: percentile(spans, 50),
    gcShareOfFanOuts: round(gcShareOf(breakdown)),
    ...(allocated === null ? {} : { bytesPerCopy: Math.round(allocated / (2 * trades * fanOut)) }),
  };
};

/** The least-squares slope of `ys` over `xs`. */
const slope = (xs: readonly number[], ys: readonly number[]): number => {
  const n = xs.length;
  if (n < 2) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  const sxx = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : xs.reduce((a, x, i) => a + (x - mx) * (ys[i]! - my), 0) / sxx;
};

/**
 * The soak: SOAK_MASTERS masters with SOAK_SLAVES slaves among them trade together for SOAK_SECONDS;
 * every second, the engine's lag and the copies done in that second.
 */
const soak = async (service: Service, call: Call): Promise<Record<string, number>> => {
  const perMaster = Math.ceil(SOAK_SLAVES / SOAK_MASTERS);
  const masters: string[] = [];
  const setupStarted = Date.now();
  masters.push(...(await createStartedAccounts(service.services, DEFAULT_PROJECT_ID, 'soak-master', SOAK_MASTERS)));
  const slaves = await createStartedAccounts(service.services, DEFAULT_PROJECT_ID, 'soak-slave', SOAK_SLAVES);
  await addCopiers(
    service.services,
    DEFAULT_PROJECT_ID,
    slaves.map((slave, i) => ({ master: masters[Math.floor(i / perMaster) % SOAK_MASTERS]!, slave })),
  );
  await service.services.engine.idle();
  console.log(`  soak set up in ${Math.round((Date.now() - setupStarted) / 1000)} s; trading for ${SOAK_SECONDS} s at ${SOAK_RATE} master trades a second`);

  // Copies done, counted from the copies streams as they are appended, with the outcomes that are no
  // copy (failed, deferred) counted apart so a shortfall has its reason. `reached` is how far the
  // subscription has read: the count is final only once it passes the store's committed head.
  let copies = 0;
  let failed = 0;
  let deferred = 0;
  let reached: Position | null = null;
  const subscription = service.services.store.subscribeToAll({ fromPosition: 'end', filter: { streamNamePrefixes: ['copies-'] } });
  const counting = (async () => {
    for await (const { event } of subscription) {
      if (event.type === 'CopyExecuted') copies += 1;
      else if (event.type === 'CopyFailed') failed += 1;
      else if (event.type === 'CopyDeferred') deferred += 1;
      reached = event.position;
    }
  })();

  const store = service.services.store;
  const engine = service.services.engine;
  /**
   * Each second the newest event the engine reads is sampled; a sample's lag is how long after it was
   * taken the engine had handled it with everything before it.
   */
  const samples: { second: number; lagMs: number | null }[] = [];
  let copiesBefore = 0;
  const open = new Map<string, boolean>();
  let trades = 0;
  let tradeFailures = 0;
  const started = Date.now();
  const stopAt = started + SOAK_SECONDS * 1000;
  const trading = (async () => {
    const pause = 1000 / SOAK_RATE;
    let turn = 0;
    const inFlight = new Set<Promise<void>>();
    while (Date.now() < stopAt) {
      const master = masters[turn % SOAK_MASTERS]!;
      turn += 1;
      const n = tradesSent++;
      const trade = (
        open.get(master)
          ? call('POST', `/accounts/${master}/actions/closeAllPositions`).then(() => open.set(master, false))
          : call('POST', `/accounts/${master}/positions`, {
              symbol: 'EURUSD',
              orderType: n % 2 ? 'Sell' : 'Buy',
              volume: 0.01,
              openPrice: 0,
              stopLoss: 0,
              takeProfit: 0,
              requestId: n % 1000,
              comment: `soak ${n}`,
            }).then(() => open.set(master, true))
      ).then(
        () => void (trades += 1),
        () => void (tradeFailures += 1),
      );
      inFlight.add(trade);
      void trade.finally(() => inFlight.delete(trade));
      await new Promise((r) => setTimeout(r, pause));
    }
    await Promise.all(inFlight);
  })();
  const handledSamples: Promise<void>[] = [];
  for (let second = 1; Date.now() < stopAt; second++) {
    await new Promise((r) => setTimeout(r, Math.max(0, started + second * 1000 - Date.now())));
    const at = Date.now();
    const head = await newestEngineEvent(store);
    const sample = { second, lagMs: null as number | null };
    samples.push(sample);
    if (head) {
      handledSamples.push(
        engine.handled(head, 600_000).then((handled) => {
          if (handled) sample.lagMs = Date.now() - at;
        }),
      );
    } else sample.lagMs = 0;
    const done = copies - copiesBefore;
    copiesBefore = copies;
    const latest = samples.filter((x) => x.lagMs !== null).pop();
    const waiting = samples.filter((x) => x.lagMs === null).length;
    console.log(
      `  soak ${String(second).padStart(3)} s: engine lag ${latest ? `${String(latest.lagMs).padStart(6)} ms (sample of ${latest.second} s)` : '     - '}, ` +
        `${waiting} sample${waiting === 1 ? '' : 's'} not handled yet, ${done} copies this second`,
    );
  }
  await trading;
  const drainStarted = Date.now();
  await engine.idle();
  await Promise.all(handledSamples);
  const drainMs = Date.now() - drainStarted;
  // Every outcome written by now is counted before the subscription stops (it reads behind the writers).
  const newest = await newestIn(store, 'copies-');
  const countedBy = Date.now() + 60_000;
  while (newest && (reached === null || comparePositions(reached, newest) < 0) && Date.now() < countedBy) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await subscription.unsubscribe();
  await counting;
  const lags = samples.map((x) => ({ second: x.second, lagMs: x.lagMs ?? Number.NaN }));

  const half = lags.slice(Math.floor(lags.length / 2));
  const growth = slope(
    half.map((l) => l.second),
    half.map((l) => l.lagMs),
  );
  const last = lags[lags.length - 1]?.lagMs ?? 0;
  const grows = growth > 100 && last > 1000;
  const sortedLags = lags.map((l) => l.lagMs).sort((a, b) => a - b);
  console.log(
    `  soak: ${trades} master trades (${tradeFailures} refused), ${copies} copies (${failed} failed, ${deferred} deferred); lag p50 ${percentile(sortedLags, 50)} ms, max ${sortedLags[sortedLags.length - 1] ?? 0} ms, ` +
      `slope ${round(growth)} ms/s over the second half; backlog ${grows ? 'GROWS' : 'does not grow'}; drained ${drainMs} ms after the last trade`,
  );
  return {
    soakMasters: SOAK_MASTERS,
    soakSlaves: SOAK_SLAVES,
    seconds: SOAK_SECONDS,
    trades,
    copies,
    copiesFailed: failed,
    copiesDeferred: deferred,
    copiesPerSecond: round(copies / SOAK_SECONDS),
    lagP50Ms: percentile(sortedLags, 50),
    lagMaxMs: sortedLags[sortedLags.length - 1] ?? 0,
    lagSlopeMsPerS: round(growth),
    lastLagMs: last,
    backlogGrows: grows ? 1 : 0,
    drainMs,
  };
};

/** Each figure against its target (target / ours: 1 or more meets it). */
const againstTargets = (results: readonly Record<string, number>[]): Record<string, number> => {
  const of = (slaves: number) => results.find((r) => r.slaves === slaves);
  const out: Record<string, number> = {};
  const put = (label: string, target: number, ours: number | undefined) => {
    if (ours !== undefined && Number.isFinite(ours)) out[label] = round(target / Math.max(ours, 1));
  };
  put('p50 1 slave (target 3 ms)', 3, of(1)?.p50Ms);
  put('p50 100 slaves (target 5 ms)', 5, of(100)?.p50Ms);
  put('p99 100 slaves (target 25 ms)', 25, of(100)?.p99Ms);
  put('fan-out p50 1,000 slaves (target 500 ms)', 500, of(1000)?.fanOutP50Ms);
  // The soak's backlog grows when both are over their limit (soak above): the lag's slope over the
  // second half against 100 ms/s, the last second's lag against 1 s.
  const soakRun = results.find((r) => 'soakSlaves' in r);
  put(`soak ${soakRun?.soakSlaves ?? ''} slaves: lag slope (limit 100 ms/s)`, 100, soakRun?.lagSlopeMsPerS);
  put(`soak ${soakRun?.soakSlaves ?? ''} slaves: last lag (limit 1,000 ms)`, 1000, soakRun?.lastLagMs);
  return out;
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
  const gc = watchGcPauses();
  const sampling = ALLOC_SAMPLE > 0 ? new AllocationSampling(ALLOC_SAMPLE) : null;
  if (sampling) mkdirSync(OUT, { recursive: true });
  for (const fanOut of FAN_OUTS) {
    await addSlaves(service, call, master, slaves, fanOut);
    results.push(await measureFanOut(service, call, collector.fills, master, fanOut, gc, sampling));
  }
  gc.stop();
  sampling?.close();

  await collector.stop();
  const postgres = await serverVersion(service.connectionString);
  const report = () =>
    publish(
      { name: 'copyLatency', machine: machine(postgres), results, ratios: {}, ofLimit: againstTargets(results) },
      OUT,
      'Copy latency: master fill -> slave order accepted by the venue (ms)',
    );
  // The fan-outs' figures are written before the soak, so a soak that fails does not take them along.
  if (results.length > 0 && SOAK_SECONDS > 0) report();
  if (SOAK_SECONDS > 0) results.push(await soak(service, call));
  await service.stop();
  await external?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  report();
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
