// Group commit for facts (store/recorder.ts): appends asked for while an earlier batch is being
// written wait for it and then go together in one multi-stream append, so a copy fan-out of a thousand
// slaves, or the venue events of its thousand fills, costs a few commits instead of a thousand.
//
// What each caller gets is what recordFacts gives: its promise resolves once its own facts are
// stored, and rejects when the batch that held them failed (the caller retries as before; the facts'
// deterministic ids make a retry of what did get stored a no-op). A batch is all or nothing on
// PostgreSQL; on EventStoreDB the entries before a failure stay appended (store/port.ts
// appendToStreams), which a retry by id completes. A batch never holds two entries of one stream: the
// later one waits for the next batch, so one stream's appends stay in the order they were asked for.
import type { AppendResult, EventMetadata, EventStore, StreamAppend } from './port.js';
import type { Fact } from './recorder.js';

/** Entries per multi-stream append: one transaction stays a few hundred rows. */
const MAX_BATCH = 500;

interface Waiting {
  readonly append: StreamAppend;
  readonly resolve: (result: AppendResult) => void;
  readonly reject: (error: unknown) => void;
}

export class FactBatches {
  private waiting: Waiting[] = [];
  private writing = false;

  constructor(private readonly store: EventStore) {}

  /** Like recordFacts: `facts` appended to `streamName` in one append, each with `metadata`. */
  record(streamName: string, facts: readonly Fact[], metadata: EventMetadata): Promise<AppendResult> {
    const append: StreamAppend = {
      streamName,
      events: facts.map(({ id, type, data }) => ({ id, type, data, metadata })),
      expectedRevision: 'any',
    };
    const done = new Promise<AppendResult>((resolve, reject) => this.waiting.push({ append, resolve, reject }));
    if (!this.writing) void this.write();
    return done;
  }

  /** Writes batches until nobody waits; one batch at a time. */
  private async write(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.nextBatch();
        try {
          const results = await this.store.appendToStreams(batch.map((w) => w.append));
          batch.forEach((w, i) => w.resolve(results[i]!));
        } catch (error) {
          for (const w of batch) w.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  /** The waiting entries in order, up to MAX_BATCH, each stream once (a later entry of it waits). */
  private nextBatch(): Waiting[] {
    const batch: Waiting[] = [];
    const later: Waiting[] = [];
    const streams = new Set<string>();
    for (const w of this.waiting) {
      if (batch.length < MAX_BATCH && !streams.has(w.append.streamName)) {
        streams.add(w.append.streamName);
        batch.push(w);
      } else later.push(w);
    }
    this.waiting = later;
    return batch;
  }
}
