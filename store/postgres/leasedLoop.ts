// A background job that runs in rounds under a lease (leases.ts): of several instances of the service one
// runs it at a time; a round that fails is reported and the next round comes as usual, so a fault never
// stops the job silently; losing the lease (or stop()) ends the rounds, and the instance that wins it next
// carries on. Every leased job of the service is one of these: the retention jobs, the charting alert
// retries, the calendar and news syncs, the alerts, keep-alive trades, the trade guardrails, the chat
// reader, customer blocks, the follower repair, the monthly close. Each is given `rounds` by the
// composition (app/service.ts): it records each win of its lease and each round's outcome in the
// database, where every instance's /ready reads whether it is stalled (jobRounds.ts).
import { setTimeout as wait } from 'node:timers/promises';
import type { JobRounds } from './jobRounds.js';
import type { Leases } from './leases.js';

export interface LeasedLoopOptions {
  readonly leases: Leases;
  /** The lease only one instance holds. */
  readonly lease: string;
  /** The pause between the end of one round and the start of the next. */
  readonly everyMs: number;
  /** One round; it may look at `signal` to cut a long round short. */
  readonly round: (signal: AbortSignal) => Promise<void>;
  /** A round failed: say so (the next round comes after the usual pause). */
  readonly failed: (error: unknown) => void;
  /** A round succeeded (e.g. to end a run of failures). */
  readonly succeeded?: () => void;
  /** Each time this instance wins the lease, before its first round (e.g. to forget cached state). */
  readonly won?: () => void;
  /** Where the job's rounds are recorded for /ready (jobRounds.ts); left out: not watched. */
  readonly rounds?: JobRounds | undefined;
}

/** Waits `ms`, cut short when `signal` aborts, also when it aborted before the wait began. */
export const pause = (ms: number, signal: AbortSignal): Promise<void> => wait(ms, undefined, { signal }).catch(() => undefined);

export class LeasedLoop {
  private handle: { release(): Promise<void> } | null = null;

  constructor(private readonly options: LeasedLoopOptions) {}

  /** Starts trying to win the lease; `everyMs` overrides the pause of the options (specs shorten it). */
  start(everyMs = this.options.everyMs): void {
    if (this.handle) return;
    this.options.rounds?.watch(this.options.lease, everyMs);
    this.handle = this.options.leases.hold(this.options.lease, (signal) => this.run(signal, everyMs));
  }

  async stop(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    if (handle) this.options.rounds?.unwatch(this.options.lease);
    await handle?.release();
  }

  private async run(signal: AbortSignal, everyMs: number): Promise<void> {
    const { round, failed, succeeded, won, rounds, lease } = this.options;
    won?.();
    await rounds?.won(lease, everyMs);
    while (!signal.aborted) {
      try {
        await round(signal);
        succeeded?.();
        await rounds?.good(lease, everyMs);
      } catch (error) {
        failed(error);
        await rounds?.failed(lease, everyMs, error);
      }
      await pause(everyMs, signal);
    }
  }
}
