// One store under test in a process of its own; the orchestrator (../eventStore.ts) sends it one
// scenario at a time over IPC and gets back how long it took.
//   node --import tsx worker.ts <ours|emmett|raw> <connection string>
import { performance } from 'node:perf_hooks';
import { benchEvent, type BenchEvent, type StoreUnderTest, type SystemName } from './system.js';

export type Scenario =
  /** `appends` single-event appends by `writers` concurrent writers, each to streams of its own. */
  | { readonly kind: 'single'; readonly run: string; readonly writers: number; readonly appends: number }
  /** `batches` appends of `size` events each, one writer. */
  | { readonly kind: 'batch'; readonly run: string; readonly batches: number; readonly size: number }
  /** Reads the first `count` events of $all. */
  | { readonly kind: 'read'; readonly count: number };

export type Request = { readonly id: number; readonly scenario: Scenario } | { readonly id: number; readonly close: true };
export type Reply = { readonly id: number; readonly ms?: number; readonly events?: number; readonly error?: string };

/** Streams each writer cycles through: appends to one stream queue behind its row lock, not a writer's own. */
const STREAMS_PER_WRITER = 10;

const open = async (system: SystemName, connectionString: string): Promise<StoreUnderTest> => {
  switch (system) {
    case 'ours':
      return (await import('./ours.js')).openOurs(connectionString);
    case 'emmett':
      return (await import('../peer/emmett.js')).openEmmett(connectionString);
    case 'raw':
      return (await import('./raw.js')).openRaw(connectionString);
  }
};

/** Plays a scenario; times only the store's calls. */
const play = async (store: StoreUnderTest, scenario: Scenario): Promise<{ events: number; ms: number }> => {
  if (scenario.kind === 'read') {
    // Ours and Emmett show an event only below the snapshot horizon: a transaction still running in
    // the database (autovacuum's analyze takes an xid) can hold the newest back for a moment. A read
    // that came up short is not a read of `count` events: wait and time it again.
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      const events = await store.readAll(scenario.count);
      const ms = performance.now() - started;
      if (events >= scenario.count || attempt >= 10) return { events, ms };
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  const writers = scenario.kind === 'single' ? scenario.writers : 1;
  const appends = scenario.kind === 'single' ? scenario.appends : scenario.batches;
  const size = scenario.kind === 'single' ? 1 : scenario.size;
  // Events are made before the clock starts: the benchmark times the stores, not the generator.
  const events: BenchEvent[][] = Array.from({ length: appends }, (_, i) => Array.from({ length: size }, (_, j) => benchEvent(i * size + j)));
  let next = 0;
  const writer = async (w: number): Promise<void> => {
    const revisions = new Array<number>(STREAMS_PER_WRITER).fill(-1);
    let mine = 0;
    while (next < appends) {
      const batch = events[next++]!;
      const s = mine++ % STREAMS_PER_WRITER;
      await store.append(`bench-${scenario.run}-w${w}-s${s}`, revisions[s]!, batch);
      revisions[s]! += batch.length;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
  return { events: appends * size, ms: performance.now() - started };
};

const main = async (): Promise<void> => {
  const [system, connectionString] = process.argv.slice(2) as [SystemName, string];
  const store = await open(system, connectionString);
  const send = (reply: Reply) => process.send!(reply);
  process.on('message', (request: Request) => {
    void (async () => {
      if ('close' in request) {
        await store.close();
        send({ id: request.id });
        process.disconnect();
        return;
      }
      try {
        send({ id: request.id, ...(await play(store, request.scenario)) });
      } catch (error) {
        send({ id: request.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      }
    })();
  });
  process.send!({ id: 0 } satisfies Reply);
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
