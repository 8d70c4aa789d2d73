// The one durable-queue loop (store/queueProcessor.ts), with a consumer in memory: what it claims,
// how many jobs run at once per instance and per key, what a failure does, and what stop waits for.
import { expect } from 'chai';
import { type QueueConsumer, QueueProcessor } from '../../store/queueProcessor.js';

interface Job {
  readonly id: string;
  readonly key: string | null;
}

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

const options = (overrides: Partial<ConstructorParameters<typeof QueueProcessor>[0]> = {}) => ({
  description: 'the test queue',
  action: 'looks again',
  jobs: { description: 'a test job', action: 'is tried again' },
  log: quiet,
  maxInFlight: 4,
  maxInFlightPerKey: 1,
  idlePollMs: 20,
  cleanupEveryMs: 60_000,
  now: Date.now,
  ...overrides,
});

const settle = (ms = 60) => new Promise((resolve) => setTimeout(resolve, ms));

/** A queue of jobs in memory; `run` waits until the test lets the job end. */
class MemoryQueue implements QueueConsumer<Job> {
  readonly due: Job[] = [];
  readonly running = new Map<string, () => void>();
  readonly released: string[] = [];
  readonly done: string[] = [];
  claimFailures = 0;
  busySeen: (readonly string[])[] = [];

  claim(limit: number, busyKeys: readonly string[]): Promise<Job[]> {
    if (this.claimFailures > 0) {
      this.claimFailures -= 1;
      return Promise.reject(new Error('connection terminated'));
    }
    this.busySeen.push(busyKeys);
    const picked = this.due.filter((j) => j.key === null || !busyKeys.includes(j.key)).slice(0, limit);
    for (const job of picked) this.due.splice(this.due.indexOf(job), 1);
    return Promise.resolve(picked);
  }
  keyOf(job: Job): string | null {
    return job.key;
  }
  release(job: Job): Promise<void> {
    this.released.push(job.id);
    this.due.push(job);
    return Promise.resolve();
  }
  run(job: Job): Promise<void> {
    return new Promise((resolve) =>
      this.running.set(job.id, () => {
        this.running.delete(job.id);
        this.done.push(job.id);
        resolve();
      }),
    );
  }
  finish(id: string): void {
    this.running.get(id)!();
  }
  untilNextDue(): Promise<number> {
    return Promise.resolve(this.due.length > 0 ? 0 : 20);
  }
  cleanup(): Promise<void> {
    return Promise.resolve();
  }
}

describe('QueueProcessor: the durable-queue loop', () => {
  let worker: QueueProcessor<Job> | null = null;
  const queues: MemoryQueue[] = [];
  const track = (queue: MemoryQueue): MemoryQueue => (queues.push(queue), queue);
  afterEach(async () => {
    const stopping = worker?.stop();
    for (const queue of queues.splice(0)) for (const id of [...queue.running.keys()]) queue.finish(id);
    await stopping;
    worker = null;
  });

  it('runs due jobs at once, at most maxInFlight, and takes the next as one ends', async () => {
    const queue = track(new MemoryQueue());
    queue.due.push(...['a', 'b', 'c', 'd', 'e', 'f'].map((id) => ({ id, key: null })));
    worker = new QueueProcessor(options({ maxInFlight: 4 }), queue);
    worker.start();
    await settle();
    expect([...queue.running.keys()]).to.deep.equal(['a', 'b', 'c', 'd']);
    queue.finish('a');
    await settle();
    expect([...queue.running.keys()].sort()).to.deep.equal(['b', 'c', 'd', 'e']);
    for (const id of ['b', 'c', 'd', 'e']) queue.finish(id);
    await settle();
    queue.finish('f');
    await settle();
    expect(queue.done).to.have.members(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('runs one job per key at a time: the claim leaves busy keys out, and the next of a key starts when the first ends', async () => {
    const queue = track(new MemoryQueue());
    queue.due.push({ id: 'p1-a', key: 'p1' }, { id: 'p2-a', key: 'p2' });
    worker = new QueueProcessor(options({ maxInFlightPerKey: 1 }), queue);
    worker.start();
    await settle();
    queue.due.push({ id: 'p1-b', key: 'p1' });
    worker.wake();
    await settle();
    expect([...queue.running.keys()].sort()).to.deep.equal(['p1-a', 'p2-a']);
    expect(queue.busySeen.at(-1)).to.have.members(['p1', 'p2']);
    queue.finish('p1-a');
    await settle();
    expect([...queue.running.keys()].sort()).to.deep.equal(['p1-b', 'p2-a']);
  });

  it('gives back a claimed job whose key is busy here (claimed by a claim that did not know yet)', async () => {
    const queue = track(new MemoryQueue());
    // A claim that ignores busy keys: two jobs of one key in one batch.
    const careless: QueueConsumer<Job> = Object.assign(Object.create(queue) as MemoryQueue, {
      claim: (limit: number) => queue.claim(limit, []),
    });
    queue.due.push({ id: 'k-1', key: 'k' }, { id: 'k-2', key: 'k' });
    worker = new QueueProcessor(options(), careless);
    worker.start();
    await settle(30);
    expect([...queue.running.keys()]).to.deep.equal(['k-1']);
    expect(queue.released[0]).to.equal('k-2');
  });

  it('keeps looking after failures of the loop, logging the first and the recovery', async () => {
    const queue = track(new MemoryQueue());
    queue.claimFailures = 3;
    queue.due.push({ id: 'x', key: null });
    const lines: string[] = [];
    const log = { info: (m: string) => void lines.push(m), warn: (m: string) => void lines.push(m), error: (m: string) => void lines.push(m) };
    worker = new QueueProcessor(options({ log }), queue);
    worker.start();
    await settle(1200);
    expect(queue.running.has('x')).to.equal(true);
    expect(lines.filter((l) => l.includes('failed: connection terminated'))).to.have.length(1);
    expect(lines.some((l) => /the test queue resumed after 3 failed attempts/.test(l))).to.equal(true);
  });

  it('logs a job that fails and goes on with the others', async () => {
    const queue = track(new MemoryQueue());
    const lines: string[] = [];
    const log = { info: (m: string) => void lines.push(m), warn: (m: string) => void lines.push(m), error: (m: string) => void lines.push(m) };
    const failing: QueueConsumer<Job> = Object.assign(Object.create(queue) as MemoryQueue, {
      run: (job: Job) => (job.id === 'bad' ? Promise.reject(new Error('boom')) : queue.run(job)),
    });
    queue.due.push({ id: 'bad', key: null }, { id: 'good', key: null });
    worker = new QueueProcessor(options({ log }), failing);
    worker.start();
    await settle();
    expect(queue.running.has('good')).to.equal(true);
    expect(lines.some((l) => l.includes('a test job failed: boom'))).to.equal(true);
  });

  it('stop waits for the jobs under way and claims nothing more', async () => {
    const queue = track(new MemoryQueue());
    queue.due.push({ id: 'long', key: null });
    worker = new QueueProcessor(options(), queue);
    worker.start();
    await settle();
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    queue.due.push({ id: 'late', key: null });
    await settle();
    expect(stopped).to.equal(false);
    queue.finish('long');
    await stopping;
    expect(queue.done).to.deep.equal(['long']);
    worker = null;
  });

  it('backs off while it finds nothing, up to maxIdlePollMs; a wake looks at once, and a job nobody woke it for is still taken', async () => {
    const queue = track(new MemoryQueue());
    let claims = 0;
    const counted: QueueConsumer<Job> = Object.assign(Object.create(queue) as MemoryQueue, {
      claim: (limit: number, busyKeys: readonly string[]) => ((claims += 1), queue.claim(limit, busyKeys)),
      untilNextDue: () => Promise.resolve(60_000),
    });
    worker = new QueueProcessor(options({ idlePollMs: 20, maxIdlePollMs: 60_000 }), counted);
    worker.start();
    await settle(700);
    // Pauses of 20, 40, 80, 160, 320 ms: about six claims (35 at a steady 20 ms); a slower machine makes fewer.
    expect(claims).to.be.within(1, 8);
    queue.due.push({ id: 'woken', key: null });
    worker.wake();
    await settle();
    expect([...queue.running.keys()]).to.deep.equal(['woken']);
    queue.finish('woken');
    await worker.stop();

    // Capped: a job queued by someone else (no wake) is taken within maxIdlePollMs.
    worker = new QueueProcessor(options({ idlePollMs: 20, maxIdlePollMs: 100 }), counted);
    worker.start();
    await settle(700);
    queue.due.push({ id: 'elsewhere', key: null });
    for (let waited = 0; waited < 10_000 && !queue.running.has('elsewhere'); waited += 20) await settle(20);
    expect([...queue.running.keys()]).to.deep.equal(['elsewhere']);
  });
});
