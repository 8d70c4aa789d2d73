// Batches of a subscription: what it has buffered when the consumer is ready (up to `max`) is one
// batch, without waiting for more. Every processor of `$all` (store/processor.ts) reads this way: a
// burst becomes a few transactions, a lone event is handled at once.
import type { RecordedEvent, Subscription } from './port.js';

export async function* bufferedBatches(subscription: Subscription, max: number, stopped: () => boolean): AsyncGenerator<RecordedEvent[]> {
  const iterator = subscription[Symbol.asyncIterator]();
  const idle = Symbol('idle');
  let pending = iterator.next();
  while (!stopped()) {
    const first = await pending;
    if (first.done) return;
    const batch: RecordedEvent[] = [first.value.event];
    pending = iterator.next();
    // The end of this turn of the event loop, one for the batch (not one per event): what the
    // subscription has buffered comes within the turn's microtasks, so the batch ends where it did.
    const turnEnds = new Promise<typeof idle>((r) => setImmediate(() => r(idle)));
    while (batch.length < max) {
      const next = await Promise.race([pending, turnEnds]);
      if (next === idle || next.done) break;
      batch.push(next.value.event);
      pending = iterator.next();
    }
    yield batch;
  }
}
