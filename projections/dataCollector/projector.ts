// The data-collector read model: one row per sample (DataCollectorRecordDTO), with the members the
// feature recorded (recordBalance, recordEquity, recordFloatingPnL when it was taken).
import { type Insertable, type Kysely, sql } from 'kysely';
import type { SampleEvent } from '../../domain/analytics/dataCollector.js';
import type { RecordedEvent } from '../../store/port.js';
import { insertFirstOfKey, type Projection } from '../projection.js';
import type { DataCollectorSamplesTable, ReadModels } from '../schema.js';

const rowOf = (recorded: RecordedEvent): Insertable<DataCollectorSamplesTable> => {
  const { data } = recorded as unknown as SampleEvent;
  return {
    account_id: data.accountId,
    time: data.at,
    balance: data.balance,
    equity: data.equity,
    floating_pnl: data.floatingPnl,
    margin: data.margin,
    record_balance: data.recorded?.balance ?? true,
    record_equity: data.recorded?.equity ?? true,
    record_floating_pnl: data.recorded?.floatingPnL ?? true,
  };
};

/** The columns of a sample, as it is written (insertFirstOfKey's arrays). */
const SAMPLE_TYPES: { readonly [K in keyof Insertable<DataCollectorSamplesTable>]?: string } = {
  account_id: 'uuid',
  time: 'timestamptz',
  balance: 'float8',
  equity: 'float8',
  floating_pnl: 'float8',
  margin: 'float8',
  record_balance: 'boolean',
  record_equity: 'boolean',
  record_floating_pnl: 'boolean',
};

/** Samples in multi-row INSERTs; the first of a key wins, in the batch as in the table (DO NOTHING). */
const insertSamples = (db: Kysely<ReadModels>, events: readonly RecordedEvent[]): Promise<void> =>
  insertFirstOfKey(db, 'data_collector_samples', events.map(rowOf), ['account_id', 'time'], SAMPLE_TYPES);

export const dataCollectorProjection: Projection = {
  name: 'data_collector',
  version: 2,
  handles: ['AccountSampled'],
  tables: ['data_collector_samples'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'data_collector_samples')} (
      account_id uuid NOT NULL,
      time timestamptz NOT NULL,
      balance double precision NOT NULL,
      equity double precision NOT NULL,
      floating_pnl double precision NOT NULL,
      margin double precision NOT NULL,
      record_balance boolean NOT NULL DEFAULT true,
      record_equity boolean NOT NULL DEFAULT true,
      record_floating_pnl boolean NOT NULL DEFAULT true,
      PRIMARY KEY (account_id, time))`.execute(db);
  },
  async apply(db, recorded) {
    await insertSamples(db, [recorded]);
  },
  async applyBatch(db, events) {
    await insertSamples(db, events);
  },
};
