// Write latency (issue 14: the POST .../copiers path): how long a user waits for the answer to a
// write that must show in its own answer (read-your-writes). The whole service runs in this process on
// an embedded PostgreSQL; each write goes through the REST API like a user's, one at a time:
//   - POST /accounts/{id}/copiers (the copier checks, the append, the wait for the read models it reads)
//   - PUT /accounts/{id}/copiers/{copierId} (a change of the copier's multiplier)
//   - DELETE /accounts/{id}/copiers/{copierId}
// Reported: p50 and p99 of each, in ms, over --writes writes, and how each p99 compares with a limit a
// person does not notice (100 ms: ofLimit above 1 is within it).
//
//   npm run bench:writes [-- --writes 200] [--database-url postgres://...] [--out bench-results]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../app/config.js';
import { silentLogger } from '../../app/logger.js';
import { startService } from '../../app/service.js';
import { httpLayer } from '../../api/httpLayer.js';
import { parseArgs } from '../support/connect.js';
import { apiCaller, createBenchAccount, integerOption } from './support/options.js';
import { serverVersion, startBenchServer } from './support/postgres.js';
import { progress } from './support/progress.js';
import { machine, percentile, publish, round } from './support/report.js';

const args = parseArgs(process.argv.slice(2), ['writes', 'database-url', 'out']);
const WRITES = integerOption(args, 'writes', 200);
const OUT = args.get('out')?.[0] ?? 'bench-results';
const KEY = 'bench-key-0123456789abcdef-write-latency';
/** What a person does not notice between a click and its answer. */
const LIMIT_MS = 100;

type Timings = Record<'create' | 'update' | 'delete', number[]>;

const main = async (): Promise<void> => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ct-bench-writes-'));
  const databaseUrl = args.get('database-url')?.[0];
  const external = databaseUrl ? await startBenchServer(databaseUrl) : null;
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    BOOTSTRAP_API_KEY: KEY,
    ...(external ? { DATABASE_URL: await external.database('write_latency') } : {}),
  });
  console.log(`starting the service (${external ? 'the PostgreSQL of --database-url' : 'embedded PostgreSQL'}) ...`);
  const service = await startService(config, { http: httpLayer, log: silentLogger, venueTicker: false });
  const call = apiCaller(() => service.url, KEY);
  try {
    const master = await createBenchAccount(call, 'writes-master', { start: false });
    const slave = await createBenchAccount(call, 'writes-slave', { start: false });
    const timings: Timings = { create: [], update: [], delete: [] };
    const timed = async (kind: keyof Timings, work: () => Promise<unknown>) => {
      const began = performance.now();
      await work();
      timings[kind].push(performance.now() - began);
    };
    const bar = progress('copier writes (create, update, delete)', WRITES);
    for (let i = 0; i < WRITES; i++) {
      let copierId = '';
      await timed('create', async () => {
        copierId = (await call('POST', `/accounts/${slave}/copiers`, { fromAccountId: master, multiplier: 1 })).body.id as string;
      });
      await timed('update', () => call('PUT', `/accounts/${slave}/copiers/${copierId}`, { multiplier: 2 }));
      await timed('delete', () => call('DELETE', `/accounts/${slave}/copiers/${copierId}`));
      bar.increment();
    }
    bar.stop();
    const results = (Object.keys(timings) as (keyof Timings)[]).map((kind) => {
      const sorted = [...timings[kind]].sort((a, b) => a - b);
      return { write: `copier ${kind}`, writes: sorted.length, p50Ms: round(percentile(sorted, 50)), p99Ms: round(percentile(sorted, 99)) };
    });
    const ofLimit = Object.fromEntries(results.map((r) => [`${r.write} p99 within ${LIMIT_MS} ms`, round(LIMIT_MS / r.p99Ms)]));
    const postgres = await serverVersion(service.connectionString);
    publish({ name: 'writes', machine: machine(postgres), results, ratios: {}, ofLimit }, OUT, 'write latency (ms), one write at a time');
  } finally {
    await service.stop();
    await external?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

await main();
