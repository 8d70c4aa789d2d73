// The data collector (spec: FeatureDataCollectorDTO, DataCollectorRecordDTO): while the feature is on,
// the account's balance, equity and floating profit and loss are sampled from its venue every
// intervalSeconds, as AccountSampled events of the stream `samples-<accountId>`.
import { type Static, Type } from '@sinclair/typebox';
import { v5 as uuidv5 } from 'uuid';
import type { FeatureDefinition } from '../feature/definition.js';

export const DEFAULT_SAMPLE_INTERVAL_SECONDS = 60;

const members = Type.Object({
  intervalSeconds: Type.Integer({ minimum: 10, maximum: 3600, description: 'seconds between two samples; default 60' }),
});
export type DataCollectorSettings = Static<typeof members>;

export const dataCollectorFeature: FeatureDefinition<DataCollectorSettings> = {
  type: 'FeatureDataCollectorDTO',
  scopes: ['account'],
  multiple: false,
  members,
  defaults: { intervalSeconds: DEFAULT_SAMPLE_INTERVAL_SECONDS },
  description:
    "Switches the account's time series on: while the account is connected, its balance, equity, floating profit and loss and used margin are sampled from the broker every intervalSeconds (default 60). GET .../dataCollector reads them; performance metrics use them for the equity-based figures. Removing the feature stops sampling; the samples stay.",
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
