// Queries of the charting data read model.
import type { Kysely } from 'kysely';
import type { ChartingAlert } from '../../domain/chartingWebhook/message.js';
import type { ChartingOutcome, ChartingWork } from '../../domain/chartingWebhook/events.js';
import type { ReadModels } from '../schema.js';

export interface ChartingDataRow {
  readonly id: string;
  readonly account_id: string;
  readonly project_id: string;
  readonly feature_id: string;
  readonly received: Date;
  readonly format: string;
  readonly message: string;
  readonly alert: ChartingAlert | null;
  readonly status: string;
  readonly attempts: number;
  readonly outcomes: readonly (ChartingOutcome & { readonly attempt: number; readonly at: string })[];
  readonly remaining: ChartingWork;
  readonly retry_until: Date | null;
  readonly next_attempt_at: Date | null;
  readonly updated: Date;
}

/** An account's charting data, newest first. */
export const chartingDataOf = (
  db: Kysely<ReadModels>,
  projectId: string,
  accountId: string,
  page: { readonly limit: number; readonly offset: number },
): Promise<ChartingDataRow[]> =>
  db
    .selectFrom('charting_data')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('account_id', '=', accountId)
    .orderBy('received', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute() as Promise<ChartingDataRow[]>;

export const findChartingData = (db: Kysely<ReadModels>, projectId: string, accountId: string, dataId: string): Promise<ChartingDataRow | undefined> =>
  db
    .selectFrom('charting_data')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('account_id', '=', accountId)
    .where('id', '=', dataId)
    .executeTakeFirst() as Promise<ChartingDataRow | undefined>;

/** Alerts being retried whose last attempt was at `lastBefore` or earlier, the longest waiting first. */
export const dueChartingRetries = (db: Kysely<ReadModels>, lastBefore: Date, limit: number): Promise<ChartingDataRow[]> =>
  db
    .selectFrom('charting_data')
    .selectAll()
    .where('status', '=', 'RETRYING')
    .where('updated', '<=', lastBefore)
    .orderBy('updated')
    .limit(limit)
    .execute() as Promise<ChartingDataRow[]>;
