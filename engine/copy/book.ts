// The engine's own book of open copies and martingale counts (issue 16): what the early path (early.ts)
// decides with, kept in memory and updated from the engine's own outcomes as they are stored and from
// the slaves' venue events as the intake routes them, so a decision no longer waits for the copies
// read model to take in the previous trade.
//
// What a change does is said once, in projections/copies/changes.ts (`changesOf`); this folds those
// changes as the copies read model does (projector.ts), for the open copies and the martingale counts
// only: retries and deferrals are not kept here.
//
// Why it holds what the read model would:
//   - a master's part is loaded from the copies read model (open copies, martingale rows, and the
//     closes and partial closes its venue reported before their copy: slave_closures, slave_partials)
//     in one snapshot together with the read model's checkpoint L. The snapshot holds every event up
//     to L and none after it (the checkpoint moves in the transaction that applies the events);
//   - before the snapshot is taken the read models are waited for up to everything applied here so far,
//     so each change applied before the load is at or before L; changes applied while it runs are kept
//     and applied after it when they are after L;
//   - changes after L are applied as they come, not in `$all` order (an outcome when its append
//     commits, a slave's event when the intake routes it). The fold does not depend on that order: a
//     slave's close before its copy is recorded waits in `closures` as in slave_closures, a close of a
//     copy already closed does nothing (nor steps the martingale), an event is applied once (by id);
//   - every writer of the copies streams is this engine (outcomes.ts), and a term has a book of its
//     own (engine.ts): a new term, or a pipeline started again, loads again.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { isStandaloneTrade } from '../../domain/copy/features/rules.js';
import type { MartingaleState, OrderType, SlaveCopy } from '../../domain/copy/types.js';
import { initialMartingaleState } from '../../domain/copy/martingale.js';

import {
  type CopiesChange,
  changesOf,
  type Ending,
  firstMartingaleCount,
  isMartingaleStep,
  martingaleStep,
  type Where,
} from '../../projections/copies/changes.js';
import type { ReadModels } from '../../projections/schema.js';
import { comparePositions, type Position, positionFromString, type RecordedEvent } from '../../store/port.js';
import { projectionCheckpoint } from '../../store/postgres/checkpoints.js';

/** An open copy as the book keeps it. */
interface OpenCopy extends SlaveCopy {
  readonly copierId: string;
  readonly masterAccountId: string;
  readonly slaveAccountId: string;
}

/** A close or a partial close the slave's venue reported with no open copy in the book. */
interface Buffered {
  readonly accountId: string;
  readonly at: number;
  readonly result: number | null;
  readonly volume: number;
}

/** Closes and parts buffered this long (as slave_closures and slave_partials keep theirs). */
const BUFFER_MS = 86_400_000;
/** Event ids remembered to apply each event once. */
const APPLIED_IDS = 100_000;
/** Masters loaded at once ahead of their first change (`warm`). */
const WARM_AT_ONCE = 2;

/** The changes of one event, with its `$all` position (its append's, for the engine's own outcomes). */
interface Applied {
  readonly position: Position;
  readonly changes: readonly CopiesChange[];
}

export interface CopyBookParts {
  readonly db: Kysely<ReadModels>;
  /** Resolves once the engine's read models include `position` (Outcomes.waitForReadModels). */
  readonly waitForReadModels: (position: Position) => Promise<void>;
  /** How a master's snapshot is read (copiesSnapshot; specs give their own). */
  readonly snapshot?: (db: Kysely<ReadModels>, masterAccountId: string) => Promise<CopiesSnapshot>;
}

/** A master's part of the copies read model, and the `$all` position it holds every event up to (null: none). */
export interface CopiesSnapshot {
  readonly rows: LoadRows;
  readonly checkpoint: Position | null;
}

/**
 * The master's open copies, its copiers' martingale rows and the closes and parts buffered for its
 * slave accounts, with the copies read model's checkpoint, in one snapshot (REPEATABLE READ).
 */
export const copiesSnapshot = (db: Kysely<ReadModels>, masterAccountId: string): Promise<CopiesSnapshot> =>
  db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const copiers = trx.selectFrom('copiers').select('id').where('from_account_id', '=', masterAccountId);
      const slaves = trx.selectFrom('copiers').select('to_account_id').where('from_account_id', '=', masterAccountId);
      const copies = await trx
        .selectFrom('copies')
        .select(['copier_id', 'master_position_id', 'part', 'slave_account_id', 'slave_position_id', 'kind', 'symbol', 'order_type', 'volume'])
        .where('master_account_id', '=', masterAccountId)
        .where('status', '=', 'open')
        .execute();
      const martingale = await trx.selectFrom('copier_martingale').select(['copier_id', 'consecutive_losses']).where('copier_id', 'in', copiers).execute();
      const closures = await trx
        .selectFrom('slave_closures')
        .select(['slave_account_id', 'slave_position_id', 'closed_at', 'result'])
        .where('slave_account_id', 'in', slaves)
        .execute();
      const partials = await trx
        .selectFrom('slave_partials')
        .select(['slave_account_id', 'slave_position_id', 'at', 'volume'])
        .where('slave_account_id', 'in', slaves)
        .execute();
      const saved = await sql<{ position: string | null }>`SELECT position FROM processor_checkpoints WHERE name = ${projectionCheckpoint('copies')}`.execute(
        trx,
      );
      const position = saved.rows[0]?.position ?? null;
      return { rows: { copies, martingale, closures, partials }, checkpoint: position === null ? null : positionFromString(position) };
    });

export interface LoadRows {
  readonly copies: readonly {
    copier_id: string;
    master_position_id: string;
    part: number;
    slave_account_id: string;
    slave_position_id: string;
    kind: 'position' | 'pendingOrder';
    symbol: string;
    order_type: string;
    volume: number;
  }[];
  readonly martingale: readonly { copier_id: string; consecutive_losses: number }[];
  readonly closures: readonly { slave_account_id: string; slave_position_id: string; closed_at: Date | string; result: number | null }[];
  readonly partials: readonly { slave_account_id: string; slave_position_id: string; at: Date | string; volume: number }[];
}

const copyKey = (copierId: string, masterPositionId: string, part: number) => `${copierId}\u0000${masterPositionId}\u0000${part}`;
const slaveKey = (slaveAccountId: string, slavePositionId: string) => `${slaveAccountId}\u0000${slavePositionId}`;
const positionKey = (copierId: string, masterPositionId: string) => `${copierId}\u0000${masterPositionId}`;
const later = (a: Position, b: Position): boolean => comparePositions(a, b) > 0;

const KEPT_CHANGES: ReadonlySet<CopiesChange['type']> = new Set(['copyOpened', 'copiesChanged', 'copiesPartiallyClosed', 'copiesEnded']);

/** Adds `key` to the set of `index` under `at`. */
const indexAdd = (index: Map<string, Set<string>>, at: string, key: string) => {
  const set = index.get(at) ?? new Set<string>();
  set.add(key);
  index.set(at, set);
};
const indexDelete = (index: Map<string, Set<string>>, at: string, key: string) => {
  const set = index.get(at);
  set?.delete(key);
  if (set?.size === 0) index.delete(at);
};

/**
 * Closes or parts with no open copy (Buffered) by slave position, indexed by slave account: buffering
 * one prunes that account's old ones by reading only that account's, where a scan of every account's
 * made each slave's close cost all buffered (a fan-out's closes, quadratic).
 */
class BufferedChanges {
  private readonly entries = new Map<string, Buffered>();
  private readonly byAccount = new Map<string, Set<string>>();

  get(key: string): Buffered | undefined {
    return this.entries.get(key);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  set(key: string, entry: Buffered): void {
    this.entries.set(key, entry);
    indexAdd(this.byAccount, entry.accountId, key);
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    indexDelete(this.byAccount, entry.accountId, key);
  }

  clear(): void {
    this.entries.clear();
    this.byAccount.clear();
  }

  /** The account's entries from before `before` (ms) go. */
  prune(accountId: string, before: number): void {
    for (const key of this.byAccount.get(accountId) ?? []) if (this.entries.get(key)!.at < before) this.delete(key);
  }
}

/**
 * The open copies and martingale counts of the masters loaded this term, fed with every change of the
 * copies read model's fold (see the head of this file).
 */
export class CopyBook {
  private readonly open = new Map<string, OpenCopy>();
  private readonly bySlave = new Map<string, Set<string>>();
  private readonly byPosition = new Map<string, Set<string>>();
  private readonly byMaster = new Map<string, Set<string>>();
  private readonly martingale = new Map<string, number>();
  /** Closes (slave_closures) and parts (slave_partials) with no open copy, by slave position. */
  private readonly closures = new BufferedChanges();
  private readonly partials = new BufferedChanges();
  private readonly loaded = new Set<string>();
  private readonly loads = new Map<string, Promise<void>>();
  /** Per load under way: the changes applied meanwhile, for its master once its snapshot is read. */
  private readonly duringLoads = new Map<string, Applied[]>();
  /** The newest position applied: a load waits for the read models to include it. */
  private newest: Position | null = null;
  private readonly appliedIds = new Set<string>();
  /** Bumped by reset: a load begun before it keeps nothing. */
  private generation = 0;
  /** Masters to load ahead of their first change (`warm`), in order, and the loads of them under way. */
  private readonly warming = new Set<string>();
  private warmingNow = 0;

  constructor(private readonly parts: CopyBookParts) {}

  /** Whether the master's copies are kept here (loaded this term). */
  has(masterAccountId: string): boolean {
    return this.loaded.has(masterAccountId);
  }

  /** The master's open copies by copier, as CopyInputs.copiesOf answers (the master loaded). */
  copiesOf(masterAccountId: string): Map<string, SlaveCopy[]> {
    const out = new Map<string, SlaveCopy[]>();
    for (const key of this.byMaster.get(masterAccountId) ?? []) {
      const { copierId, masterAccountId: _m, slaveAccountId: _s, ...copy } = this.open.get(key)!;
      const list = out.get(copierId) ?? [];
      list.push(copy);
      out.set(copierId, list);
    }
    return out;
  }

  /** The copiers' martingale states, as CopyInputs.martingaleOf answers (their master loaded). */
  martingaleOf(copierIds: readonly string[]): Map<string, MartingaleState> {
    return new Map(
      copierIds.map((id) => {
        const count = this.martingale.get(id);
        return [id, count === undefined ? initialMartingaleState : { consecutiveLosses: count }];
      }),
    );
  }

  /** The engine's own outcome, stored by an append at `position`. */
  stored(events: readonly { readonly id: string; readonly type: string; readonly data: unknown }[], position: Position): void {
    for (const event of events) this.apply({ ...event, position } as unknown as RecordedEvent);
  }

  /** An event of the store as the intake routes it (the slaves' venue events). */
  routed(recorded: RecordedEvent): void {
    this.apply(recorded);
  }

  /** Loads the master's copies (once a term; concurrent asks share the load). */
  load(masterAccountId: string): Promise<void> {
    if (this.loaded.has(masterAccountId)) return Promise.resolve();
    let loading = this.loads.get(masterAccountId);
    if (!loading) {
      loading = this.read(masterAccountId).finally(() => this.loads.delete(masterAccountId));
      this.loads.set(masterAccountId, loading);
    }
    return loading;
  }

  /**
   * Loads these masters in the background, a few at a time, so that their first early run finds them
   * here and waits for no read model (the first trade of a master was the run's slowest copy). A load
   * that fails is left to the run, which loads again.
   */
  warm(masterAccountIds: readonly string[]): void {
    for (const id of masterAccountIds) if (!this.loaded.has(id)) this.warming.add(id);
    while (this.warmingNow < WARM_AT_ONCE && this.warming.size > 0) {
      const id = this.warming.values().next().value!;
      this.warming.delete(id);
      if (this.loaded.has(id)) continue;
      this.warmingNow += 1;
      this.load(id)
        .catch(() => undefined)
        .finally(() => {
          this.warmingNow -= 1;
          this.warm([]);
        });
    }
  }

  /** Forgets everything (a new pipeline, a lost term). */
  reset(): void {
    this.generation += 1;
    for (const map of [this.open, this.bySlave, this.byPosition, this.byMaster, this.martingale, this.closures, this.partials]) map.clear();
    this.loaded.clear();
    this.loads.clear();
    this.warming.clear();
    this.duringLoads.clear();
    this.appliedIds.clear();
    this.newest = null;
  }

  private apply(recorded: RecordedEvent): void {
    if (this.appliedIds.has(recorded.id)) return;
    const changes = changesOf(recorded).filter((c) => KEPT_CHANGES.has(c.type));
    if (changes.length === 0) return;
    this.appliedIds.add(recorded.id);
    if (this.appliedIds.size > APPLIED_IDS) this.appliedIds.delete(this.appliedIds.values().next().value!);
    if (!this.newest || later(recorded.position, this.newest)) this.newest = recorded.position;
    for (const during of this.duringLoads.values()) during.push({ position: recorded.position, changes });
    for (const change of changes) this.change(change, null);
  }

  /**
   * One change as projector.ts makes it to the copies and copier_martingale tables. `only`: applied
   * again for one master just loaded (its part of a change applied while it loaded).
   */
  private change(change: CopiesChange, only: string | null): void {
    switch (change.type) {
      case 'copyOpened': {
        const row = change.row;
        if (!this.loaded.has(row.master_account_id) || (only !== null && row.master_account_id !== only)) return;
        if (isStandaloneTrade(row.master_position_id)) return;
        const sKey = slaveKey(row.slave_account_id, row.slave_position_id);
        const part = this.partials.get(sKey);
        this.partials.delete(sKey);
        this.put({
          copierId: row.copier_id,
          masterAccountId: row.master_account_id,
          slaveAccountId: row.slave_account_id,
          masterPositionId: row.master_position_id,
          slavePositionId: row.slave_position_id,
          kind: row.kind,
          symbol: row.symbol,
          orderType: row.order_type as OrderType,
          volume: part ? part.volume : row.volume,
          part: row.part ?? 0,
        });
        const gone = this.closures.get(sKey);
        if (gone) {
          this.closures.delete(sKey);
          const where = { copierId: row.copier_id, masterPositionId: row.master_position_id, slavePositionId: row.slave_position_id };
          this.end({ where, at: new Date(gone.at).toISOString(), by: 'SLAVE_VENUE', result: gone.result, closePrice: null, alsoAfterVenue: false }, only);
        }
        return;
      }
      case 'copiesChanged':
        for (const copy of this.matching(change.where, only)) {
          this.put('volume' in change.set ? { ...copy, volume: change.set.volume } : { ...copy, kind: change.set.kind });
        }
        return;
      case 'copiesPartiallyClosed': {
        const matched = this.matching(change.where, only);
        for (const copy of matched) this.put({ ...copy, volume: change.volume });
        const { slaveAccountId, slavePositionId } = change.where;
        if (matched.length > 0) this.partials.delete(slaveKey(slaveAccountId, slavePositionId));
        else if (only === null) this.buffer(this.partials, slaveAccountId, slavePositionId, Date.parse(change.at), null, change.volume);
        return;
      }
      case 'copiesEnded':
        this.end(change.ending, only);
        return;
      default:
        return;
    }
  }

  private end(ending: Ending, only: string | null): void {
    const { where, result } = ending;
    const closed = this.matching(where, only);
    for (const copy of closed) this.remove(copy);
    if (where.slaveAccountId && where.slavePositionId) {
      if (closed.length > 0) this.closures.delete(slaveKey(where.slaveAccountId, where.slavePositionId));
      else if (only === null) this.buffer(this.closures, where.slaveAccountId, where.slavePositionId, Date.parse(ending.at), result, 0);
    }
    if (result === null) return;
    for (const copy of closed) {
      if (!isMartingaleStep({ kind: copy.kind, master_position_id: copy.masterPositionId, part: copy.part ?? 0 })) continue;
      const step = martingaleStep(result);
      if (step === 'none') continue;
      const count = this.martingale.get(copy.copierId);
      this.martingale.set(copy.copierId, count !== undefined && step === 'up' ? count + 1 : firstMartingaleCount(result));
    }
  }

  /** Kept unless one is there already (ON CONFLICT DO NOTHING for closes); the account's older than a day go. */
  private buffer(buffer: BufferedChanges, accountId: string, positionId: string, at: number, result: number | null, volume: number): void {
    const key = slaveKey(accountId, positionId);
    if (buffer === this.closures && buffer.has(key)) return;
    buffer.set(key, { accountId, at, result, volume });
    buffer.prune(accountId, at - BUFFER_MS);
  }

  private matching(where: Where, only: string | null): OpenCopy[] {
    const keys =
      where.slaveAccountId && where.slavePositionId
        ? this.bySlave.get(slaveKey(where.slaveAccountId, where.slavePositionId))
        : where.copierId && where.masterPositionId
          ? this.byPosition.get(positionKey(where.copierId, where.masterPositionId))
          : this.open.keys();
    const out: OpenCopy[] = [];
    for (const key of keys ?? []) {
      const copy = this.open.get(key);
      if (!copy || (only !== null && copy.masterAccountId !== only)) continue;
      if (where.copierId && copy.copierId !== where.copierId) continue;
      if (where.masterPositionId && copy.masterPositionId !== where.masterPositionId) continue;
      if (where.slaveAccountId && copy.slaveAccountId !== where.slaveAccountId) continue;
      if (where.slavePositionId && copy.slavePositionId !== where.slavePositionId) continue;
      if (where.kind && copy.kind !== where.kind) continue;
      out.push(copy);
    }
    return out;
  }

  private put(copy: OpenCopy): void {
    const key = copyKey(copy.copierId, copy.masterPositionId, copy.part ?? 0);
    const before = this.open.get(key);
    if (before) this.remove(before);
    this.open.set(key, copy.part === 0 ? (({ part: _p, ...rest }) => rest)(copy) : copy);
    indexAdd(this.bySlave, slaveKey(copy.slaveAccountId, copy.slavePositionId), key);
    indexAdd(this.byPosition, positionKey(copy.copierId, copy.masterPositionId), key);
    indexAdd(this.byMaster, copy.masterAccountId, key);
  }

  private remove(copy: OpenCopy): void {
    const key = copyKey(copy.copierId, copy.masterPositionId, copy.part ?? 0);
    this.open.delete(key);
    indexDelete(this.bySlave, slaveKey(copy.slaveAccountId, copy.slavePositionId), key);
    indexDelete(this.byPosition, positionKey(copy.copierId, copy.masterPositionId), key);
    indexDelete(this.byMaster, copy.masterAccountId, key);
  }

  /** Takes the rows of a snapshot of the copies read model (see the head of this file). */
  private take(masterAccountId: string, rows: LoadRows): void {
    for (const r of rows.copies) {
      if (isStandaloneTrade(r.master_position_id)) continue;
      this.put({
        copierId: r.copier_id,
        masterAccountId,
        slaveAccountId: r.slave_account_id,
        masterPositionId: r.master_position_id,
        slavePositionId: r.slave_position_id,
        kind: r.kind,
        symbol: r.symbol,
        orderType: r.order_type as OrderType,
        volume: r.volume,
        part: r.part,
      });
    }
    for (const r of rows.martingale) this.martingale.set(r.copier_id, r.consecutive_losses);
    for (const r of rows.closures) {
      const key = slaveKey(r.slave_account_id, r.slave_position_id);
      if (!this.closures.has(key)) this.closures.set(key, { accountId: r.slave_account_id, at: new Date(r.closed_at).getTime(), result: r.result, volume: 0 });
    }
    for (const r of rows.partials) {
      const key = slaveKey(r.slave_account_id, r.slave_position_id);
      if (!this.partials.has(key)) this.partials.set(key, { accountId: r.slave_account_id, at: new Date(r.at).getTime(), result: null, volume: r.volume });
    }
  }

  private async read(masterAccountId: string): Promise<void> {
    const generation = this.generation;
    const during: Applied[] = [];
    this.duringLoads.set(masterAccountId, during);
    try {
      if (this.newest) await this.parts.waitForReadModels(this.newest);
      const { rows, checkpoint } = await (this.parts.snapshot ?? copiesSnapshot)(this.parts.db, masterAccountId);
      if (generation !== this.generation) throw new Error('the copy book was reset while it loaded');
      this.take(masterAccountId, rows);
      this.loaded.add(masterAccountId);
      // What was applied while the snapshot was read and is not in it, in the order it was applied.
      for (const { position, changes } of during) {
        if (checkpoint && !later(position, checkpoint)) continue;
        for (const change of changes) this.change(change, masterAccountId);
      }
    } finally {
      if (this.duringLoads.get(masterAccountId) === during) this.duringLoads.delete(masterAccountId);
    }
  }
}
