// The data collector (spec: FeatureDataCollectorDTO, DataCollectorRecordDTO): while the feature is on,
// the account's balance, equity and floating profit and loss are sampled from its venue every
// collectionIntervalSeconds, as AccountSampled events of the stream `samples-<accountId>`. The members
// are the reference's: activateDataCollector false keeps the feature attached without sampling;
// recordBalance, recordEquity and recordFloatingPnL false leave that member out of the records (the
// venue's figures stay in the event for the performance metrics, which are ours); normalizeValues
// scales what GET .../dataCollector answers (normalizedRecords); retentionDays is the reference's
// read-only system value: records older than it are not answered, and a leased background job
// deletes them from the read model (app/dataCollectorRetention.ts). "Data is only saved when values
// have changed from the previous record" (the reference): a sample whose record (the members recorded,
// and their values) equals the account's previous one is not stored (sameRecord).
import { type Static, Type } from '@sinclair/typebox';
import { v5 as uuidv5 } from 'uuid';
import type { FeatureDefinition } from '../feature/definition.js';

export const DEFAULT_SAMPLE_INTERVAL_SECONDS = 60;
/** The reference: "Data retention period in days. This is a fixed system value and cannot be modified by users" (its example: 90). */
export const DATA_COLLECTOR_RETENTION_DAYS = 90;
/** normalizeValues: the first record's reference value becomes this. */
export const NORMALIZED_REFERENCE = 100_000;

const members = Type.Object({
  activateDataCollector: Type.Boolean({ description: 'true (default): the account is sampled; false: the feature stays attached and nothing is sampled' }),
  collectionIntervalSeconds: Type.Integer({ minimum: 10, maximum: 3600, description: 'seconds between two samples; default 60' }),
  recordBalance: Type.Boolean({ description: 'default true; false: the records taken while it is false leave balance out' }),
  recordEquity: Type.Boolean({ description: 'default true; false: the records taken while it is false leave equity out' }),
  recordFloatingPnL: Type.Boolean({ description: 'default true; false: the records taken while it is false leave floatingPnL out' }),
  normalizeValues: Type.Boolean({
    description: `default false; true: GET .../dataCollector answers every value (balance, equity, floatingPnL and our margin) times one factor that makes the reference value of the account's oldest kept record ${NORMALIZED_REFERENCE} (its balance, else its equity, else its floating P&L, as recorded); the stored records stay as they are. A reference value of 0 leaves the values as recorded.`,
  }),
  retentionDays: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: `read-only (the reference: a fixed system value): always ${DATA_COLLECTOR_RETENTION_DAYS}; a value sent is ignored. Records older than that are not answered, and deleted by a background job within the hour`,
  }),
});
export type DataCollectorSettings = Static<typeof members>;

export const dataCollectorFeature: FeatureDefinition<DataCollectorSettings> = {
  type: 'FeatureDataCollectorDTO',
  scopes: ['account'],
  multiple: false,
  members,
  defaults: {
    activateDataCollector: true,
    collectionIntervalSeconds: DEFAULT_SAMPLE_INTERVAL_SECONDS,
    recordBalance: true,
    recordEquity: true,
    recordFloatingPnL: true,
    normalizeValues: false,
    retentionDays: DATA_COLLECTOR_RETENTION_DAYS,
  },
  stateMembers: ['retentionDays'],
  description: `Switches the account's time series on: while the account is connected and activateDataCollector is true (the default), its balance, equity, floating profit and loss and used margin are sampled from the broker every collectionIntervalSeconds (default 60). recordBalance, recordEquity and recordFloatingPnL false leave that member out of the records taken meanwhile (performance metrics still use the broker's figures). normalizeValues true scales the answers of GET .../dataCollector so that the oldest kept record's balance (else equity, else floating P&L) is ${NORMALIZED_REFERENCE}; the records are stored as they are. retentionDays is read-only, ${DATA_COLLECTOR_RETENTION_DAYS}: older records are not answered. A sample equal to the previous record (the same members recorded with the same values; the used margin is not compared) is not stored: the reference's "data is only saved when values have changed". Records older than retentionDays are deleted by a background job (hourly). GET .../dataCollector reads them; performance metrics use them for the equity-based figures. Removing the feature stops sampling; the samples stay until they are older than retentionDays.`,
};

/** Which members a record keeps (recordBalance, recordEquity, recordFloatingPnL when it was taken). */
export interface RecordedMembers {
  readonly balance: boolean;
  readonly equity: boolean;
  readonly floatingPnL: boolean;
}

export const ALL_RECORDED: RecordedMembers = { balance: true, equity: true, floatingPnL: true };

/** What a record of these figures keeps: the members recorded, with their values (margin, ours, aside). */
export const recordOf = (
  figures: { readonly balance: number; readonly equity: number; readonly floatingPnl: number },
  recorded: RecordedMembers,
): Omit<CollectorValues, 'margin'> => ({
  ...(recorded.balance ? { balance: figures.balance } : {}),
  ...(recorded.equity ? { equity: figures.equity } : {}),
  ...(recorded.floatingPnL ? { floatingPnL: figures.floatingPnl } : {}),
});

/**
 * "Data is only saved when values have changed from the previous record" (the reference): whether two
 * records are the same, the same members recorded with the same values. The used margin (ours) is not
 * compared; a record that changes which members it keeps is a change.
 */
export const sameRecord = (a: Omit<CollectorValues, 'margin'> | null, b: Omit<CollectorValues, 'margin'>): boolean =>
  a !== null && a.balance === b.balance && a.equity === b.equity && a.floatingPnL === b.floatingPnL;

/** A record as answered: the members it recorded, and our margin. */
export interface CollectorValues {
  readonly balance?: number;
  readonly equity?: number;
  readonly floatingPnL?: number;
  readonly margin: number;
}

/**
 * normalizeValues (the reference): the factor that makes the reference value of `first` (its balance,
 * else its equity, else its floating P&L) NORMALIZED_REFERENCE; 1 when it has none or it is 0.
 */
export const normalizationFactor = (first: CollectorValues | undefined): number => {
  const reference = first?.balance ?? first?.equity ?? first?.floatingPnL;
  return reference === undefined || reference === 0 ? 1 : NORMALIZED_REFERENCE / reference;
};

const scaled = (value: number | undefined, factor: number): number | undefined => (value === undefined ? undefined : Math.round(value * factor * 100) / 100);

/** Every value of a record times `factor`, to the cent. */
export const normalized = <T extends CollectorValues>(record: T, factor: number): T =>
  factor === 1
    ? record
    : {
        ...record,
        ...(record.balance === undefined ? {} : { balance: scaled(record.balance, factor) }),
        ...(record.equity === undefined ? {} : { equity: scaled(record.equity, factor) }),
        ...(record.floatingPnL === undefined ? {} : { floatingPnL: scaled(record.floatingPnL, factor) }),
        margin: scaled(record.margin, factor)!,
      };

export interface AccountSample {
  readonly accountId: string;
  /** ISO 8601: when the sample was taken (a multiple of the interval). */
  readonly at: string;
  readonly balance: number;
  readonly equity: number;
  /** Equity - balance - credit: the open positions' profit, swap included. */
  readonly floatingPnl: number;
  readonly margin: number;
  /** The members the feature recorded (absent in samples before it: all three). */
  readonly recorded?: RecordedMembers;
}

export type SampleEvent = { type: 'AccountSampled'; data: AccountSample };

export const SAMPLES_STREAM_PREFIX = 'samples-';
export const samplesStream = (accountId: string): string => `${SAMPLES_STREAM_PREFIX}${accountId}`;

const SAMPLE_NAMESPACE = 'c2d8e5a1-7b44-4f0e-9d3a-51e6b8f0c7d2';

/**
 * The id of a sample: its AccountSampled event's id, derived from the account and the start of its
 * interval (`at`, ISO 8601), so a second look in the same interval records it once and
 * DataCollectorRecordDTO.id can be told from the read model's row alone.
 */
export const sampleId = (accountId: string, at: string): string => uuidv5(`${accountId}/${at}`, SAMPLE_NAMESPACE);
