// The copy engine spread over the live instances of the service: the masters are split into
// COPY_ENGINE_PARTITIONS partitions (partitionKey.ts), and each partition is a copy engine of its own
// (engine.ts with `partition`): its own lease, its own subscription of `$all` (it skips the events of
// other partitions' masters), its own checkpoint row (`copy-engine/<count>/<index>`), its own timers
// (retries, deferrals, management of its masters' copiers).
//
// Every instance holds its fair share of the partitions (Leases.holdShare): a new instance gets work
// from the others, and the partitions of an instance that dies are taken by the survivors at their next
// round (about a second after its lease session ends). A partition that moves resumes from its
// checkpoint on the new instance: events the old owner handled after its last checkpoint are handled
// again, which places nothing twice (the slave orders' client ids are deterministic, so the venue
// answers a repeat with its first answer; the outcomes are appended with deterministic event ids; an
// event whose outcome a copier's copies stream already holds is not handled again).
//
// Each lease term gets a new engine, so nothing one term learnt (the outcomes known per copier) is
// trusted by the next. Each term is fenced (fence.ts): it begins by appending to its partition's fence
// stream and waits until the read models include everything the previous term committed; the previous
// term's later appends and checkpoint saves are refused (its lease epoch is no longer the partition's).
//
// COPY_ENGINE_PARTITIONS=1 (the default) is the one engine of a single instance: lease and checkpoint
// "copy-engine", every master; more instances then share the other background work but one of them
// copies at a time.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../../projections/schema.js';
import { loadCheckpoint } from '../../store/postgres/checkpoints.js';
import type { HeldShare, Leases } from '../../store/postgres/leases.js';
import { comparePositions, type Position } from '../../store/port.js';
import { CopyEngine, type CopyEngineDeps } from './engine.js';
import { COPY_ENGINE_PARTITION, copyEnginePartition } from './tracking.js';

/** What the service and its routes use of the copy engine, partitioned or not. */
export interface CopyEngineControl {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves once every event this instance's partitions read so far is handled. */
  idle(): Promise<void>;
  /** Resolves once no partition here is reading ahead for its masters (priming.ts), with the primings finished (specs). */
  primed(): Promise<number>;
  /** True once every partition (here or at another instance) has handled the event at `position`. */
  handled(position: Position, timeoutMs: number): Promise<boolean>;
}

export type PartitionedCopyEngineDeps = Omit<CopyEngineDeps, 'leases' | 'partition'> & {
  readonly leases: Leases;
  readonly count: number;
  readonly db: Kysely<ReadModels>;
};

/** How often a wait reads the checkpoint of a partition another instance works. */
const REMOTE_POLL_MS = 20;

export class PartitionedCopyEngine implements CopyEngineControl {
  readonly names: readonly string[];
  /** The engines of the partitions this instance works now. */
  private readonly engines = new Map<string, CopyEngine>();
  private share: HeldShare | null = null;

  constructor(private readonly deps: PartitionedCopyEngineDeps) {
    this.names = deps.count === 1 ? [COPY_ENGINE_PARTITION] : Array.from({ length: deps.count }, (_, index) => copyEnginePartition(index, deps.count));
  }

  /** The partitions this instance works now. */
  get held(): readonly string[] {
    return [...this.engines.keys()];
  }

  /**
   * Takes this instance's share of the partitions. Resolves once the first round is decided and the
   * partitions it took know where they start: every master event appended after that is copied (by
   * this instance or another).
   */
  async start(): Promise<void> {
    const starting: Promise<void>[] = [];
    let firstRound = true;
    this.share = this.deps.leases.holdShare(this.names, async (name, signal, epoch) => {
      const index = this.names.indexOf(name);
      const { leases, count, ...deps } = this.deps;
      let fencedOut: () => void = () => undefined;
      const ended = new Promise<void>((resolve) => {
        fencedOut = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      const engine = new CopyEngine({
        ...deps,
        leases: null,
        ...(count > 1 ? { partition: { index, count } } : {}),
        // Early placement only while the lease is this term's and its session answered lately (engine.ts).
        term: { lease: name, epoch, instance: leases.instanceId, holds: () => !signal.aborted && leases.sessionFresh },
        onFencedOut: () => {
          this.deps.log.warn(`${name}: another instance took this partition (epoch ${epoch} fenced out); this term ends`);
          fencedOut();
        },
      });
      this.engines.set(name, engine);
      const started = engine.start();
      if (firstRound) starting.push(started);
      try {
        // A lease lost (or fenced) while the term is still starting ends it too.
        await Promise.race([started, ended]);
        if (!signal.aborted) await ended;
      } finally {
        this.engines.delete(name);
        await engine.stop();
      }
    });
    await this.share.decided;
    firstRound = false;
    await Promise.all(starting);
  }

  async stop(): Promise<void> {
    await this.share?.release();
    this.share = null;
  }

  async idle(): Promise<void> {
    await Promise.all([...this.engines.values()].map((engine) => engine.idle()));
  }

  /** Resolves once no partition here is reading ahead for its masters, with the primings finished (specs). */
  async primed(): Promise<number> {
    const counts = await Promise.all([...this.engines.values()].map((engine) => engine.primed()));
    return counts.reduce((a, b) => a + b, 0);
  }

  async handled(position: Position, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const one = async (name: string): Promise<boolean> => {
      for (;;) {
        const engine = this.engines.get(name);
        if (engine) {
          if (await engine.handled(position, Math.max(0, Math.min(250, deadline - Date.now())))) return true;
        } else {
          const saved = await loadCheckpoint(this.deps.db, name).catch(() => undefined);
          if (saved && comparePositions(saved, position) >= 0) return true;
          await new Promise((resolve) => setTimeout(resolve, REMOTE_POLL_MS));
        }
        if (Date.now() >= deadline) return false;
      }
    };
    const answers = await Promise.all(this.names.map(one));
    return answers.every(Boolean);
  }
}
