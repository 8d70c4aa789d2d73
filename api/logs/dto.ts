// LogDTO from the account_logs read model.
import type { Static } from '@sinclair/typebox';
import { LogType } from '../../projections/accountLogs/logLine.js';
import type { accountLogPage } from '../../projections/accountLogs/queries.js';
import type { LogDTO } from '../trading/schemas.js';

type LogRow = Awaited<ReturnType<typeof accountLogPage>>[number];

const NAMES = { [LogType.Error]: 'Error', [LogType.Warning]: 'Warning', [LogType.Info]: 'Info' } as const;

export const toLogDTO = (row: LogRow) => ({
  id: row.id,
  time: new Date(row.time).toISOString(),
  logTypeId: row.log_type_id,
  logType: NAMES[row.log_type_id as keyof typeof NAMES],
  category: row.category as Static<typeof LogDTO>['category'],
  message: row.message,
  code: row.code,
  copierId: row.copier_id,
  positionId: row.position_id,
});
