// The copies read model, a batch at a time: the rows a batch can touch are read in three queries, the
// events' changes (changes.ts, the same the per-event projector writes one by one) are folded in memory
// with exactly the effect projector.ts's statements have (test/projections/batches.int.spec.ts compares
// the two on a generated history), and what changed is written back in a few multi-row statements. A
// rebuild spends its time here: one event used to cost one to three round trips.
import type { Kysely } from 'kysely';
import type { RecordedEvent } from '../../store/port.js';
import { type RebuildFold, statementChunks } from '../projection.js';
import type { ReadModels } from '../schema.js';
import {
  changesOf,
  type ClosureRow,
  type CopiesChange,
  type CopyRow,
  type DeferralRow,
  type Ending,
  endingOfEarlierClosure,
  firstMartingaleCount,
  isMartingaleStep,
  martingaleStep,
  type PartialsRow,
  type RetryRow,
  type Where,
  withEarlierPartials,
} from './changes.js';
import { writeBack, writeCopyRows } from './batchWrites.js';
import { partialsOf } from './queries.js';

export type Db = Kysely<ReadModels>;
export type Key = [string, string];

const DAY_MS = 86_400_000;

/** One row: a copy, or one part of a copy split into several orders (forcePositionLotSize). */
const copyKey = (row: Pick<CopyRow, 'copier_id' | 'master_position_id' | 'part'>) => `${row.copier_id}/${row.master_position_id}/${row.part ?? 0}`;
/** Every part of a master position's copy. */
const masterKey = (copierId: string, masterPositionId: string) => `${copierId}/${masterPositionId}`;
const slaveKey = (slaveAccountId: string, slavePositionId: string) => `${slaveAccountId}/${slavePositionId}`;
const time = (value: unknown): number => (value instanceof Date ? value.getTime() : Date.parse(String(value)));

/** What the batch read, as its changes leave it, and which of it to write back. */
export interface Batch {
  readonly copies: Map<string, CopyRow>;
  /** By slave position, the keys of the copies of it. */
  readonly bySlave: Map<string, Set<string>>;
  /** By copier and master position, the keys of the copies of it (every part). */
  readonly byMaster: Map<string, Set<string>>;
  readonly closures: Map<string, ClosureRow>;
  /** By slave account, the keys of its closures and the time each closed (a cleanup looks at one account's only). */
  readonly closuresByAccount: Map<string, Map<string, number>>;
  /** Partial closes of slave positions with no live copy yet, by slave position; by account, the time of each (for the cleanup). */
  readonly partials: Map<string, PartialsRow>;
  readonly partialsByAccount: Map<string, Map<string, number>>;
  readonly deletedPartials: Map<string, Key>;
  readonly insertedPartials: Set<string>;
  readonly partialCleanups: Map<string, number>;
  readonly martingale: Map<string, number>;
  readonly changedCopies: Set<string>;
  readonly changedMartingale: Set<string>;
  readonly deletedClosures: Map<string, Key>;
  readonly insertedClosures: Set<string>;
  /** Per account, the latest cutoff of a cleanup of its closures (rows the batch did not read go by it). */
  readonly cleanups: Map<string, number>;
  /** copy_retries and copy_deferrals: deletes in order, then the rows present at the end. */
  readonly retryDeletes: ({ kind: 'id'; id: string } | { kind: 'masterPosition'; copierId: string; masterPositionId: string })[];
  readonly retries: Map<string, RetryRow | null>;
  readonly deferralDeletes: string[];
  readonly deferrals: Map<string, DeferralRow | null>;
}

const emptyBatch = (): Batch => ({
  copies: new Map(),
  bySlave: new Map(),
  byMaster: new Map(),
  closures: new Map(),
  closuresByAccount: new Map(),
  partials: new Map(),
  partialsByAccount: new Map(),
  deletedPartials: new Map(),
  insertedPartials: new Set(),
  partialCleanups: new Map(),
  martingale: new Map(),
  changedCopies: new Set(),
  changedMartingale: new Set(),
  deletedClosures: new Map(),
  insertedClosures: new Set(),
  cleanups: new Map(),
  retryDeletes: [],
  retries: new Map(),
  deferralDeletes: [],
  deferrals: new Map(),
});

export const applyCopiesBatch = async (db: Db, events: readonly RecordedEvent[]): Promise<void> => {
  const changes = events.flatMap((event) => changesOf(event));
  const batch = emptyBatch();
  await readTouched(db, batch, changes);
  for (const change of changes) fold(batch, change);
  await writeBack(db, batch);
};

/**
 * The copies read model for a rebuild (Projection.rebuildFold), which applies the whole history in
 * order to an empty generation nobody else writes: the state lives in memory, so nothing is read back,
 * and each row is written once. Each batch is folded into that state; a copy no later change can touch
 * (closed, and not by the slave's venue: only open copies, and copies the slave's venue closed, are
 * matched by a change) is written and leaves memory; `finish` writes the rest as the history leaves it
 * (the open copies and those closed by the slave's venue, the closures, retries and deferrals still
 * pending, each copier's martingale count). The state is complete for the keys it is given: one fold
 * per partition (Projection.partitionOf).
 */
export const copiesRebuildFold = (): RebuildFold => {
  const state = emptyBatch();
  /** Copies changed and still in memory: written by finish (or when they leave memory). */
  const unwritten = new Set<string>();
  return {
    async apply(db, events) {
      for (const event of events) for (const change of changesOf(event)) fold(state, change);
      const done: CopyRow[] = [];
      for (const key of state.changedCopies) {
        const row = state.copies.get(key)!;
        if (row.status === 'closed' && row.closed_by !== 'SLAVE_VENUE') {
          done.push(row);
          state.copies.delete(key);
          unindex(state, row);
          unwritten.delete(key);
        } else unwritten.add(key);
      }
      state.changedCopies.clear();
      // The deletes a batch records are of rows only memory held: nothing to delete in the tables.
      state.deletedClosures.clear();
      state.insertedClosures.clear();
      state.cleanups.clear();
      state.deletedPartials.clear();
      state.insertedPartials.clear();
      state.partialCleanups.clear();
      state.retryDeletes.length = 0;
      state.deferralDeletes.length = 0;
      for (const [id, row] of state.retries) if (row === null) state.retries.delete(id);
      for (const [id, row] of state.deferrals) if (row === null) state.deferrals.delete(id);
      await writeCopyRows(db, done);
    },
    async finish(db) {
      for (const key of state.closures.keys()) state.insertedClosures.add(key);
      for (const key of state.partials.keys()) state.insertedPartials.add(key);
      for (const key of unwritten) state.changedCopies.add(key);
      await writeBack(db, state);
      unwritten.clear();
    },
  };
};

// ---------------------------------------------------------------------------------------------
// What the batch can read: copies by copier and master position, or by slave position; the closures
// of those slave positions; the martingale counts of every copier involved.

const readTouched = async (db: Db, batch: Batch, changes: readonly CopiesChange[]): Promise<void> => {
  const copyKeys = new Map<string, Key>();
  const slaveKeys = new Map<string, Key>();
  const touch = (where: Where): void => {
    if (where.copierId && where.masterPositionId) copyKeys.set(masterKey(where.copierId, where.masterPositionId), [where.copierId, where.masterPositionId]);
    else slaveKeys.set(slaveKey(where.slaveAccountId!, where.slavePositionId!), [where.slaveAccountId!, where.slavePositionId!]);
  };
  const copierIds = new Set<string>();
  for (const change of changes) {
    if (change.type === 'copyOpened') {
      const { row } = change;
      copyKeys.set(masterKey(row.copier_id, row.master_position_id), [row.copier_id, row.master_position_id]);
      slaveKeys.set(slaveKey(row.slave_account_id, row.slave_position_id), [row.slave_account_id, row.slave_position_id]);
      copierIds.add(row.copier_id);
    } else if (change.type === 'copiesChanged' || change.type === 'copiesPartiallyClosed') touch(change.where);
    else if (change.type === 'copiesEnded') touch(change.ending.where);
  }
  if (copyKeys.size > 0 || slaveKeys.size > 0) {
    await readCopies(db, batch, [...copyKeys.values()], [...slaveKeys.values()]);
    await readClosures(db, batch, [...slaveKeys.values()]);
    await readPartials(db, batch, [...slaveKeys.values()]);
  }
  for (const row of batch.copies.values()) copierIds.add(row.copier_id);
  for (const chunk of statementChunks([...copierIds])) {
    const rows = await db.selectFrom('copier_martingale').selectAll().where('copier_id', 'in', chunk).execute();
    for (const row of rows) batch.martingale.set(row.copier_id, row.consecutive_losses);
  }
};

const readCopies = async (db: Db, batch: Batch, byCopyKeys: readonly Key[], bySlaveKeys: readonly Key[]): Promise<void> => {
  const lookups: (readonly ['c' | 's', string, string])[] = [
    ...byCopyKeys.map((k) => ['c', k[0], k[1]] as const),
    ...bySlaveKeys.map((k) => ['s', k[0], k[1]] as const),
  ];
  for (const chunk of statementChunks(lookups)) {
    const byCopy = chunk.filter((k) => k[0] === 'c');
    const bySlave = chunk.filter((k) => k[0] === 's');
    const rows = await db
      .selectFrom('copies')
      .selectAll()
      .where(({ eb, or, refTuple, tuple }) =>
        or([
          ...(byCopy.length
            ? [
                eb(
                  refTuple('copier_id', 'master_position_id'),
                  'in',
                  byCopy.map((k) => tuple(k[1], k[2])),
                ),
              ]
            : []),
          ...(bySlave.length
            ? [
                eb(
                  refTuple('slave_account_id', 'slave_position_id'),
                  'in',
                  bySlave.map((k) => tuple(k[1], k[2])),
                ),
              ]
            : []),
        ]),
      )
      .execute();
    for (const row of rows) {
      // partials as the batch writes them: JSON text.
      const copy: CopyRow = { ...row, partials: JSON.stringify(partialsOf(row)) };
      batch.copies.set(copyKey(copy), copy);
      index(batch, copy);
    }
  }
};

const readClosures = async (db: Db, batch: Batch, keys: readonly Key[]): Promise<void> => {
  for (const chunk of statementChunks(keys)) {
    const rows = await db
      .selectFrom('slave_closures')
      .selectAll()
      .where(({ eb, refTuple, tuple }) =>
        eb(
          refTuple('slave_account_id', 'slave_position_id'),
          'in',
          chunk.map((k) => tuple(k[0], k[1])),
        ),
      )
      .execute();
    for (const row of rows) setClosure(batch, slaveKey(row.slave_account_id, row.slave_position_id), row);
  }
};

const readPartials = async (db: Db, batch: Batch, keys: readonly Key[]): Promise<void> => {
  for (const chunk of statementChunks(keys)) {
    const rows = await db
      .selectFrom('slave_partials')
      .selectAll()
      .where(({ eb, refTuple, tuple }) =>
        eb(
          refTuple('slave_account_id', 'slave_position_id'),
          'in',
          chunk.map((k) => tuple(k[0], k[1])),
        ),
      )
      .execute();
    // partials as the batch writes them: JSON text.
    for (const row of rows) setPartials(batch, slaveKey(row.slave_account_id, row.slave_position_id), { ...row, partials: JSON.stringify(partialsOf(row)) });
  }
};

// ---------------------------------------------------------------------------------------------
// The changes, folded in memory with the effect of projector.ts's statements.

const indexIn = (map: Map<string, Set<string>>, key: string, value: string): void => {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
};

const unindexIn = (map: Map<string, Set<string>>, key: string, value: string): void => {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
};

const index = (batch: Batch, row: CopyRow): void => {
  indexIn(batch.bySlave, slaveKey(row.slave_account_id, row.slave_position_id), copyKey(row));
  indexIn(batch.byMaster, masterKey(row.copier_id, row.master_position_id), copyKey(row));
};

const unindex = (batch: Batch, row: CopyRow): void => {
  unindexIn(batch.bySlave, slaveKey(row.slave_account_id, row.slave_position_id), copyKey(row));
  unindexIn(batch.byMaster, masterKey(row.copier_id, row.master_position_id), copyKey(row));
};

const matches = (row: CopyRow, where: Where): boolean =>
  row.status === 'open' &&
  (!where.copierId || row.copier_id === where.copierId) &&
  (!where.masterPositionId || row.master_position_id === where.masterPositionId) &&
  (!where.slaveAccountId || row.slave_account_id === where.slaveAccountId) &&
  (!where.slavePositionId || row.slave_position_id === where.slavePositionId) &&
  (!where.kind || row.kind === where.kind);

const candidates = (batch: Batch, where: Where): string[] => {
  if (where.copierId && where.masterPositionId) return [...(batch.byMaster.get(masterKey(where.copierId, where.masterPositionId)) ?? [])];
  return [...(batch.bySlave.get(slaveKey(where.slaveAccountId!, where.slavePositionId!)) ?? [])];
};

const update = (batch: Batch, key: string, changes: Partial<CopyRow>): void => {
  batch.copies.set(key, { ...batch.copies.get(key)!, ...changes });
  batch.changedCopies.add(key);
};

/** A row kept per slave position (a closure, buffered partials), indexed by account with its time. */
interface SlaveRow {
  readonly slave_account_id: string;
  readonly slave_position_id: string;
}

const setSlaveRow = <R extends SlaveRow>(rows: Map<string, R>, byAccount: Map<string, Map<string, number>>, key: string, row: R, at: number): void => {
  rows.set(key, row);
  const ofAccount = byAccount.get(row.slave_account_id);
  if (ofAccount) ofAccount.set(key, at);
  else byAccount.set(row.slave_account_id, new Map([[key, at]]));
};

const deleteSlaveRow = <R extends SlaveRow>(
  rows: Map<string, R>,
  byAccount: Map<string, Map<string, number>>,
  inserted: Set<string>,
  deleted: Map<string, Key>,
  key: string,
  row: R,
): void => {
  rows.delete(key);
  const ofAccount = byAccount.get(row.slave_account_id);
  ofAccount?.delete(key);
  if (ofAccount?.size === 0) byAccount.delete(row.slave_account_id);
  inserted.delete(key);
  deleted.set(key, [row.slave_account_id, row.slave_position_id]);
};

const setClosure = (batch: Batch, key: string, row: ClosureRow): void => setSlaveRow(batch.closures, batch.closuresByAccount, key, row, time(row.closed_at));

const deleteClosure = (batch: Batch, key: string, row: ClosureRow): void =>
  deleteSlaveRow(batch.closures, batch.closuresByAccount, batch.insertedClosures, batch.deletedClosures, key, row);

const setPartials = (batch: Batch, key: string, row: PartialsRow): void => setSlaveRow(batch.partials, batch.partialsByAccount, key, row, time(row.at));

const deletePartials = (batch: Batch, key: string, row: PartialsRow): void =>
  deleteSlaveRow(batch.partials, batch.partialsByAccount, batch.insertedPartials, batch.deletedPartials, key, row);

/** No live copy yet: its CopyExecuted may still come; the account's parts older than a day go. */
const bufferPartial = (batch: Batch, change: Extract<CopiesChange, { type: 'copiesPartiallyClosed' }>): void => {
  const { slaveAccountId, slavePositionId } = change.where;
  const key = slaveKey(slaveAccountId, slavePositionId);
  const before = batch.partials.get(key);
  setPartials(batch, key, {
    slave_account_id: slaveAccountId,
    slave_position_id: slavePositionId,
    volume: change.volume,
    partials: JSON.stringify([...(before ? partialsOf(before) : []), change.part]),
    at: change.at,
  });
  batch.insertedPartials.add(key);
  const cutoff = time(change.at) - DAY_MS;
  for (const [k, at] of batch.partialsByAccount.get(slaveAccountId) ?? []) {
    if (at < cutoff) deletePartials(batch, k, batch.partials.get(k)!);
  }
  batch.partialCleanups.set(slaveAccountId, Math.max(batch.partialCleanups.get(slaveAccountId) ?? -Infinity, cutoff));
};

const fold = (batch: Batch, change: CopiesChange): void => {
  switch (change.type) {
    case 'deferralEnded':
      batch.deferralDeletes.push(change.id);
      batch.deferrals.set(change.id, null);
      return;
    case 'deferralRecorded':
      // ON CONFLICT DO NOTHING: a row already in the table stays (the write keeps that rule).
      if (!batch.deferrals.get(change.row.id)) batch.deferrals.set(change.row.id, change.row);
      return;
    case 'retryEnded':
      endRetry(batch, change.clientOrderId);
      return;
    case 'retryRecorded':
      if (!batch.retries.get(change.row.client_order_id)) batch.retries.set(change.row.client_order_id, change.row);
      return;
    case 'retriesExpired':
      expireRetries(batch, change.copierId, change.masterPositionId);
      return;
    case 'copyOpened':
      openCopy(batch, change.row);
      return;
    case 'copiesChanged':
      for (const key of candidates(batch, change.where)) if (matches(batch.copies.get(key)!, change.where)) update(batch, key, change.set);
      return;
    case 'copiesEnded':
      endCopies(batch, change.ending);
      return;
    case 'copiesPartiallyClosed': {
      let changed = 0;
      for (const key of candidates(batch, change.where)) {
        const row = batch.copies.get(key)!;
        if (!matches(row, change.where)) continue;
        update(batch, key, { volume: change.volume, partials: JSON.stringify([...partialsOf(row), change.part]) });
        changed++;
      }
      if (changed === 0) bufferPartial(batch, change);
      return;
    }
    default: {
      const unhandled: never = change;
      throw new Error(`unhandled copies change ${JSON.stringify(unhandled)}`);
    }
  }
};

const endRetry = (batch: Batch, clientOrderId: string): void => {
  batch.retryDeletes.push({ kind: 'id', id: clientOrderId });
  batch.retries.set(clientOrderId, null);
};

const expireRetries = (batch: Batch, copierId: string, masterPositionId: string): void => {
  batch.retryDeletes.push({ kind: 'masterPosition', copierId, masterPositionId });
  for (const [id, row] of batch.retries) {
    if (row && row.copier_id === copierId && (JSON.parse(String(row.action)) as { masterPositionId: string }).masterPositionId === masterPositionId) {
      batch.retries.set(id, null);
    }
  }
};

const openCopy = (batch: Batch, recorded: CopyRow): void => {
  // Parts its venue closed before the copy was recorded are the copy's.
  const partialsKey = slaveKey(recorded.slave_account_id, recorded.slave_position_id);
  const earlier = batch.partials.get(partialsKey);
  if (earlier) deletePartials(batch, partialsKey, earlier);
  const row = earlier ? withEarlierPartials(recorded, earlier) : recorded;
  endRetry(batch, row.client_order_id);
  const key = copyKey(row);
  const before = batch.copies.get(key);
  if (before) unindex(batch, before);
  batch.copies.set(key, row);
  batch.changedCopies.add(key);
  index(batch, row);
  const closureKey = slaveKey(row.slave_account_id, row.slave_position_id);
  const gone = batch.closures.get(closureKey);
  if (gone) {
    deleteClosure(batch, closureKey, gone);
    endCopies(batch, endingOfEarlierClosure(row, gone));
  }
};

const endCopies = (batch: Batch, ending: Ending): void => {
  const { where, at, by, result, closePrice, alsoAfterVenue } = ending;
  const closed: CopyRow[] = [];
  const afterVenue: string[] = [];
  for (const key of candidates(batch, where)) {
    const row = batch.copies.get(key)!;
    if (matches(row, where)) closed.push(row);
    else if (
      alsoAfterVenue &&
      row.copier_id === where.copierId &&
      row.master_position_id === where.masterPositionId &&
      row.slave_position_id === where.slavePositionId &&
      row.status === 'closed' &&
      row.closed_by === 'SLAVE_VENUE'
    )
      afterVenue.push(key);
  }
  for (const key of afterVenue) update(batch, key, { closed_by: by });
  for (const row of closed) update(batch, copyKey(row), { status: 'closed', closed_at: at, closed_by: by, result, close_price: closePrice });
  if (closed.length === 0 && where.slaveAccountId && where.slavePositionId) recordClosure(batch, where.slaveAccountId, where.slavePositionId, ending);
  if (result === null) return;
  const step = martingaleStep(result);
  if (step === 'none') return;
  for (const row of closed) {
    if (!isMartingaleStep(row)) continue;
    const current = batch.martingale.get(row.copier_id);
    batch.martingale.set(row.copier_id, current !== undefined && step === 'up' ? current + 1 : firstMartingaleCount(result));
    batch.changedMartingale.add(row.copier_id);
  }
};

/** No live copy yet: its CopyExecuted may still come; the account's closures older than a day go. */
const recordClosure = (batch: Batch, slaveAccountId: string, slavePositionId: string, { at, result, closePrice }: Ending): void => {
  const key = slaveKey(slaveAccountId, slavePositionId);
  if (!batch.closures.has(key)) {
    setClosure(batch, key, { slave_account_id: slaveAccountId, slave_position_id: slavePositionId, closed_at: at, result, close_price: closePrice });
    // A delete of the key earlier in the batch still runs: deletes are written before inserts.
    batch.insertedClosures.add(key);
  }
  const cutoff = time(at) - DAY_MS;
  for (const [k, closedAt] of batch.closuresByAccount.get(slaveAccountId) ?? []) {
    if (closedAt < cutoff) deleteClosure(batch, k, batch.closures.get(k)!);
  }
  batch.cleanups.set(slaveAccountId, Math.max(batch.cleanups.get(slaveAccountId) ?? -Infinity, cutoff));
};
