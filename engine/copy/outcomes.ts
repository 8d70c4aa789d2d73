// The outcome of one copy run for one copier, recorded once. The copy decision (domain/copy/decision.ts)
// is made on the master event, the read models and the slave's venue, not on the copies stream, and
// its outcome is what the slave's venue then did: facts to record (store/recorder.ts), one append to
// the copier's copies stream with deterministic event ids, so appending it again is a no-op. An
// outcome caused by a store event records that event's `$all` position, and an event whose outcome the
// stream already holds is not handled again (`notHandled`). Later decisions wait for the read models
// to include the engine's own appends (`catchUpReadModels`).
//
// What a copier's stream holds last is read once a term per copier, then kept up to date by the
// appends. Priming reads it ahead (`readAhead`, engine.ts) for a master's copiers: read by the first
// fan-out instead, it was one read of the store per copier on the copy's path (100 reads before the
// first trade's orders with 100 slaves, the slowest fan-out of a run).
import { uuidV5 as uuidv5 } from '../../domain/shared/uuidV5.js';
import { copiesStream, type CopyEvent, type CopySource } from '../../domain/copy/events.js';
import { type EventStore, type Position, positionFromString } from '../../store/port.js';
import { StreamNotFoundError } from '../../store/errors.js';
import { FactBatches } from '../../store/factBatches.js';
import type { RecoveryLog } from '../../store/recovery.js';
import type { CopyBook } from './book.js';
import type { CopierRow } from './inputs.js';
import { earlier } from './tracking.js';

/** Fixed forever: the ids of the engine's events derive from it. */
export const COPY_EVENT_NAMESPACE = '3c1f8a52-7e0b-4b7d-a0c4-5a9e61d2f3b8';
/** The `$all` position a non-store source carries: it marks nothing handled. */
export const NO_POSITION = '0:0';
const READ_MODEL_WAIT_MS = 5000;
/** Copies streams read at once by `readAhead`: a term's start does not queue a read per copier ahead of the copies. */
const READ_AHEAD_AT_ONCE = 8;
/**
 * The read models the engine never reads (logs, keys, dashboards, samples): its waits for the read models
 * leave them out (app/service.ts), so a decision does not wait for an audit log to take in the request
 * that placed the master's trade. Every other read model, and any added later, is waited for.
 */
export const NOT_READ_BY_THE_ENGINE: readonly string[] = ['account_logs', 'audit_logs', 'api_keys', 'dashboards', 'data_collector'];

export interface OutcomesDeps {
  readonly store: EventStore;
  readonly waitForReadModels: (position: Position, timeoutMs: number) => Promise<boolean>;
  readonly clock: () => Date;
  readonly log: RecoveryLog;
}

export class Outcomes {
  /** Newest `$all` position of an append of ours: later decisions wait for the read models to include it. */
  private lastAppend: Position | null = null;
  /** Per copier, the `$all` position of the last cause its copies stream holds an outcome of. */
  private readonly handledUpTo = new Map<string, Position | null>();
  /** The reads of copies streams under way, by copier (readHandled). */
  private readonly reading = new Map<string, Promise<void>>();
  /** The outcomes of concurrent copies (a fan-out's copiers) go in one multi-stream append. */
  private readonly facts: FactBatches;
  /** The engine's book of copies (book.ts): told every outcome once it is stored. */
  book: CopyBook | null = null;

  constructor(
    private readonly deps: OutcomesDeps,
    private readonly stopped: () => boolean,
  ) {
    this.facts = new FactBatches(deps.store);
  }

  /** False when the copier's copies stream already holds the outcome of the event at `position`. */
  async notHandled(copierId: string, position: Position): Promise<boolean> {
    if (!this.handledUpTo.has(copierId)) await this.readHandled(copierId);
    const handled = this.handledUpTo.get(copierId) ?? null;
    return handled === null || earlier(handled, position);
  }

  /** Reads ahead what the copiers' copies streams hold last (those not read yet), a few at a time. */
  async readAhead(copierIds: readonly string[]): Promise<void> {
    const unread = copierIds.filter((id) => !this.handledUpTo.has(id));
    for (let i = 0; i < unread.length && !this.stopped(); i += READ_AHEAD_AT_ONCE) {
      await Promise.all(unread.slice(i, i + READ_AHEAD_AT_ONCE).map((id) => this.readHandled(id)));
    }
  }

  /** Copies streams read now (each read once, whoever asks for it meanwhile). */
  get readsUnderWay(): number {
    return this.reading.size;
  }

  /**
   * Reads the cause of the copier's newest outcome; asked again meanwhile, the same read answers. An
   * outcome appended while it read (appendWithIds) is newer than what it read and stays.
   */
  private readHandled(copierId: string): Promise<void> {
    let read = this.reading.get(copierId);
    if (!read) {
      read = this.lastCauseIn(copierId)
        .then((last) => {
          const known = this.handledUpTo.get(copierId) ?? null;
          if (!this.handledUpTo.has(copierId) || (last !== null && (known === null || earlier(known, last)))) this.handledUpTo.set(copierId, last);
        })
        .finally(() => this.reading.delete(copierId));
      this.reading.set(copierId, read);
    }
    return read;
  }

  /** The `$all` position of the cause of the newest outcome in the copier's copies stream, if any. */
  private async lastCauseIn(copierId: string): Promise<Position | null> {
    try {
      // The newest outcome of a store event: deferrals, retries and management carry no position.
      for await (const { event } of this.deps.store.readStream(copiesStream(copierId), { direction: 'backwards', fromRevision: 'end' })) {
        const cause = event.metadata.sourcePosition;
        if (typeof cause === 'string') return positionFromString(cause);
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return null;
  }

  append(copier: CopierRow, masterAccountId: string, source: CopySource, events: readonly CopyEvent[], storeCause: boolean): Promise<void> {
    return this.appendWithIds(
      copier,
      masterAccountId,
      source,
      events.map((event, i) => ({ id: uuidv5(`${source.eventId}/${copier.id}/${i}`, COPY_EVENT_NAMESPACE), event })),
      storeCause,
    );
  }

  /**
   * The outcome in one append. Caused by a store event: its metadata names the cause's position, and an
   * event-less outcome still marks the cause handled in memory.
   */
  async appendWithIds(
    copier: CopierRow,
    masterAccountId: string,
    source: CopySource,
    events: readonly { id: string; event: CopyEvent }[],
    storeCause: boolean,
  ): Promise<void> {
    if (events.length > 0) {
      // Members added, not spread into the middle of a literal (domain/copy/decisionContext.ts, orderOf).
      const metadata = Object.assign({ correlationId: `copy:${source.eventId}` }, storeCause ? { sourcePosition: source.position } : { cause: source.type }, {
        sourceEventId: source.eventId,
        masterAccountId,
        receivedAt: this.deps.clock().toISOString(),
      });
      const result = await this.facts.record(
        copiesStream(copier.id),
        events.map(({ id, event }) => ({ id, type: event.type, data: event.data })),
        metadata,
      );
      if (!this.lastAppend || earlier(this.lastAppend, result.position)) this.lastAppend = result.position;
      this.book?.stored(
        events.map(({ id, event }) => ({ id, type: event.type, data: event.data })),
        result.position,
      );
    }
    if (!storeCause) return;
    const cause = positionFromString(source.position);
    const handled = this.handledUpTo.get(copier.id) ?? null;
    if (handled === null || earlier(handled, cause)) this.handledUpTo.set(copier.id, cause);
  }

  /** The newest append of ours, if any. */
  get newestAppend(): Position | null {
    return this.lastAppend;
  }

  async waitForReadModels(position: Position): Promise<void> {
    while (!this.stopped() && !(await this.deps.waitForReadModels(position, READ_MODEL_WAIT_MS))) {
      this.deps.log.info('copy engine: waiting for the read models');
    }
  }

  /** The read models must include the event (if any) and every outcome this engine appended before it. */
  async catchUpReadModels(position: Position | null): Promise<void> {
    const target = position === null || (this.lastAppend && earlier(position, this.lastAppend)) ? this.lastAppend : position;
    if (target) await this.waitForReadModels(target);
  }
}
