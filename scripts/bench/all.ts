// npm run bench: the five benchmarks of the benchmark issue and the load benchmark of issue 13, one
// after the other, each in a process of its own (so one's heap, pools and PostgreSQL never weigh on the
// next), with their progress, then a summary of every ratio. Items 1 and 2 are one run of eventStore.ts: our store, Emmett's and plain
// INSERTs interleaved, so both comparisons are taken within the same runs.
//
//   npm run bench [-- --only eventStore,rebuild,copyLatency,api,load,writes,scaleOut] [--full] [--out bench-results]
// About 15 minutes on 2 cores. The rebuild replays 1,000,000 events once (about 4.5 minutes with the
// bulk load); --full replays them three times for a median (about 5 more minutes, BENCHMARKS.md).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from '../support/connect.js';
import { scriptRun } from '../../app/projectRoot.js';
import { ROOT } from './support/listening.js';
import { readReport } from './support/report.js';

interface Benchmark {
  readonly name: string;
  readonly items: string;
  readonly title: string;
  readonly script: string;
  readonly args: (full: boolean) => readonly string[];
}

const BENCHMARKS: readonly Benchmark[] = [
  {
    name: 'eventStore',
    items: '1 and 2',
    title: 'event store: ours vs Emmett (peer) and vs plain INSERTs (limit)',
    script: 'scripts/bench/eventStore.ts',
    args: () => ['--runs', '3'],
  },
  {
    name: 'rebuild',
    items: '3',
    title: 'rebuild of every read model',
    script: 'scripts/bench/rebuild.ts',
    args: (full) => ['--events', '1000000', '--runs', full ? '3' : '1'],
  },
  { name: 'copyLatency', items: '4', title: 'copy latency and fan-out', script: 'scripts/bench/copyLatency.ts', args: () => [] },
  { name: 'api', items: '5', title: 'API throughput vs a bare express route (limit)', script: 'scripts/bench/api.ts', args: () => [] },
  { name: 'load', items: 'issue 13 #7', title: 'trading under a flood of reads, load shedding off and on', script: 'scripts/bench/load.ts', args: () => [] },
  { name: 'writes', items: 'issue 14', title: 'write latency: copier create, update, delete', script: 'scripts/bench/writes.ts', args: () => [] },
  {
    name: 'scaleOut',
    items: 'issue 16',
    title: 'scale-out: copies per second with 1 and 3 instances, partitions moved after a SIGKILL',
    script: 'scripts/bench/scaleOut.ts',
    args: () => [],
  },
];

const run = (script: string, args: readonly string[]): Promise<number | null> =>
  new Promise((resolve) => {
    const { execArgv, file } = scriptRun(script);
    const child = spawn(process.execPath, [...execArgv, file, ...args], { cwd: ROOT, stdio: 'inherit' });
    child.on('exit', (code) => resolve(code));
  });

const minutes = (ms: number): string => `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2), ['only', 'full', 'out']);
  const only = (args.get('only') ?? [])
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = only.filter((name) => !BENCHMARKS.some((b) => b.name === name));
  if (unknown.length) throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${BENCHMARKS.map((b) => b.name).join(', ')}`);
  const full = args.has('full');
  const out = args.get('out')?.[0] ?? 'bench-results';
  const chosen = BENCHMARKS.filter((b) => only.length === 0 || only.includes(b.name));
  const started = performance.now();
  const failed: string[] = [];
  for (const [i, benchmark] of chosen.entries()) {
    const began = performance.now();
    console.log(`\n=== [${i + 1}/${chosen.length}] item ${benchmark.items}: ${benchmark.title} (${minutes(began - started)} elapsed)\n`);
    const code = await run(benchmark.script, [...benchmark.args(full), '--out', out]);
    console.log(`\n=== ${benchmark.name}: ${code === 0 ? 'done' : `FAILED (exit ${code})`} in ${minutes(performance.now() - began)}`);
    if (code !== 0) failed.push(benchmark.name);
  }

  console.log(`\n=== summary (${minutes(performance.now() - started)} in all); ratios above 1: ahead of the peer; ofLimit 1: at the limit`);
  for (const benchmark of chosen) {
    if (failed.includes(benchmark.name)) continue;
    const report = readReport(path.join(out, `${benchmark.name}.json`));
    const lines = [
      ...Object.entries(report.ratios).map(([label, value]) => `  ratio    ${label}: ${value}`),
      ...Object.entries(report.ofLimit).map(([label, value]) => `  ofLimit  ${label}: ${value}`),
    ];
    console.log(`${benchmark.name} (${path.join(out, `${benchmark.name}.json`)})${lines.length ? '' : ': figures only, see its table'}`);
    for (const line of lines) console.log(line);
  }
  if (failed.length) {
    console.error(`failed: ${failed.join(', ')}`);
    process.exit(1);
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
