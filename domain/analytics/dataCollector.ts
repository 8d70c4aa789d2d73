// The data collector (spec: FeatureDataCollectorDTO, DataCollectorRecordDTO): while the feature is on,
// the account's balance, equity and floating profit and loss are sampled from its venue every
// collectionIntervalSeconds, as AccountSampled events of the stream `samples-<accountId>`. The members
// are the reference's; activateDataCollector false keeps the feature attached without sampling. What
// this service does not do yet (leave out balance, equity or floating P&L; normalize the answers;
// drop old samples) is refused when asked for, not ignored: the reference's defaults are what it does.
import { type Static, Type } from '@sinclair/typebox';
import { v5 as uuidv5 } from 'uuid';
import type { FeatureDefinition } from '../feature/definition.js';

export const DEFAULT_SAMPLE_INTERVAL_SECONDS = 60;

const NOT_YET = 'not supported by this service yet: every sample keeps balance, equity and floating P&L, answered as recorded, and kept';

const members = Type.Object({
  activateDataCollector: Type.Boolean({ description: 'true (default): the account is sampled; false: the feature stays attached and nothing is sampled' }),
  collectionIntervalSeconds: Type.Integer({ minimum: 10, maximum: 3600, description: 'seconds between two samples; default 60' }),
  recordBalance: Type.Boolean({ description: `default true; false is ${NOT_YET}` }),
  recordEquity: Type.Boolean({ description: `default true; false is ${NOT_YET}` }),
  recordFloatingPnL: Type.Boolean({ description: `default true; false is ${NOT_YET}` }),
  normalizeValues: Type.Boolean({ description: `default false; true is ${NOT_YET}` }),
  retentionDays: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description: `null or absent (default): samples are kept; a number of days is ${NOT_YET}`,
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
    retentionDays: null,
  },
  check: (s) => {
    const refused = [
      !s.recordBalance && 'recordBalance false',
      !s.recordEquity && 'recordEquity false',
      !s.recordFloatingPnL && 'recordFloatingPnL false',
      s.normalizeValues && 'normalizeValues true',
      s.retentionDays !== null && 'retentionDays',
    ].filter(Boolean);
    return refused.length ? `${refused.join(', ')}: ${NOT_YET}` : null;
  },
  description:
    "Switches the account's time series on: while the account is connected and activateDataCollector is true (the default), its balance, equity, floating profit and loss and used margin are sampled from the broker every collectionIntervalSeconds (default 60). recordBalance, recordEquity and recordFloatingPnL false, normalizeValues true and a retentionDays are not supported yet and refused with 400 [VALIDATION_FAILED]. GET .../dataCollector reads them; performance metrics use them for the equity-based figures. Removing the feature stops sampling; the samples stay.",
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
