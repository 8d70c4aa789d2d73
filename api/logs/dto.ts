// LogDTO from the account_logs read model.
import type { Static } from '@sinclair/typebox';
import { logTypes } from '../../projections/accountLogs/logLine.js';
import type { accountLogPage } from '../../projections/accountLogs/queries.js';
import type { LogDTO } from './schemas.js';

type LogRow = Awaited<ReturnType<typeof accountLogPage>>[number];
type Wire = Static<typeof LogDTO>;

const NAMES = new Map(logTypes.map((t) => [t.id as number, t.name as Wire['logType']]));

/** `projectId`: the caller's project, which every entry it may read belongs to. */
export const toLogDTO = (row: LogRow, projectId: string): Wire => ({
  id: Number(row.position_prepare),
  date: new Date(row.time).toISOString(),
  text: row.message,
  logType: NAMES.get(row.log_type_id) ?? 'Info',
  accountId: row.account_id,
  projectId: row.project_id ?? projectId,
  acknowledged: row.acknowledged,
  logTypeId: row.log_type_id,
  category: row.category as Wire['category'],
  code: row.code,
  copierId: row.copier_id,
  positionId: row.position_id,
});
