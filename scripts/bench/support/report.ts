// What every benchmark hands in: a table on stdout and bench-results/NAME.json in one shape,
//   { name, machine, results: [...], ratios: { label: number }, ofLimit: { label: number } }
// `ratios` compare us with a peer (above 1: we are ahead); `ofLimit` is our figure as a fraction of
// the limit (1: we reach it). Figures are medians of several runs; a ratio is the median of the
// ratios taken within each run, so both sides of it saw the same moment of a noisy machine.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly postgres: string | null;
  readonly os: string;
}

export interface BenchReport {
  readonly name: string;
  readonly machine: Machine;
  readonly results: readonly Record<string, string | number | null>[];
  readonly ratios: Readonly<Record<string, number>>;
  readonly ofLimit: Readonly<Record<string, number>>;
}

export const machine = (postgres: string | null): Machine => ({
  cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
  cores: os.cpus().length,
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  postgres,
  os: `${os.type()} ${os.release()}`,
});

export const median = (values: readonly number[]): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Nearest-rank percentile of already sorted values. */
export const percentile = (sorted: readonly number[], p: number): number => {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
};

/** Three significant digits at most, so tables and JSON stay readable. */
export const round = (value: number): number => {
  if (!Number.isFinite(value) || value === 0) return value;
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value))));
  return Number(value.toFixed(Math.min(digits, 6)));
};

const printSection = (title: string, values: Readonly<Record<string, number>>): void => {
  const labels = Object.keys(values);
  if (labels.length === 0) return;
  console.log(`\n${title}`);
  const width = Math.max(...labels.map((l) => l.length));
  for (const label of labels) console.log(`  ${label.padEnd(width)}  ${values[label]}`);
};

/** Prints the tables and writes `<outDir>/<name>.json`; returns the file written. */
export const publish = (report: BenchReport, outDir: string, title: string): string => {
  console.log(`\n${title}`);
  console.table(report.results);
  printSection('ratios (above 1: we are ahead of the peer; median of per-run ratios)', report.ratios);
  printSection('of the limit (1: we reach it; median of per-run ratios)', report.ofLimit);
  const m = report.machine;
  console.log(`\nmachine: ${m.cores} x ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}, PostgreSQL ${m.postgres ?? '?'}, ${m.os}`);
  mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, `${report.name}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`written: ${file}`);
  return file;
};

export const readReport = (file: string): BenchReport => JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
