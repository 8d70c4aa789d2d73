// Early placement (issue 16): a master's slave orders are placed from the venue's change as soon as
// this process sees it (AccountConnections.watch), before the venue state is saved, the positions event
// appended and read back through `$all`. The bookkeeping is unchanged and follows: when the positions
// event reaches the engine (intake.ts), its handler (handlers.ts) records the outcomes placed early
// (their `source` then names the event's `$all` position) and decides only for the copiers not placed
// early; the event counts as handled once all its outcomes are stored, as before.
//
// Why it is safe:
//   - slave orders carry deterministic client ids (domain/copy/orderIds.ts), derived from the positions
//     event's id, which derives from the venue change (engines/venues/recorder.ts) and is the same
//     when a reconciliation records the change after a crash: a master event decided again (the early
//     run was lost, failed, or the process died before the outcome was stored) gets the venue's first
//     answers and places nothing twice;
//   - a slave order placed early answers after the venue save that holds it, which holds the master's
//     change too (saves are taken in order), so no saved venue state has a copy without its master
//     trade; what a crash loses before the outcome is stored, the handler of the reconciled event
//     records as it always did;
//   - it runs only where the handler would decide the same: on the instance that works the engine's
//     partition, when the master's group has no work queued or running and no earlier change of the
//     master is on its way to the engine; it decides once its copies include the engine's own appends
//     and every copy-changing event (a close, a fill, a cancellation) the intake routed (the engine's
//     book, book.ts, holds them as soon as they are stored or routed; the read models only for the
//     book's first load of the master), and
//     places only if none of the master's or its slave accounts' was routed meanwhile (a copier event
//     counts for its slave account and its master), and none of the master's slave accounts has one on its
//     way that would change the master's copies as the book holds them (a close of a slave position
//     the book holds no open copy of for this master, such as the slave closes the engine's own close
//     orders cause, changes nothing the run decides with: the book's fold ignores a close of a copy
//     already ended, and the master's copies and martingale counts stay as they are); and only for
//     copiers without features (a feature may read the master's orders up to the
//     event, which only its `$all` position can wait for): the handler decides those.
//   Otherwise the change goes the usual way, and so does every copier the early run left out.
// With more than one instance (README "Running more than one instance"): changes are heard only where
// the venue sessions are held, and each partition term's engine hears its own masters only. `active`
// is the current term's check (engine.ts): not ended, its fence not refused (fence.ts), its lease
// session confirmed within its last heartbeats (Leases.sessionFresh); it is asked when the change is
// seen and again, through `ready`, just before the first order goes out. What an early run placed is
// recorded by the event's handler through the term's fenced append, so a stale term records nothing.
// A term that lost its lease after that check can only place what the partition's next term places for
// the same positions event: the same client order ids, answered by the venue with its first answer
// (the order placed early), which the next term records as its outcome. No second order can arise.

// One difference remains: a copier change stored but not yet in the copiers read model when the master
// fills is decided on as the read model has it then, where the handler would have waited for it. A
// change the API acknowledged is in that read model (app/services.ts execute waits for it), so what a
// user was told has happened is always seen.
import type { PositionsEvent } from '../../domain/positions/events.js';
import type { CopyEvent } from '../../domain/copy/events.js';
import type { Position } from '../../store/port.js';
import type { CopierRow } from './inputs.js';
import { masterTriggerOf, type MasterTrigger } from './triggers.js';
import type { Work } from './work.js';

/** Positions events that change what copies there are or what they hold (intake.ts routes them as state). */
export const STATE_EVENTS: ReadonlySet<string> = new Set(['PositionClosed', 'PositionPartiallyClosed', 'PendingOrderFilled', 'PendingOrderCancelled']);

/** A change seen this long ago and not yet routed: the engine is far behind, every change goes the usual way. */
const BEHIND_MS = 10_000;
/** A change seen this long ago and never routed (its append kept failing, say) is forgotten; so is an early run never taken. */
const FORGET_MS = 120_000;

/** What one early run placed, by copier: the copier and its outcome, its `source` still without a position. */
export type EarlyOutcomes = ReadonlyMap<string, { readonly copier: CopierRow; readonly events: readonly CopyEvent[] }>;

export interface EarlyCause {
  readonly masterAccountId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly trigger: Extract<MasterTrigger, { kind: 'event' }>;
  readonly masterEventAt: string | null;
}

export interface EarlyParts {
  /** Whether this instance works the engine's partition now, its pipeline running. */
  readonly active: () => boolean;
  /** The newest state event the intake routed (Intake.newestStateEvent): what a book's first load waits for. */
  readonly stateMark: () => Position | null;
  /** A count of the state events routed so far (Intake.stateCount). */
  readonly stateCount: () => number;
  /**
   * Whether a state event routed after count `mark` concerns one of the accounts (Intake.stateChangedSince):
   * a run holds back on its own master's and slaves' only, not on another master's.
   */
  readonly stateChangedSince: (mark: number, accountIds: readonly string[]) => boolean;
  /**
   * Resolves once what the early run of the master decides with includes `mark` and the engine's own
   * appends: the engine's book of the master's copies (book.ts), loaded once the read models include
   * them, and the copiers read model up to the newest copier event routed.
   */
  readonly catchUp: (mark: Position | null, masterAccountId: string) => Promise<void>;
  /**
   * Decides and places for the master's copiers without features; null: held back after all. `ready`
   * is asked with the copiers' slave accounts once the inputs are read, before anything is placed.
   */
  readonly place: (cause: EarlyCause, ready: (slaveAccountIds: readonly string[]) => boolean) => Promise<EarlyOutcomes | null>;
  /**
   * The slave positions and pending orders the engine's book holds open copies of for the master; null
   * when the book does not hold the master (then every copy-changing change of a slave holds back).
   */
  readonly heldSlaveItems?: (masterAccountId: string) => ReadonlySet<string> | null;
  /** Masters with copiers, as the copiers read model says (read once a term). */
  readonly masters: () => Promise<readonly string[]>;
  /**
   * Loads what the early runs of these masters decide with (their books) in the background, ahead of
   * their first change, so that change does not wait for it; a load that fails is left to the run.
   */
  readonly warm?: (masterAccountIds: readonly string[]) => void;
  readonly now?: () => number;
}

interface Seen {
  readonly accountId: string;
  readonly state: boolean;
  /** For a copy-changing change: the slave position or pending order it is about. */
  readonly item: string | null;
  readonly at: number;
}

/** The position or pending order a copy-changing change (STATE_EVENTS) is about, as the copies fold keys it. */
const itemOf = (event: PositionsEvent): string | null => {
  switch (event.type) {
    case 'PositionClosed':
      return event.data.trade.positionId;
    case 'PositionPartiallyClosed':
      return event.data.position.positionId;
    case 'PendingOrderFilled':
    case 'PendingOrderCancelled':
      return event.data.order.orderId;
    default:
      return null;
  }
};

export class EarlyCopies {
  /** Venue changes seen and not yet routed by the intake, by positions event id. */
  private readonly outstanding = new Map<string, Seen>();
  /** Work items per group, queued or running in the pipeline. */
  private readonly busy = new Map<string, number>();
  /** The work counted in `busy` (a pipeline dropped meanwhile leaves its work uncounted). */
  private counted = new WeakSet<Work>();
  /** Master events in their group now: an early run of one is not held back by its own event. */
  private readonly entered = new Set<string>();
  /** Early runs not yet taken by their event's handler, by positions event id. */
  private readonly runs = new Map<string, { readonly at: number; readonly result: Promise<EarlyOutcomes | null> }>();
  /** Accounts with copiers; null until read this term. */
  private masters: Set<string> | null = null;
  /** Masters of copiers created since the read began (the intake routes their CopierCreated). */
  private readonly newMasters = new Set<string>();
  private loading = false;
  private readonly now: () => number;

  constructor(private readonly parts: EarlyParts) {
    this.now = parts.now ?? Date.now;
  }

  /**
   * A venue change of `accountId`, as the positions event (`id`, `event`) it will be recorded as. Called
   * while the venue delivers it: never throws, starts the early run when the rules above allow one.
   */
  seen(accountId: string, id: string, event: PositionsEvent): void {
    if (!this.parts.active()) {
      if (this.outstanding.size > 0 || this.masters) this.reset();
      return;
    }
    const state = STATE_EVENTS.has(event.type);
    this.outstanding.set(id, { accountId, state, item: state ? itemOf(event) : null, at: this.now() });
    if (!this.masters) {
      this.loadMasters();
      return;
    }
    if (!this.masters.has(accountId) || this.runs.has(id)) return;
    const trigger = masterTriggerOf(event, id);
    if (!trigger || trigger.kind !== 'event' || !this.ready(accountId, id)) return;
    const masterEventAt = (event.data as { at?: string }).at ?? null;
    const cause: EarlyCause = { masterAccountId: accountId, eventId: id, eventType: event.type, trigger, masterEventAt };
    const mark = this.parts.stateMark();
    const count = this.parts.stateCount();
    const result = (async () => {
      await this.parts.catchUp(mark, accountId);
      if (!this.ready(accountId, id)) return null;
      // Decided with read models that include every copy-changing event routed (`mark`): none of the
      // master's or its slaves' routed since (`count`), and none of the slaves' on its way.
      return this.parts.place(cause, (slaves) => this.ready(accountId, id, slaves) && !this.parts.stateChangedSince(count, [accountId, ...slaves]));
    })();
    // A failure is the handler's to meet: it decides again (take answers null).
    result.catch(() => undefined);
    this.runs.set(id, { at: this.now(), result });
  }

  /** The intake handed the event on (or skipped it): its change no longer holds early runs back. */
  routed(eventId: string): void {
    this.outstanding.delete(eventId);
  }

  /**
   * The term has begun: the masters are read now rather than at the first change seen (which would
   * go the usual way), and their books are loaded ahead of their first change (`warm`).
   */
  warm(): void {
    if (!this.masters && this.parts.active()) this.loadMasters();
  }

  /** A copier of `masterAccountId` exists from now on. */
  copierCreated(masterAccountId: string): void {
    this.masters?.add(masterAccountId);
    if (this.loading) this.newMasters.add(masterAccountId);
    if (this.masters || this.loading) this.parts.warm?.([masterAccountId]);
  }

  /** A work item enters its group (a master event's change is routed with it). */
  enter(work: Work): void {
    this.counted.add(work);
    this.busy.set(work.group, (this.busy.get(work.group) ?? 0) + 1);
    if (work.kind !== 'master') return;
    this.outstanding.delete(work.recorded.id);
    this.entered.add(work.recorded.id);
  }

  /** A work item of the group is done. */
  leave(work: Work): void {
    if (!this.counted.has(work)) return;
    this.counted.delete(work);
    const left = (this.busy.get(work.group) ?? 1) - 1;
    if (left > 0) this.busy.set(work.group, left);
    else this.busy.delete(work.group);
    if (work.kind === 'master') this.entered.delete(work.recorded.id);
  }

  /** The early run of the positions event `eventId`, if one ran: null when it held back or failed. */
  take(eventId: string): Promise<EarlyOutcomes | null> | null {
    const run = this.runs.get(eventId);
    if (!run) return null;
    this.runs.delete(eventId);
    return run.result.catch(() => null);
  }

  /** The pipeline is gone (lease lost, a defect): what it held is read again, and decided again. */
  reset(): void {
    this.outstanding.clear();
    this.busy.clear();
    this.counted = new WeakSet();
    this.entered.clear();
    this.runs.clear();
    this.masters = null;
    this.newMasters.clear();
  }

  /**
   * The master's group idle, no earlier change of the master on its way, nor (with `slaves`) a
   * copy-changing change of one of its slave accounts about a copy the book holds open for the master.
   */
  private ready(accountId: string, id: string, slaves: readonly string[] = []): boolean {
    const own = this.entered.has(id) ? 1 : 0;
    if (!this.parts.active() || (this.busy.get(accountId) ?? 0) > own) return false;
    const slaveSet = new Set(slaves);
    const now = this.now();
    let ready = true;
    // Read once, and only when a slave's change is on its way (undefined: not read yet).
    let held: ReadonlySet<string> | null | undefined;
    const touchesCopies = (seen: Seen): boolean => {
      if (seen.item === null || !this.parts.heldSlaveItems) return true;
      if (held === undefined) held = this.parts.heldSlaveItems(accountId);
      return held === null || held.has(seen.item);
    };
    for (const [other, seen] of this.outstanding) {
      if (now - seen.at > FORGET_MS) this.outstanding.delete(other);
      else if (now - seen.at > BEHIND_MS) ready = false;
      else if (other !== id && (seen.accountId === accountId || (seen.state && slaveSet.has(seen.accountId) && touchesCopies(seen)))) ready = false;
    }
    for (const [other, run] of this.runs) if (now - run.at > FORGET_MS) this.runs.delete(other);
    return ready;
  }

  private loadMasters(): void {
    if (this.loading) return;
    this.loading = true;
    this.parts.masters().then(
      (ids) => {
        this.loading = false;
        if (!this.parts.active()) return;
        this.masters = new Set([...ids, ...this.newMasters]);
        this.newMasters.clear();
        this.parts.warm?.([...this.masters]);
      },
      () => {
        this.loading = false;
        this.newMasters.clear();
      },
    );
  }
}

/**
 * The outcome placed early, its source naming the positions event's `$all` position now known. The
 * run's events are its own (new literals, taken by one handler): the source is set on them, not spread
 * into new ones (domain/copy/decisionContext.ts, orderOf). Setting it again, on a retry, sets the same.
 */
export const withSource = (events: readonly CopyEvent[], source: { eventId: string; position: string; type: string }): readonly CopyEvent[] => {
  for (const event of events) Object.assign(event.data, { source });
  return events;
};
