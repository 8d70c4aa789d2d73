// Wakes the durable queues (the delivery outbox, the async account creations: store/queueProcessor.ts,
// which takes it as its `signal`) of the other instances when one instance writes to them. An enqueue wakes its own process's queue at
// once; without this, another instance's idle queue saw the row only at its next look (backing off to
// every 5 s). After an enqueue commits, the writer sends `pg_notify` on QUEUE_WAKE_CHANNEL with the
// queue's name and its own instance id (a space between); every other instance listens on one connection of its own and
// wakes that queue. A writer that knows no other live instance sends nothing.
//
// A notification is a hint, never the only way: a lost one (the listener reconnecting, a crash between
// the commit and the NOTIFY) is met by the queue's own backoff poll, which stays. A listener whose
// connection drops connects again with backoff and wakes every queue it serves once it listens again
// (a row may have come while it heard nothing).
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import type { QueueSignal } from '../queueProcessor.js';
import { retryUntilDone } from '../recovery.js';
import type { AnyKysely } from './checkpoints.js';
import type { ConnectionFaults } from './pool.js';
import { connectListening } from './subscription.js';

export const QUEUE_WAKE_CHANNEL = 'ct_queue_wake';
/** The application_name of the listening connection, followed by the instance id. */
export const QUEUE_WAKE_SESSION_PREFIX = 'ct-queue-wake:';

export interface QueueWakeOptions {
  /** This instance's id: its own notifications are not heard back. */
  readonly instanceId: string;
  /** Whether another live instance is known (Leases.lastLive); false: an enqueue notifies nobody. */
  readonly othersLive?: () => boolean;
  readonly faults?: ConnectionFaults;
}

/** The queue wake of one instance: what it tells the others, and the queues it wakes when they tell it. */
export class QueueWake implements QueueSignal {
  private client: pg.Client | null = null;
  private readonly queues = new Map<string, () => void>();
  private closed = false;
  /** Per queue: a NOTIFY on its way, and whether another was asked for meanwhile. */
  private readonly sending = new Map<string, boolean>();
  private started: Promise<void> | null = null;

  constructor(
    private readonly connectionString: string,
    private readonly db: AnyKysely,
    private readonly options: QueueWakeOptions,
  ) {}

  /** `wake` runs when another instance wrote to `queue`; listening starts with the first queue served. */
  serve(queue: string, wake: () => void): void {
    this.queues.set(queue, wake);
    this.started ??= this.start();
  }

  /** Tells the other instances that `queue` has new rows (call after the commit). */
  announce(queue: string): void {
    if (this.closed || !(this.options.othersLive?.() ?? true)) return;
    if (this.sending.has(queue)) {
      this.sending.set(queue, true);
      return;
    }
    this.sending.set(queue, false);
    const send = (): void => {
      sql`SELECT pg_notify(${QUEUE_WAKE_CHANNEL}, ${`${queue} ${this.options.instanceId}`})`
        .execute(this.db as unknown as Kysely<unknown>)
        .catch(() => undefined)
        .finally(() => {
          // Rows enqueued while it was on its way: one more NOTIFY covers them all.
          if (this.sending.get(queue) === true && !this.closed) {
            this.sending.set(queue, false);
            send();
          } else this.sending.delete(queue);
        });
    };
    send();
  }

  /** Whether the listening connection is up now. */
  get listening(): boolean {
    return this.client !== null;
  }

  private async start(): Promise<void> {
    await retryUntilDone(
      () => this.listen(),
      () => this.closed,
    );
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.connectionString,
      application_name: `${QUEUE_WAKE_SESSION_PREFIX}${this.options.instanceId}`,
      keepAlive: true,
    });
    client.on('notification', (message) => {
      const [queue, sender] = (message.payload ?? '').split(' ');
      if (sender !== this.options.instanceId) this.queues.get(queue ?? '')?.();
    });
    const lost = (): void => {
      if (this.client !== client) return;
      this.client = null;
      client.end().catch(() => undefined);
      if (!this.closed) this.started = this.start();
    };
    client.on('error', (error) => {
      this.options.faults?.observe(error);
      lost();
    });
    client.on('end', lost);
    await connectListening(client, QUEUE_WAKE_CHANNEL);
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // Rows may have come while nobody here listened: every queue looks.
    for (const wake of this.queues.values()) wake();
  }

  async stop(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners('error');
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
    }
  }
}
