// The copy engine's intake: the positions-* and copier-* events of `$all` (as the engine's processor
// reads them, engine.ts), each routed to a work item in the group of the master account it belongs to,
// or marked handled at once when it asks nothing of the engine.
import type { CopierEvent } from '../../domain/copier/events.js';
import { accountIdOfPositionsStream, type PositionsEvent } from '../../domain/positions/events.js';
import type { Position, RecordedEvent } from '../../store/port.js';
import type { Recovery } from '../../store/recovery.js';
import { type EarlyCopies, STATE_EVENTS } from './early.js';
import type { CopyBook } from './book.js';
import type { CopyInputs } from './inputs.js';
import type { Outcomes } from './outcomes.js';
import type { Tracked, Tracking } from './tracking.js';
import { copierTriggerOf, masterTriggerOf } from './triggers.js';
import type { Work } from './work.js';

export interface IntakeParts {
  readonly inputs: CopyInputs;
  readonly outcomes: Outcomes;
  readonly tracking: Tracking;
  /** Failures of routing and handling: logged once per run of failures, retried with backoff. */
  readonly handling: Recovery;
  readonly stopped: () => boolean;
  /** Slave orders placed from the venue's change, before its event got here (early.ts). */
  readonly early: EarlyCopies;
  /** The engine's book of copies (book.ts): told every copy-changing event of a slave as it is routed. */
  readonly book?: CopyBook;
  /** A copier of the master changed (routed): what its fan-outs read is read ahead again (priming.ts). */
  readonly copierChanged?: (masterAccountId: string) => void;
  /** Whether this engine copies the master account (its partition, engine/copy/partitions.ts); default every one. */
  readonly owns?: (masterAccountId: string) => boolean;
}

export class Intake {
  private readonly masterOfCopier = new Map<string, string>();
  /**
   * The newest routed event that changes a read model the engine decides with: every copier event
   * (copiers), and the slave-side ends of copies (copies). A master event waits for the read models
   * to include this and the engine's own appends, not for itself: what it says, the engine has.
   */
  private lastStateEvent: Position | null = null;
  /** The newest routed copier event (the copiers read model has changed up to it). */
  private lastCopierEvent: Position | null = null;
  /** State events routed so far (each counted: see lastStateEvent), and per account the count at its latest. */
  private stateRouted = 0;
  private readonly stateRoutedAt = new Map<string, number>();
  /**
   * Every account that may be a master (knowMasters), or null: unknown, every positions event is
   * handed on. A positions event of an account outside it is marked handled at once: its handler would
   * find no copier and do nothing but wait for the read models (each slave fill of a fan-out is one).
   */
  private masters: Set<string> | null = null;

  constructor(private readonly parts: IntakeParts) {}

  /** The newest routed event that changes a read model the engine decides with (see lastStateEvent). */
  get newestStateEvent(): Position | null {
    return this.lastStateEvent;
  }

  /** A mark of the state events routed so far: what stateChangedSince compares with. */
  get stateCount(): number {
    return this.stateRouted;
  }

  /**
   * Whether a state event routed after `mark` (stateCount) concerns one of `accountIds`: a copy-changing
   * positions event of the account, or a copier event whose slave or master it is. An early run holds
   * its decision against its master and slave accounts only, not against every master's (early.ts).
   */
  stateChangedSince(mark: number, accountIds: readonly string[]): boolean {
    for (const id of accountIds) if ((this.stateRoutedAt.get(id) ?? 0) > mark) return true;
    return false;
  }

  /**
   * The masters with copiers as the copiers read model holds them, read once it includes every event
   * before the first this term routes (engine.ts beginTerm): with each CopierCreated routed from then on,
   * a superset of the masters of every copier created before the event routed. A copier created after a
   * master event does not copy it (nor did its early run, early.ts; copyOpenPositions does). Null: unknown.
   */
  knowMasters(masterAccountIds: readonly string[] | null): void {
    this.masters = masterAccountIds ? new Set(masterAccountIds) : null;
  }

  /** The newest routed copier event: an early run reads the copiers read model once it includes it. */
  get newestCopierEvent(): Position | null {
    return this.lastCopierEvent;
  }

  /** Routes an event, trying again while what it reads cannot be read (the event stays in order). */
  async route(recorded: RecordedEvent): Promise<Work | null> {
    const tracked = this.parts.tracking.track(recorded);
    for (;;) {
      try {
        const work = await this.routeOnce(recorded, tracked);
        this.parts.handling.succeeded();
        return work;
      } catch (error) {
        if (this.parts.stopped()) return null;
        await this.parts.handling.failed(error, this.parts.stopped);
      }
    }
  }

  private async routeOnce(recorded: RecordedEvent, tracked: Tracked): Promise<Work | null> {
    const skip = (): null => {
      this.parts.early.routed(recorded.id);
      this.parts.tracking.finish(tracked);
      return null;
    };
    const masterAccountId = accountIdOfPositionsStream(recorded.streamId);
    if (masterAccountId) {
      const stateBefore = this.lastStateEvent;
      if (STATE_EVENTS.has(recorded.type)) {
        this.lastStateEvent = recorded.position;
        this.stateRouted += 1;
        this.stateOf(masterAccountId);
        this.parts.book?.routed(recorded);
      }
      if (this.parts.owns && !this.parts.owns(masterAccountId)) return skip();
      const trigger = masterTriggerOf(recorded as unknown as PositionsEvent, recorded.id);
      if (!trigger) return skip();
      const early = this.parts.early.take(recorded.id);
      // No master as far as this term knows, and nothing placed early to record: no copier to decide for.
      if (early === null && this.masters && !this.masters.has(masterAccountId)) return skip();
      return { kind: 'master', group: masterAccountId, recorded, trigger, masterAccountId, stateBefore, early };
    }
    this.lastStateEvent = recorded.position;
    this.lastCopierEvent = recorded.position;
    this.stateRouted += 1;
    const event = recorded as unknown as CopierEvent;
    // Its slave's account, and its master's where known: a run of another master has the copier
    // among its copiers only with that slave account, which it holds its decision against.
    this.stateOf(event.data.toAccountId);
    if (event.type === 'CopierCreated') {
      this.stateOf(event.data.fromAccountId);
      this.masters?.add(event.data.fromAccountId);
      this.masterOfCopier.set(event.data.copierId, event.data.fromAccountId);
      this.parts.early.copierCreated(event.data.fromAccountId);
    } else {
      // A master read this term (routed, or its copiers read): its fan-outs read the copier again.
      const known = this.masterOfCopier.get(event.data.copierId) ?? this.parts.inputs.knownMasterOf(event.data.copierId);
      if (known) this.stateOf(known);
      if (known && (!this.parts.owns || this.parts.owns(known))) this.parts.copierChanged?.(known);
    }
    const trigger = copierTriggerOf(event);
    if (!trigger) return skip();
    const copierId = event.data.copierId;
    let master = this.masterOfCopier.get(copierId);
    if (!master) {
      await this.parts.outcomes.waitForReadModels(recorded.position);
      master = (await this.parts.inputs.copier(copierId))?.from_account_id;
      if (!master) return skip();
      this.masterOfCopier.set(copierId, master);
    }
    if (this.parts.owns && !this.parts.owns(master)) return skip();
    return { kind: 'copier', group: master, recorded, copierId, trigger };
  }

  /** The state event routed now (counted) concerns `accountId` (stateChangedSince). */
  private stateOf(accountId: string): void {
    this.stateRoutedAt.set(accountId, this.stateRouted);
  }
}
