// The one shape of a background processor of `$all` (issue 14 item 3): the projection runner, the
// webhook dispatcher and the copy engine's intake are each a StreamProcessor with a consumer of their
// own. The processor
//   - works only while this instance holds the lease on its partition (store/postgres/leases.ts), so
//     two instances never run the same partition; a standby instance takes over within a second or so
//     of the holder's death;
//   - asks the consumer where to start (its checkpoint, store/postgres/checkpoints.ts) each time it wins
//     the lease, subscribes from there, and hands over what the subscription has buffered as one batch
//     (store/batches.ts): a burst becomes a few transactions, a lone event is handled at once;
//   - after any failure (the store, the database, the consumer) ends the subscription, logs it once per
//     run of failures, waits a capped, jittered backoff (store/recovery.ts) and subscribes again from
//     where the consumer says (its reloaded checkpoint, or after the last batch it took).
// The consumer applies each batch and checkpoints it; in the same transaction as its effects when they
// live in the database (read models, webhook deliveries), or after them when they do not (copies).
import { bufferedBatches } from './batches.js';
import type { Leases } from './postgres/leases.js';
import type { EventStore, Position, RecordedEvent, Subscription, SubscriptionFilter } from './port.js';
import { Recovery, type RecoveryLog } from './recovery.js';

export interface StreamConsumer {
  /** Where reading starts when this instance wins the lease (exclusive); null: the start of `$all`. */
  resume(): Promise<Position | null>;
  /** Handles a batch in `$all` order, checkpointing it. */
  apply(batch: readonly RecordedEvent[]): Promise<void>;
  /** After a failure: where reading starts again; default: after the last batch applied. */
  reload?(): Promise<Position | null>;
  /** A failure that asks to start again at once, without backoff (a rebuild moved a checkpoint). */
  restarts?(error: unknown): boolean;
  /** The lease ended (lost, or the processor stops): forget what was held for this term. */
  released?(): void;
}

export interface StreamProcessorOptions {
  /** The partition: the lease's name, and the processor's name in logs. */
  readonly name: string;
  /** What logs call it: "the projection runner". */
  readonly description: string;
  readonly store: EventStore;
  /** null: no lease (a single instance by construction: specs, tools). */
  readonly leases: Leases | null;
  readonly filter?: SubscriptionFilter;
  readonly maxBatch: number;
  readonly log: RecoveryLog;
  readonly consumer: StreamConsumer;
}

export class StreamProcessor {
  private stopped = false;
  private subscription: Subscription | null = null;
  private running: Promise<void> | null = null;
  private lease: { release(): Promise<void> } | null = null;
  private readonly recovery: Recovery;
  private term = 0;
  /** A failure the consumer reported outside `apply` (restart): the current subscription ends with it. */
  private failure: { error: unknown } | null = null;
  /** Resolves what `start` answers: the first attempt at the lease is decided. */
  private onDecided: (() => void) | null = null;

  constructor(private readonly options: StreamProcessorOptions) {
    this.recovery = new Recovery(options.description, options.log, { action: 'resubscribes from its checkpoint' });
  }

  /** Whether this instance works the partition now (it holds the lease, or needs none). */
  get active(): boolean {
    return !this.stopped && (this.options.leases === null || this.options.leases.holds(this.options.name));
  }

  /**
   * Starts working the partition whenever the lease is held. Resolves once the first attempt is
   * decided: this instance won the lease and the consumer knows where to start (what it reads from
   * then on is what was appended after that), or another instance holds it.
   */
  start(): Promise<void> {
    this.stopped = false;
    const { leases, name } = this.options;
    const decided = new Promise<void>((resolve) => (this.onDecided = resolve));
    if (leases)
      this.lease = leases.hold(
        name,
        (signal) => this.run(signal),
        () => this.decided(),
      );
    else this.running = this.run(new AbortController().signal);
    return decided;
  }

  private decided(): void {
    this.onDecided?.();
    this.onDecided = null;
  }

  /**
   * Ends the current subscription as failed with `error` (a consumer whose own pipeline broke): after
   * the backoff, reading starts again where `reload` says.
   */
  restart(error: unknown): void {
    this.failure = { error };
    void this.subscription?.unsubscribe().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.decided();
    await this.subscription?.unsubscribe().catch(() => undefined);
    await this.lease?.release();
    await this.running;
  }

  /** One term of the lease: from the consumer's checkpoint until stopped or the lease is lost. */
  private async run(signal: AbortSignal): Promise<void> {
    const term = ++this.term;
    const ended = () => this.stopped || signal.aborted || term !== this.term;
    const onAbort = () => void this.subscription?.unsubscribe().catch(() => undefined);
    signal.addEventListener('abort', onAbort);
    try {
      let cursor = await this.resume(ended);
      this.decided();
      while (!ended()) {
        const subscription = this.options.store.subscribeToAll({
          fromPosition: cursor ?? 'start',
          ...(this.options.filter ? { filter: this.options.filter } : {}),
        });
        this.subscription = subscription;
        subscription.on('caughtUp', () => this.recovery.succeeded());
        try {
          for await (const batch of bufferedBatches(subscription, this.options.maxBatch, ended)) {
            await this.options.consumer.apply(batch);
            cursor = batch[batch.length - 1]!.position;
            this.recovery.succeeded();
          }
          if (this.failure) throw this.failure.error;
        } catch (error) {
          this.failure = null;
          if (ended()) break;
          if (!this.options.consumer.restarts?.(error)) await this.recovery.failed(error, ended);
          const reload = this.options.consumer.reload;
          if (reload) cursor = await reload().catch(() => cursor);
        } finally {
          await subscription.unsubscribe().catch(() => undefined);
        }
      }
    } finally {
      this.decided();
      signal.removeEventListener('abort', onAbort);
      this.options.consumer.released?.();
    }
  }

  /** The consumer's checkpoint, retried with backoff while it cannot be read. */
  private async resume(ended: () => boolean): Promise<Position | null> {
    for (;;) {
      try {
        return await this.options.consumer.resume();
      } catch (error) {
        if (ended()) return null;
        await this.recovery.failed(error, ended);
      }
    }
  }
}
