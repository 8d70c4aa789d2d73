// The one durable-queue worker (issue 14 item 3): the second kind of background processor, beside
// StreamProcessor (store/processor.ts). A StreamProcessor follows `$all` from a checkpoint; a
// QueueProcessor works the due rows of a table, where each row is one job that survives a crash. The
// delivery outbox (engine/delivery/outbox.ts) and the async account creation queue
// (app/accounts/asyncCreation.ts) are its two consumers: each keeps its own table, its own claim
// (what is due, in which order, under which lease) and its own job; this loop is what they share:
//   - claim what is due (the consumer leases it: a row lease or an advisory lock, so two instances
//     never run the same job), up to a number of jobs in flight per instance and per key;
//   - run each job concurrently, keep track of it, and look for more when one ends or `wake` is
//     called (after an enqueue in this process); otherwise sleep until the next job falls due, at most
//     the idle poll, which doubles after each round that found nothing up to `maxIdlePollMs` and is
//     back to `idlePollMs` after a wake or a job (other instances' enqueues are seen within
//     `maxIdlePollMs`; an idle queue costs a claim every few seconds, not every second);
//   - after any failure of the loop (the database), log once per run of failures and try again with
//     backoff (store/recovery.ts); failures of a job are the job's: logged once per run, the job's
//     claim decides when it is tried again;
//   - clean up finished rows now and then;
//   - with a `signal` (store/postgres/queueWake.ts), tell the other instances after an enqueue here
//     (`enqueued`) and look at once when another instance tells of one (its idle poll stays the
//     fallback for a lost notification).
import { Recovery, type RecoveryLog } from './recovery.js';
import { Waker } from './waker.js';

export interface QueueConsumer<Job> {
  /**
   * Claims up to `limit` due jobs for this instance, leaving out those of `busyKeys` (keys with
   * `maxInFlightPerKey` jobs under way here). Claimed jobs are leased: no other instance takes them
   * until the job ends or its lease runs out.
   */
  claim(limit: number, busyKeys: readonly string[]): Promise<Job[]>;
  /** Jobs of one key share the per-key limit (a webhook, a project); null: no key. */
  keyOf(job: Job): string | null;
  /** A claimed job may start now; false: the consumer has put it back, due later (a rate limit). */
  admit?(job: Job): Promise<boolean>;
  /** A claimed job that cannot start here now (its key became busy): back to the queue, due as it was. */
  release?(job: Job): Promise<void>;
  /** Runs the job to its outcome, recording it. A rejection is logged (once per run of failures). */
  run(job: Job): Promise<void>;
  /** Milliseconds until the next job falls due, leaving out `busyKeys` (the loop sleeps at most its idle pause). */
  untilNextDue(busyKeys: readonly string[]): Promise<number>;
  /** Removes finished jobs past their retention. */
  cleanup(): Promise<void>;
}

/** The instances' wake of each other's queues (store/postgres/queueWake.ts), by queue name. */
export interface QueueSignal {
  /** Tells the other instances that `queue` has new rows (after the commit). */
  announce(queue: string): void;
  /** `wake` runs when another instance wrote to `queue`. */
  serve(queue: string, wake: () => void): void;
}

export interface QueueProcessorOptions {
  /** What logs call it: "the delivery outbox". */
  readonly description: string;
  /** What it does after a failure of its loop: "looks for due deliveries again". */
  readonly action: string;
  /** What logs call one failing job: "a delivery", and what is done about it. */
  readonly jobs: { readonly description: string; readonly action: string };
  readonly log: RecoveryLog;
  readonly maxInFlight: number;
  readonly maxInFlightPerKey: number;
  /** The pause of a queue that found nothing, at first. */
  readonly idlePollMs: number;
  /** The longest pause of a queue that keeps finding nothing (default idlePollMs: no backing off). */
  readonly maxIdlePollMs?: number;
  readonly cleanupEveryMs: number;
  /** Wall-clock milliseconds. */
  readonly now: () => number;
  /** Wakes the same queue of the other instances after an enqueue here, and this one after theirs; left out: one instance only. */
  readonly signal?: { readonly wake: QueueSignal; readonly queue: string };
}

export class QueueProcessor<Job> {
  private stopped = true;
  private loop: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly inFlightByKey = new Map<string, number>();
  private readonly waker = new Waker();
  private readonly jobFailures: Recovery;
  private lastCleanup = 0;
  /** The idle pause now: idlePollMs after a wake or a job, doubled by each round that found nothing. */
  private idleMs: number;

  constructor(
    private readonly options: QueueProcessorOptions,
    private readonly consumer: QueueConsumer<Job>,
  ) {
    this.jobFailures = new Recovery(options.jobs.description, options.log, { action: options.jobs.action });
    this.idleMs = options.idlePollMs;
  }

  /** Looks for due jobs now (after an enqueue in this process, or the end of a job elsewhere). */
  wake(): void {
    this.idleMs = this.options.idlePollMs;
    this.waker.wake();
  }

  /** Looks for due jobs now, and tells the other instances to (after an enqueue in this process commits). */
  enqueued(): void {
    this.wake();
    this.options.signal?.wake.announce(this.options.signal.queue);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.options.signal?.wake.serve(this.options.signal.queue, () => this.wake());
    this.loop = this.run();
  }

  /** Ends the loop and waits for the jobs under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
    await Promise.all([...this.inFlight]);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  private async run(): Promise<void> {
    const recovery = new Recovery(this.options.description, this.options.log, { action: this.options.action });
    while (!this.stopped) {
      let waitMs = this.options.idlePollMs;
      try {
        if (this.options.now() - this.lastCleanup > this.options.cleanupEveryMs) {
          this.lastCleanup = this.options.now();
          await this.consumer.cleanup();
        }
        if (this.inFlight.size >= this.options.maxInFlight) {
          // Full: the end of a job wakes the loop.
          waitMs = this.options.idlePollMs;
        } else {
          const started = await this.claimSome();
          // Nothing started (nothing due, or what was claimed went back): sleep until the next job
          // falls due, at most the idle pause, at least a timer's turn: never a spin.
          waitMs = started > 0 ? 0 : Math.max(1, Math.min(this.idleMs, await this.consumer.untilNextDue(this.busyKeys())));
          this.idleMs = started > 0 ? this.options.idlePollMs : Math.min(this.options.maxIdlePollMs ?? this.options.idlePollMs, this.idleMs * 2);
        }
        recovery.succeeded();
      } catch (error) {
        waitMs = Math.max(waitMs, recovery.noted(error));
      }
      if (waitMs > 0 && !this.stopped) await this.waker.sleep(waitMs);
    }
  }

  /** Claims and starts what is due; answers how many jobs started. */
  private async claimSome(): Promise<number> {
    const free = this.options.maxInFlight - this.inFlight.size;
    const claimed = await this.consumer.claim(free, this.busyKeys());
    let started = 0;
    for (const job of claimed) {
      const key = this.consumer.keyOf(job);
      if (key !== null && (this.inFlightByKey.get(key) ?? 0) >= this.options.maxInFlightPerKey) await this.consumer.release?.(job);
      else if (!this.consumer.admit || (await this.consumer.admit(job))) {
        this.track(key, job);
        started += 1;
      }
    }
    return started;
  }

  private track(key: string | null, job: Job): void {
    if (key !== null) this.inFlightByKey.set(key, (this.inFlightByKey.get(key) ?? 0) + 1);
    const work = this.consumer.run(job).then(
      () => this.jobFailures.succeeded(),
      (error: unknown) => void this.jobFailures.noted(error),
    );
    const tracked = work.finally(() => {
      this.inFlight.delete(tracked);
      if (key !== null) {
        const left = (this.inFlightByKey.get(key) ?? 1) - 1;
        if (left > 0) this.inFlightByKey.set(key, left);
        else this.inFlightByKey.delete(key);
      }
      this.wake();
    });
    this.inFlight.add(tracked);
  }

  /** Keys with `maxInFlightPerKey` jobs under way here: their jobs wait until one ends. */
  private busyKeys(): string[] {
    return [...this.inFlightByKey].filter(([, n]) => n >= this.options.maxInFlightPerKey).map(([key]) => key);
  }
}
