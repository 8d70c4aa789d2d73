// The data collector's sampler (spec: FeatureDataCollectorDTO): every second it looks for connected
// accounts whose feature is on and whose interval has passed, reads their venue and records an
// AccountSampled event, a fact read from the venue (store/recorder.ts). A sample's time is the start of
// its interval and its event id derives from it, so a restart or a second look in the same interval
// records it once. A sample whose record equals the account's previous one (domain sameRecord: the
// reference's "only saved when values have changed") is not recorded; the previous one is remembered
// per account, and read from the read model when the sampler has none (after a start).
import type { Kysely } from 'kysely';
import {
  type CollectorValues,
  DEFAULT_SAMPLE_INTERVAL_SECONDS,
  recordOf,
  type RecordedMembers,
  sameRecord,
  sampleId,
  samplesStream,
  type SampleEvent,
} from '../../domain/analytics/dataCollector.js';
import { lastSamplesOf } from '../../projections/dataCollector/queries.js';
import { KeptRead, type ReadModelMarks } from '../../projections/keptRead.js';
import type { ReadModels } from '../../projections/schema.js';
import type { EventStore } from '../../store/port.js';
import type { AccountConnections } from '../venues/connections.js';
import { recordFacts } from '../../store/recorder.js';
import { Recovery, type RecoveryLog } from '../../store/recovery.js';

const TICK_MS = 1000;

export interface DataCollectorDeps {
  readonly store: EventStore;
  readonly db: Kysely<ReadModels>;
  readonly connections: AccountConnections;
  readonly clock: () => Date;
  readonly log: RecoveryLog;
  /** Read-model marks (ProjectionRunner.version): the collector features are read again only when they may have changed. */
  readonly readModelMarks?: ReadModelMarks;
}

export class DataCollector {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  /** Per account, the start of the last interval sampled. */
  private readonly sampled = new Map<string, number>();
  /** Per account, the last record stored (or found in the read model). */
  private readonly previous = new Map<string, Omit<CollectorValues, 'margin'>>();

  private readonly recovery: Recovery;

  /** The accounts' collector features, read again once the features read model moved. */
  private readonly features: KeptRead<readonly { readonly account_id: string | null; readonly setting: unknown }[]>;

  constructor(private readonly deps: DataCollectorDeps) {
    this.recovery = new Recovery('the data collector', deps.log, { action: 'samples again at the next tick' });
    this.features = new KeptRead(
      ['features'],
      () =>
        deps.db
          .selectFrom('features')
          .select(['account_id', 'setting'])
          .where('scope_kind', '=', 'account')
          .where('type', '=', 'FeatureDataCollectorDTO')
          .execute(),
      deps.readModelMarks,
    );
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = true;
      this.tick()
        .then(
          () => this.recovery.succeeded(),
          (error: unknown) => void this.recovery.noted(error),
        )
        .finally(() => {
          this.running = false;
        });
    }, TICK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Samples every account that is due now. */
  async tick(): Promise<void> {
    const rows = await this.features.get();
    const now = this.deps.clock().getTime();
    for (const row of rows) {
      const accountId = row.account_id;
      if (!accountId) continue;
      const setting = row.setting as {
        activateDataCollector?: boolean;
        collectionIntervalSeconds?: number;
        recordBalance?: boolean;
        recordEquity?: boolean;
        recordFloatingPnL?: boolean;
      };
      if (setting.activateDataCollector === false) continue;
      const interval = (setting.collectionIntervalSeconds ?? DEFAULT_SAMPLE_INTERVAL_SECONDS) * 1000;
      const bucket = Math.floor(now / interval) * interval;
      if (this.sampled.get(accountId) === bucket) continue;
      const connection = this.deps.connections.connection(accountId);
      if (!connection) continue;
      const info = await connection.accountInformation();
      const at = new Date(bucket).toISOString();
      const recorded: RecordedMembers = {
        balance: setting.recordBalance !== false,
        equity: setting.recordEquity !== false,
        floatingPnL: setting.recordFloatingPnL !== false,
      };
      const floatingPnl = Math.round((info.equity - info.balance - info.credit) * 100) / 100;
      const record = recordOf({ balance: info.balance, equity: info.equity, floatingPnl }, recorded);
      if (sameRecord(await this.previousOf(accountId), record)) {
        this.sampled.set(accountId, bucket);
        continue;
      }
      const event: SampleEvent = {
        type: 'AccountSampled',
        data: {
          accountId,
          at,
          balance: info.balance,
          equity: info.equity,
          floatingPnl,
          margin: info.margin,
          recorded,
        },
      };
      await recordFacts(this.deps.store, samplesStream(accountId), [{ id: sampleId(accountId, at), ...event }], {
        correlationId: `sample:${accountId}`,
        receivedAt: new Date(now).toISOString(),
      });
      this.sampled.set(accountId, bucket);
      this.previous.set(accountId, record);
    }
  }

  /** The account's previous record: remembered, else the newest in the read model; null without one. */
  private async previousOf(accountId: string): Promise<Omit<CollectorValues, 'margin'> | null> {
    const known = this.previous.get(accountId);
    if (known) return known;
    const [row] = await lastSamplesOf(this.deps.db, accountId, { limit: 1 });
    if (!row) return null;
    const record = recordOf(
      { balance: row.balance, equity: row.equity, floatingPnl: row.floating_pnl },
      { balance: row.record_balance, equity: row.record_equity, floatingPnL: row.record_floating_pnl },
    );
    this.previous.set(accountId, record);
    return record;
  }
}
