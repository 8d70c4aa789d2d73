// Batches of a subscription: what it has buffered when the consumer is ready (up to `max`) is one
// batch, without waiting for more. The projection runner and the webhook dispatcher consume `$all`
// this way (followInBatches): a burst becomes a few transactions, a lone event is handled at once.
import type { EventStore, Position, RecordedEvent, Subscription, SubscriptionFilter } from './port.js';
import type { Recovery } from './recovery.js';

export async function* bufferedBatches(subscription: Subscription, max: number, stopped: () => boolean): AsyncGenerator<RecordedEvent[]> {
  const iterator = subscription[Symbol.asyncIterator]();
  const idle = Symbol('idle');
  let pending = iterator.next();
  while (!stopped()) {
    const first = await pending;
    if (first.done) return;
    const batch: RecordedEvent[] = [first.value.event];
    pending = iterator.next();
    while (batch.length < max) {
      const next = await Promise.race([pending, new Promise<typeof idle>((r) => setImmediate(() => r(idle)))]);
      if (next === idle || next.done) break;
      batch.push(next.value.event);
      pending = iterator.next();
    }
    yield batch;
  }
}

export interface FollowOptions {
  readonly store: EventStore;
  readonly filter?: SubscriptionFilter;
  readonly max: number;
  readonly recovery: Recovery;
  stopped(): boolean;
  /** Where reading starts (exclusive); null for the start of `$all`. */
  cursor(): Position | null;
  /** After a failure: set the cursor again from the saved checkpoint. */
  reload(): Promise<void>;
  apply(batch: readonly RecordedEvent[]): Promise<void>;
  /** The subscription being read, so that stopping can end it. */
  onSubscribe(subscription: Subscription): void;
  /** A failure that asks to start again from the checkpoint at once, without backoff. */
  restarts?(error: unknown): boolean;
}

/**
 * Follows `$all` from a checkpoint in batches until stopped. After any failure the subscription ends,
 * the recovery logs it and waits its backoff, and reading starts again from the reloaded checkpoint.
 */
export const followInBatches = async (options: FollowOptions): Promise<void> => {
  const { recovery, stopped } = options;
  while (!stopped()) {
    const subscription = options.store.subscribeToAll({ fromPosition: options.cursor() ?? 'start', ...(options.filter ? { filter: options.filter } : {}) });
    options.onSubscribe(subscription);
    subscription.on('caughtUp', () => recovery.succeeded());
    try {
      for await (const batch of bufferedBatches(subscription, options.max, stopped)) {
        await options.apply(batch);
        recovery.succeeded();
      }
    } catch (error) {
      if (stopped()) break;
      if (!options.restarts?.(error)) await recovery.failed(error, stopped);
      await options.reload();
    } finally {
      await subscription.unsubscribe();
    }
  }
};
