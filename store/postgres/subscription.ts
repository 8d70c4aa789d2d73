// Subscriptions of the PostgreSQL event store (store/postgres/postgresEventStore.ts): the append signal
// (LISTEN/NOTIFY, with polling as the fallback) and the subscription that reads `$all` page by page
// after a position, holding back while committed events wait below the snapshot horizon.
//
// The fallback poll is one probe per process, not one read per subscriber: while any subscriber waits,
// the signal reads the committed head of `$all` (one indexed row) every PROBE_MS (PROBE_UNHEARD_MS while
// it does not listen) and wakes every subscriber when it moved. It covers a NOTIFY that never came (the
// appending process died between its commit and its NOTIFY, or this listener was reconnecting). An idle
// process with three subscribers made 12 queries a second polling before; it makes one.
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { retryUntilDone } from '../recovery.js';
import type { Position, ResolvedEvent, SubscribeToAllOptions, Subscription, SubscriptionFilter } from '../port.js';
import type { ConnectionFaults } from './pool.js';

export const CHANNEL = 'es_events';
/** Events per read of `$all`. */
export const PAGE = 500;
/** While listening, how often the committed head is probed for appends whose NOTIFY never came. */
const PROBE_MS = 1000;
/** While not listening (connecting, reconnecting), how often the committed head is probed. */
const PROBE_UNHEARD_MS = 500;
/** A waiting subscriber looks on its own at the latest after this (the probe is its fallback). */
const POLL_MS = 30_000;
/**
 * While committed events wait below the snapshot horizon, readers look again every millisecond for
 * the first 16 ms (a read-model or venue transaction usually ends within that), then back off to 50.
 */
const HELD_BACK_FIRST_MS = 1;
const HELD_BACK_EAGER_TRIES = 16;
const HELD_BACK_MAX_MS = 50;

/** What a subscription reads through: the store's pages of `$all` and its head. */
export interface PageReader {
  /**
   * Up to `limit` events of `$all` after `after` that readers may take (below the snapshot horizon),
   * and whether committed events after `after` wait below that horizon (read in the same snapshot).
   */
  readPageLooking(after: Position | null, limit: number, filter?: SubscriptionFilter): Promise<{ events: ResolvedEvent[]; heldBack: boolean }>;
  headPosition(): Promise<Position | null>;
}

/**
 * Answers a token of `$all`'s committed head, visible to readers yet or not (it changes with every
 * commit that becomes the head; a commit below the head comes from a transaction that was running when
 * the head committed, so readers woken by the head hold back until it ends and read it too).
 */
export type HeadProbe = () => Promise<string>;

/**
 * Connects `client` and LISTENs on `channel`; where either fails, the client is ended (its own error
 * handler no longer told) and the failure thrown. The append signal and the queue wake listen so.
 */
export const connectListening = async (client: pg.Client, channel: string): Promise<void> => {
  try {
    await client.connect();
    await client.query(`LISTEN ${channel}`);
  } catch (error) {
    client.removeAllListeners('error');
    client.on('error', () => undefined);
    await client.end().catch(() => undefined);
    throw error;
  }
};

/** Wakes subscribers when an append commits (LISTEN/NOTIFY, and the probe of the committed head as the fallback). */
export class AppendSignal {
  private client: pg.Client | null = null;
  private readonly waiters = new Set<() => void>();
  private closed = false;
  /** Counts wake-ups, so a reader can tell whether one came while it was reading. */
  generation = 0;
  private probeTimer: NodeJS.Timeout | null = null;
  /** The head the last probe read (null: not probed yet, or the last probe failed). */
  private probedHead: string | null = null;

  constructor(
    private readonly connectionString: string,
    private readonly faults?: ConnectionFaults,
    private readonly probe?: HeadProbe,
  ) {}

  /** Connects and listens; while the server cannot be reached it tries again with backoff (subscribers poll meanwhile). */
  async start(): Promise<void> {
    await retryUntilDone(
      () => this.listen(),
      () => this.closed,
    );
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('notification', () => this.wakeAll());
    client.on('error', (error) => {
      this.faults?.observe(error);
      if (this.client !== client) return;
      this.client = null;
      client.end().catch(() => undefined);
      // Nothing was heard while it was away: wake every subscriber to look, then listen again.
      this.wakeAll();
      // Not awaited: start() retries until it listens or the store closes, and never rejects.
      if (!this.closed) void this.start();
    });
    await connectListening(client, CHANNEL);
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // An append may have committed while nobody listened: look.
    this.wakeAll();
  }

  wakeAll(): void {
    this.generation += 1;
    for (const wake of [...this.waiters]) wake();
  }

  /**
   * Probes the committed head while anyone waits: a head that moved since the last probe wakes them; a
   * probe that fails wakes them too (their own reads meet the failure and report it).
   */
  private scheduleProbe(): void {
    if (!this.probe || this.probeTimer || this.closed || this.waiters.size === 0) return;
    this.probeTimer = setTimeout(
      () => {
        this.probe!().then(
          (head) => {
            this.probeTimer = null;
            // No head to compare with (the first probe, or one after a failure): an append may have
            // come since the readers last looked, so they look again.
            const moved = head !== this.probedHead;
            this.probedHead = head;
            if (moved) this.wakeAll();
            this.scheduleProbe();
          },
          () => {
            this.probeTimer = null;
            this.probedHead = null;
            this.wakeAll();
            this.scheduleProbe();
          },
        );
      },
      this.client ? PROBE_MS : PROBE_UNHEARD_MS,
    );
    this.probeTimer.unref();
  }

  /** Resolves at the next append after generation `seen` (at once if one came already), or after `ms` at the latest. */
  wait(ms: number, seen: number = this.generation): Promise<void> {
    if (this.generation !== seen) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      this.scheduleProbe();
    });
  }

  async stop(): Promise<void> {
    this.closed = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
    this.wakeAll();
    await this.client?.end().catch(() => undefined);
    this.client = null;
  }
}

export class PostgresSubscription extends EventEmitter implements Subscription {
  private readonly queue: ResolvedEvent[] = [];
  private notify: (() => void) | null = null;
  private stopped = false;
  private failure: Error | null = null;
  private caughtUp = false;

  constructor(
    private readonly store: PageReader,
    private readonly signal: AppendSignal,
    private readonly options: SubscribeToAllOptions,
  ) {
    super();
    // Not awaited: run() catches every failure and hands it to the reader (and any 'error' listener).
    void this.run();
  }

  private async run(): Promise<void> {
    try {
      let after: Position | null =
        this.options.fromPosition === 'end'
          ? await this.store.headPosition()
          : this.options.fromPosition === 'start' || this.options.fromPosition === undefined
            ? null
            : this.options.fromPosition;
      let heldBackWait = HELD_BACK_FIRST_MS;
      let heldBackTries = 0;
      while (!this.stopped) {
        if (this.queue.length > 0) {
          await new Promise<void>((resolve) => (this.notify = resolve));
          continue;
        }
        const seen = this.signal.generation;
        const { events: page, heldBack } = await this.store.readPageLooking(after, PAGE, this.options.filter);
        if (this.stopped) break;
        if (page.length > 0) {
          after = page[page.length - 1]!.event.position;
          this.queue.push(...page);
          this.wakeReader();
        }
        if (page.length < PAGE) {
          if (!this.caughtUp) {
            this.caughtUp = true;
            this.emit('caughtUp');
          }
          // Everything visible after `after` is read. Committed events may still wait below the
          // snapshot horizon of an older, running transaction (event-store.md §2.2); they show up
          // when it ends, which sends no notification: while any exist, look again (shortly, when
          // this read found nothing). Otherwise sleep until the next append; one that committed
          // after this read's snapshot notifies after `seen` was taken, so the wait cannot miss it.
          if (heldBack && page.length > 0) continue;
          if (heldBack) {
            await new Promise((r) => setTimeout(r, heldBackWait));
            heldBackTries += 1;
            if (heldBackTries >= HELD_BACK_EAGER_TRIES) heldBackWait = Math.min(heldBackWait * 2, HELD_BACK_MAX_MS);
          } else {
            heldBackWait = HELD_BACK_FIRST_MS;
            heldBackTries = 0;
            await this.signal.wait(POLL_MS, seen);
          }
        } else if (this.caughtUp) {
          this.caughtUp = false;
          this.emit('fellBehind');
        }
      }
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
      if (this.listenerCount('error') > 0) this.emit('error', this.failure);
      this.wakeReader();
    }
  }

  private wakeReader(): void {
    const n = this.notify;
    this.notify = null;
    n?.();
  }

  async unsubscribe(): Promise<void> {
    this.stopped = true;
    this.wakeReader();
    this.signal.wakeAll();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ResolvedEvent> {
    try {
      while (true) {
        const next = this.queue.shift();
        if (next) {
          if (this.queue.length === 0) this.wakeReader();
          yield next;
          continue;
        }
        if (this.failure) throw this.failure;
        if (this.stopped) return;
        await new Promise<void>((resolve) => (this.notify = resolve));
      }
    } finally {
      // Leaving the loop (break, return, error) ends the subscription, as with EventStoreDB.
      await this.unsubscribe();
    }
  }
}
