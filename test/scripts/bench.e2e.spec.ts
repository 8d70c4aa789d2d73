// The benchmarks of `npm run bench`, each run once as a child process at a tiny size on the test
// PostgreSQL: they finish, print their table and write bench-results JSON in the common shape. No
// figure is checked against a threshold (tests never time things); only that each one is there.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { BenchReport } from '../../scripts/bench/support/report.js';
import { ROOT } from '../support/process.js';
import { adminConnection } from '../support/postgres.js';

const run = (script: string, args: string[]): Promise<{ code: number | null; out: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });

const positive = (values: Readonly<Record<string, number>>): void => {
  for (const [label, value] of Object.entries(values)) expect(value, label).to.be.a('number').and.greaterThan(0);
};

describe('npm run bench: each benchmark at a tiny size', function () {
  this.timeout(180000);
  let out: string;
  let server: string;
  before(async () => {
    out = mkdtempSync(path.join(os.tmpdir(), 'ct-bench-smoke-'));
    // The shared test server: each benchmark makes (and drops) databases of its own on it.
    server = await adminConnection();
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  const report = (name: string): BenchReport => {
    const parsed = JSON.parse(readFileSync(path.join(out, `${name}.json`), 'utf8')) as BenchReport;
    expect(Object.keys(parsed)).to.have.members(['name', 'machine', 'results', 'ratios', 'ofLimit']);
    expect(parsed.name).to.equal(name);
    expect(parsed.machine.cores).to.be.greaterThan(0);
    expect(parsed.machine.node).to.equal(process.version);
    expect(parsed.machine.postgres).to.match(/^\d+/);
    return parsed;
  };

  it('eventStore compares ours with Emmett and with plain INSERTs in every scenario, within the same runs', async () => {
    const { code, out: printed } = await run('scripts/bench/eventStore.ts', [
      '--runs',
      '1',
      '--appends',
      '4',
      '--concurrent-appends',
      '16',
      '--batches',
      '2',
      '--read',
      '500',
      '--database-url',
      server,
      '--out',
      out,
    ]);
    expect(code, printed).to.equal(0);
    expect(printed).to.include('Event store: events per second');
    const result = report('eventStore');
    expect(result.results).to.have.length(12);
    expect(new Set(result.results.map((r) => r.system))).to.deep.equal(new Set(['ours', 'Emmett', 'raw INSERT']));
    expect(Object.keys(result.ratios)).to.deep.equal([
      'single-event appends, 1 writer: ours/Emmett',
      'single-event appends, 8 writers: ours/Emmett',
      'appends of 100 events, 1 writer: ours/Emmett',
      'reading 500 events of $all: ours/Emmett',
    ]);
    expect(Object.keys(result.ofLimit)).to.have.length(4);
    positive(result.ratios);
    positive(result.ofLimit);
  });

  it('rebuild replays a generated history into every read model and reports its peak memory', async () => {
    const { code, out: printed } = await run('scripts/bench/rebuild.ts', [
      '--events',
      '1500',
      '--runs',
      '1',
      '--masters',
      '2',
      '--slaves-per-master',
      '3',
      '--sampled-accounts',
      '1',
      '--database-url',
      server,
      '--out',
      out,
    ]);
    expect(code, printed).to.equal(0);
    const result = report('rebuild');
    const all = result.results.find((r) => r.step === 'all read models')!;
    expect(all.events).to.be.at.least(1500);
    expect(all.peakRssMiB).to.be.greaterThan(0);
    // Real work in the read models that matter: trades, copies, logs, the audit trail.
    for (const step of ['positions', 'history', 'copies', 'account_logs', 'audit_logs', 'accounts', 'copiers', 'data_collector']) {
      expect(result.results.find((r) => r.step === step)?.applied, step).to.be.greaterThan(0);
    }
  });

  it('copyLatency measures copies of master trades for each fan-out, then soaks masters trading together', async () => {
    const { code, out: printed } = await run('scripts/bench/copyLatency.ts', [
      '--slaves',
      '1,2',
      '--trades',
      '2',
      '--soak-slaves',
      '2',
      '--soak-masters',
      '1',
      '--soak-seconds',
      '2',
      '--database-url',
      server,
      '--out',
      out,
    ]);
    expect(code, printed).to.equal(0);
    const result = report('copyLatency');
    expect(result.results.filter((r) => 'slaves' in r).map((r) => [r.slaves, r.copies])).to.deep.equal([
      [1, 2],
      [2, 4],
    ]);
    expect(result.results[1]!.p99Ms).to.be.a('number');
    const soaked = result.results.find((r) => 'soakSlaves' in r)!;
    expect(soaked).to.include({ soakSlaves: 2, soakMasters: 1, seconds: 2 });
    expect(soaked.backlogGrows).to.be.oneOf([0, 1]);
    expect(printed).to.match(/soak +1 s: engine lag/);
    expect(Object.keys(result.ofLimit)).to.include('p50 1 slave (target 3 ms)');
  });

  it('api loads both endpoints of ours and of the bare express route and gives the fraction of the limit', async () => {
    const { code, out: printed } = await run('scripts/bench/api.ts', [
      '--accounts',
      '3',
      '--connections',
      '2',
      '--seconds',
      '1',
      '--warm-up-seconds',
      '0',
      '--runs',
      '1',
      '--database-url',
      server,
      '--out',
      out,
    ]);
    expect(code, printed).to.equal(0);
    const result = report('api');
    expect(result.results.map((r) => `${r.endpoint} ${r.target}`)).to.have.members([
      'GET /accounts/{accountId} ours',
      'GET /accounts/{accountId} bare express',
      'GET /accounts (3 accounts) ours',
      'GET /accounts (3 accounts) bare express',
    ]);
    expect(Object.keys(result.ofLimit)).to.have.length(4);
    positive(result.ofLimit);
  });

  it('load floods reads with shedding off and on and reports the trades answered meanwhile', async () => {
    const { code, out: printed } = await run('scripts/bench/load.ts', [
      '--connections',
      '20',
      '--seconds',
      '2',
      '--trade-every-ms',
      '250',
      '--database-url',
      server,
      '--out',
      out,
    ]);
    expect(code, printed).to.equal(0);
    const result = report('load');
    expect(result.results.map((r) => r.shedding)).to.deep.equal(['off', 'on']);
    expect(
      result.results.every((r) => Number(r.trades) > 0),
      printed,
    ).to.equal(true);
    positive(result.ratios);
    positive(result.ofLimit);
  });
});
