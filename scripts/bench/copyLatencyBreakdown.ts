// What a fan-out of the copy-latency bench (copyLatency.ts) holds besides copying: the garbage
// collector's pauses inside each fan-out, and, with --alloc-sample, the bytes allocated per copy.
//
// GC pauses: every pause of this process (the service runs in it) is observed (perf_hooks 'gc' entries)
// and set against each fan-out's window, from the master fill to the last slave fill, both on the
// service's clock. A pause counts for the part of it inside the window. Load makes pauses longer
// (a parallel scavenge waits for its helper threads), so a pause's length is no figure to compare
// across runs; whether the slow fan-outs are the ones holding pauses is.
//
// Bytes per copy (--alloc-sample <bytes>): V8's sampling heap profiler, objects later collected
// included, over every trade of a fan-out size (the master's open and close, their copies, the API
// calls, appends and read models: everything this process allocated meanwhile), divided by the copies
// (each trade's open and close: 2 x slaves). It does not depend on load, so it compares runs on a busy
// machine. The profile is written as OUT/copyLatency-<slaves>.heapprofile (Chrome DevTools, Memory):
// where the bytes go. The sampling slows the run down: its latencies are not the bench's figures.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';
import { type PerformanceEntry, PerformanceObserver, performance } from 'node:perf_hooks';

/** One GC pause, in milliseconds since the epoch. */
interface Pause {
  readonly start: number;
  readonly end: number;
}

/** The pauses inside one window: how many, and how many of its milliseconds they took. */
export interface PausesIn {
  readonly count: number;
  readonly ms: number;
}

/** Every GC pause of this process from now on; `inWindow` sets them against an epoch-millisecond window. */
export const watchGcPauses = (): { inWindow: (from: number, to: number) => PausesIn; stop: () => void } => {
  const pauses: Pause[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as PerformanceEntry[]) {
      const start = performance.timeOrigin + entry.startTime;
      pauses.push({ start, end: start + entry.duration });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    inWindow: (from, to) => {
      let count = 0;
      let ms = 0;
      for (const pause of pauses) {
        const overlap = Math.min(pause.end, to) - Math.max(pause.start, from);
        if (overlap <= 0) continue;
        count += 1;
        ms += overlap;
      }
      return { count, ms };
    },
    stop: () => observer.disconnect(),
  };
};

interface SamplingNode {
  readonly selfSize: number;
  readonly children: readonly SamplingNode[];
}

/** Bytes allocated while sampling (V8's sampling heap profiler, collected objects included). */
export class AllocationSampling {
  private readonly session = new Session();

  constructor(private readonly intervalBytes: number) {
    this.session.connect();
  }

  private post<T>(method: string, params?: object): Promise<T> {
    return new Promise((resolve, reject) => this.session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result as T))));
  }

  async start(): Promise<void> {
    await this.post('HeapProfiler.enable');
    await this.post('HeapProfiler.startSampling', {
      samplingInterval: this.intervalBytes,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }

  /** Stops sampling: the bytes sampled (an estimate of those allocated), the profile written to `file`. */
  async stop(file: string): Promise<number> {
    const { profile } = await this.post<{ profile: { head: SamplingNode } }>('HeapProfiler.stopSampling');
    writeFileSync(file, JSON.stringify(profile));
    let bytes = 0;
    const pending: SamplingNode[] = [profile.head];
    for (let node = pending.pop(); node; node = pending.pop()) {
      bytes += node.selfSize;
      pending.push(...node.children);
    }
    return bytes;
  }

  close(): void {
    this.session.disconnect();
  }
}

/** The heap profile of a fan-out size's trades (--alloc-sample). */
export const heapProfileFile = (outDir: string, slaves: number): string => path.join(outDir, `copyLatency-${slaves}.heapprofile`);

/** One fan-out of a run: its figures (ms) and the GC pauses inside it. */
export interface FanOutBreakdown {
  readonly trade: number;
  readonly firstFillMs: number;
  readonly lastFillMs: number;
  readonly gc: PausesIn;
}

/**
 * Lines for the slowest fan-outs and the first one of a fan-out size: how long, and how much of it
 * the GC paused; then the share of all fan-out time spent in GC pauses.
 */
export const describeFanOuts = (slaves: number, fanOuts: readonly FanOutBreakdown[], shown = 3): string[] => {
  const line = (f: FanOutBreakdown) =>
    `trade ${f.trade + 1}: last fill ${f.lastFillMs} ms (first ${f.firstFillMs}), GC ${f.gc.count} pause${f.gc.count === 1 ? '' : 's'} ${f.gc.ms.toFixed(1)} ms`;
  const slowest = [...fanOuts].sort((a, b) => b.lastFillMs - a.lastFillMs).slice(0, shown);
  const lines = [`  ${slaves} slave${slaves === 1 ? '' : 's'}, the slowest fan-outs: ${slowest.map(line).join('; ')}`];
  if (fanOuts[0] && !slowest.includes(fanOuts[0])) lines.push(`    the first: ${line(fanOuts[0])}`);
  return lines;
};

/** The share of the fan-outs' time (master fill to last slave fill, over all) that GC pauses took. */
export const gcShareOf = (fanOuts: readonly FanOutBreakdown[]): number => {
  const total = fanOuts.reduce((sum, f) => sum + f.lastFillMs, 0);
  return total > 0 ? fanOuts.reduce((sum, f) => sum + f.gc.ms, 0) / total : 0;
};
