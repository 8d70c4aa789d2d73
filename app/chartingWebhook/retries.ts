// The retry job of charting alerts (FeatureChartingWebhookDTO.openRetry; a close is always retried): one
// instance at a time (a lease, store/postgres/leases.ts) looks for alerts whose next attempt is due in
// the charting data read model and attempts them again. What is due is in the read model, rebuilt from
// the events, so a restart or another instance taking the lease over carries on where it stopped; the
// fixed client order ids (domain/chartingWebhook/decider.ts) keep a leg from opening twice.
import { setTimeout as wait } from 'node:timers/promises';
import { dueChartingRetries } from '../../projections/chartingData/queries.js';
import type { Leases } from '../../store/postgres/leases.js';
import type { RecoveryLog } from '../../store/recovery.js';
import type { Services } from '../services.js';
import { CHARTING_RETRY_INTERVAL_MS, retryChartingAlert } from './alerts.js';

export const CHARTING_RETRY_LEASE = 'charting-webhook-retries';
/** Alerts attempted per look. */
const BATCH = 50;

const sleep = (ms: number, signal: AbortSignal): Promise<void> => wait(ms, undefined, { signal }).catch(() => undefined);

export class ChartingRetries {
  private handle: { release(): Promise<void> } | null = null;
  private readonly lookMs: number;
  private readonly intervalMs: number;

  constructor(
    private readonly services: Services,
    private readonly leases: Leases,
    private readonly log: RecoveryLog,
    /** The spec's 30 seconds unless a spec shortens it (the copy engine's openRetryIntervalMs). */
    intervalMs?: number,
  ) {
    this.intervalMs = intervalMs ?? CHARTING_RETRY_INTERVAL_MS;
    this.lookMs = Math.min(this.intervalMs, 5_000);
  }

  start(): void {
    this.handle = this.leases.hold(CHARTING_RETRY_LEASE, (signal) => this.work(signal));
  }

  async stop(): Promise<void> {
    await this.handle?.release();
    this.handle = null;
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

  private async work(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.pass(signal);
      } catch (error) {
        this.log.warn(`charting alerts: the retry job could not look for due alerts (tried again later): ${String(error)}`);
      }
      await sleep(this.lookMs, signal);
    }
  }
}
