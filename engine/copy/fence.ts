// The fence of a copy engine partition (issue 16, "More than one machine"): a term of the partition's
// lease appends its outcomes only while nobody took the partition after it.
//
// Each partition has a fence stream (`copy-engine-fence-<partition>`). A term begins by appending
// CopyPartitionTaken (its lease epoch, its instance) there, and every append of its outcomes goes in
// one multi-stream append with an event of that stream at the revision the term last wrote
// (CopyOutcomesFenced). A later term's CopyPartitionTaken moves the revision: every append of the old
// term from then on fails as a whole (WrongExpectedVersionError on the fence entry, nothing stored),
// and the old term learns that it lost the partition (FencedOut) even before its lease session tells it.
//
// Because the fence stream's row is locked by every append to it, the new term's CopyPartitionTaken
// commits after every append of the old term that got through; once the read models include the new
// term's fence, they include everything the old term committed. That is where the new term starts
// from (engine.ts beginTerm): a master close is never decided before the open the old owner recorded.
//
// PostgreSQL: the fence and the outcomes are one transaction. EventStoreDB has no multi-stream
// transaction: the fence entry goes first, so a refused fence stores nothing, but an outcome append
// already past its fence when the partition moves still lands (README "Running more than one
// instance", known limits). After a failure whose effect is unknown, the term reads the fence stream's
// last event: its own, and the term continues at that revision; another term's, and it is fenced out.
import { v4 as uuidv4 } from 'uuid';
import { StreamNotFoundError, WrongExpectedVersionError } from '../../store/errors.js';
import type { AppendExpectedRevision, AppendResult, EventData, EventStore, Position, StreamAppend } from '../../store/port.js';

export const FENCE_STREAM_PREFIX = 'copy-engine-fence-';
export const fenceStream = (partition: string): string => `${FENCE_STREAM_PREFIX}${partition.replace(/\//g, '-')}`;

export const PARTITION_TAKEN = 'CopyPartitionTaken';
export const OUTCOMES_FENCED = 'CopyOutcomesFenced';

/** This term no longer owns the partition: another instance took it; nothing of the append was stored. */
export class FencedOut extends Error {
  override readonly name = 'FencedOut';
  constructor(partition: string, epoch: number) {
    super(`copy engine partition ${partition}: epoch ${epoch} was fenced out (another instance took the partition)`);
  }
}

interface FenceData {
  readonly partition: string;
  readonly epoch: number;
  readonly instance: string;
}

/**
 * The event store as one term of a partition sees it for its outcomes: every append carries the
 * fence. Reads go through unchanged.
 */
export class FencedStore implements EventStore {
  /** The fence stream's revision after this term's last write; null before `take`. */
  private revision: bigint | null = null;
  private fenced = false;
  private readonly stream: string;

  constructor(
    private readonly inner: EventStore,
    private readonly term: FenceData,
  ) {
    this.stream = fenceStream(term.partition);
  }

  /** Whether a later term took the partition (every append fails from then on). */
  get fencedOut(): boolean {
    return this.fenced;
  }

  /**
   * Takes the partition for this term: appends CopyPartitionTaken after whatever is there. Answers its
   * position: once the read models include it, they include everything earlier terms committed.
   */
  async take(): Promise<Position> {
    const result = await this.inner.appendToStream(this.stream, [{ id: uuidv4(), type: PARTITION_TAKEN, data: this.term }], { expectedRevision: 'any' });
    this.revision = result.nextExpectedRevision;
    this.fenced = false;
    return result.position;
  }

  async appendToStreams(appends: readonly StreamAppend[]): Promise<readonly AppendResult[]> {
    if (this.fenced) throw new FencedOut(this.term.partition, this.term.epoch);
    if (this.revision === null) throw new Error(`copy engine partition ${this.term.partition}: an outcome appended before the term took the partition`);
    const fence: StreamAppend = {
      streamName: this.stream,
      events: [{ id: uuidv4(), type: OUTCOMES_FENCED, data: { epoch: this.term.epoch } }],
      expectedRevision: this.revision,
    };
    try {
      const results = await this.inner.appendToStreams([fence, ...appends]);
      this.revision = results[0]!.nextExpectedRevision;
      return results.slice(1);
    } catch (error) {
      if (error instanceof WrongExpectedVersionError && error.streamName === this.stream) {
        await this.resync();
        if (this.fenced) throw new FencedOut(this.term.partition, this.term.epoch);
      } else await this.resync().catch(() => undefined);
      throw error;
    }
  }

  appendToStream(streamName: string, events: EventData | readonly EventData[], options?: { expectedRevision?: AppendExpectedRevision }): Promise<AppendResult> {
    const list = Array.isArray(events) ? (events as readonly EventData[]) : [events as EventData];
    return this.appendToStreams([
      { streamName, events: list, ...(options?.expectedRevision !== undefined ? { expectedRevision: options.expectedRevision } : {}) },
    ]).then((results) => results[0]!);
  }

  /**
   * After a failure whose effect is not known (EventStoreDB may have stored the fence entry): the fence
   * stream's last event says whose it is. This term's: continue after it; another's: fenced out.
   */
  private async resync(): Promise<void> {
    try {
      for await (const { event } of this.inner.readStream(this.stream, { direction: 'backwards', fromRevision: 'end', maxCount: 1 })) {
        // Epochs are unique per partition lease: the last event's epoch names the term that wrote it.
        const data = event.data as Partial<FenceData> | null;
        if (data?.epoch === this.term.epoch) this.revision = event.revision;
        else this.fenced = true;
        return;
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
  }

  readStream: EventStore['readStream'] = (streamName, options) => this.inner.readStream(streamName, options);
  readAll: EventStore['readAll'] = (options) => this.inner.readAll(options);
  subscribeToAll: EventStore['subscribeToAll'] = (options) => this.inner.subscribeToAll(options);
  headPosition: EventStore['headPosition'] = () => this.inner.headPosition();
  lastCommittedPosition: EventStore['lastCommittedPosition'] = () => this.inner.lastCommittedPosition();
  setStreamMetadata: EventStore['setStreamMetadata'] = (streamName, metadata) => this.inner.setStreamMetadata(streamName, metadata);
  getStreamMetadata: EventStore['getStreamMetadata'] = (streamName) => this.inner.getStreamMetadata(streamName);
  deleteStream: EventStore['deleteStream'] = (streamName, options) => this.inner.deleteStream(streamName, options);
  /** The inner store belongs to the service: a term's view disposes of nothing. */
  dispose = async (): Promise<void> => undefined;
}
