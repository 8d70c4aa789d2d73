// The retry job of charting alerts (FeatureChartingWebhookDTO.openRetry; a close is always retried): one
// instance at a time (a lease, store/postgres/leases.ts) looks for alerts whose next attempt is due in
// the charting data read model and attempts them again. What is due is in the read model, rebuilt from
// the events, so a restart or another instance taking the lease over carries on where it stopped; the
// fixed client order ids (domain/chartingWebhook/decider.ts) keep a leg from opening twice.
import { dueChartingRetries } from '../../projections/chartingData/queries.js';
import { LeasedLoop } from '../../store/postgres/leasedLoop.js';
import type { Leases } from '../../store/postgres/leases.js';
import type { RecoveryLog } from '../../store/recovery.js';
import type { Services } from '../services.js';
import { CHARTING_RETRY_INTERVAL_MS, retryChartingAlert } from './alerts.js';

export const CHARTING_RETRY_LEASE = 'charting-webhook-retries';
/** Alerts attempted per look. */
const BATCH = 50;

export class ChartingRetries {
  private readonly loop: LeasedLoop;
  private readonly intervalMs: number;

  constructor(
    private readonly services: Services,
    leases: Leases,
    private readonly log: RecoveryLog,
    /** The spec's 30 seconds unless a spec shortens it (the copy engine's openRetryIntervalMs). */
    intervalMs?: number,
  ) {
    this.intervalMs = intervalMs ?? CHARTING_RETRY_INTERVAL_MS;
    this.loop = new LeasedLoop({
      leases,
      lease: CHARTING_RETRY_LEASE,
      everyMs: Math.min(this.intervalMs, 5_000),
      rounds: services.jobRounds,
      round: async (signal) => void (await this.pass(signal)),
      failed: (error) => log.warn(`charting alerts: the retry job could not look for due alerts (tried again later): ${String(error)}`),
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One look: attempts every alert due now; answers how many. */
  async pass(signal?: AbortSignal): Promise<number> {
    const due = await dueChartingRetries(this.services.db, new Date(this.services.clock().getTime() - this.intervalMs), BATCH);
    for (const row of due) {
      if (signal?.aborted) break;
      try {
        await retryChartingAlert(this.services, row, this.intervalMs);
      } catch (error) {
        this.log.warn(`charting alert ${row.id}: the retry failed (tried again later): ${String(error)}`);
      }
    }
    return due.length;
  }
}
