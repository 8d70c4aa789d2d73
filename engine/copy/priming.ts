// Priming (issue 16): what a master's fan-out reads (CopyInputs.prime) is read in the background once
// the master is known to the term (its book warmed, engine.ts) and again whenever one of its copiers
// changes, so its next change finds the kept reads and the slaves' symbols in place instead of reading
// them on the copy's path (the first trade after slaves were added read them cold: 170 ms under load).
//
// A priming decides nothing and holds no copy back: a fan-out reads through the same kept reads, which
// answer only while their read models are unchanged since the read began (inputs.ts `kept`). At most
// one priming per master runs at a time; asked again meanwhile, it runs once more after it (the change
// may have come after its reads began); only a few run at once, so a term's start does not queue a
// read of every master ahead of the copies.
import type { RecoveryLog } from '../../store/recovery.js';

/** Primings running at once. */
const PRIMING_AT_ONCE = 2;

export interface PrimingParts {
  /** Reads ahead for the master (CopyInputs.prime, once the read models include the changes routed). */
  readonly prime: (masterAccountId: string) => Promise<void>;
  readonly log: Pick<RecoveryLog, 'warn'>;
}

export class Priming {
  /** Masters waiting for a priming, in the order asked. */
  private readonly waiting = new Set<string>();
  /** Masters being primed now. */
  private readonly running = new Set<string>();
  /** Bumped by reset: a priming begun before it asks for nothing more. */
  private generation = 0;
  private idleWaiters: (() => void)[] = [];
  private done = 0;

  constructor(private readonly parts: PrimingParts) {}

  /** Primes the masters (again, once after the one under way, if one is). */
  request(masterAccountIds: Iterable<string>): void {
    for (const id of masterAccountIds) this.waiting.add(id);
    this.next();
  }

  /** Primings finished so far (specs). */
  get finished(): number {
    return this.done;
  }

  /** Resolves once no priming is waiting or running (specs). */
  idle(): Promise<void> {
    if (this.waiting.size === 0 && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The term ended: nothing waiting is primed (primings running finish; what they keep is harmless). */
  reset(): void {
    this.generation += 1;
    this.waiting.clear();
    this.running.clear();
    this.settle();
  }

  private next(): void {
    for (const id of this.waiting) {
      if (this.running.size >= PRIMING_AT_ONCE) return;
      if (this.running.has(id)) continue;
      this.waiting.delete(id);
      this.running.add(id);
      const generation = this.generation;
      this.parts
        .prime(id)
        .catch((error: unknown) =>
          this.parts.log.warn(
            `copy engine: reading ahead for master ${id} failed; its next change reads what it needs: ${error instanceof Error ? error.message : String(error)}`,
          ),
        )
        .finally(() => {
          if (generation !== this.generation) return;
          this.done += 1;
          this.running.delete(id);
          this.next();
          this.settle();
        });
    }
  }

  private settle(): void {
    if (this.waiting.size > 0 || this.running.size > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
