// Account log lines (LogDTO) of the account features' own events: a decision on an approval, and the
// steps of a maintenance window. The skips these features cause are TradeSkipped lines already.
import type { ApprovalEvent } from '../../domain/approval/events.js';
import { approvalEventTypes } from '../../domain/approval/events.js';
import { maintenanceEventTypes, type MaintenanceEvent } from '../../domain/maintenanceWindow/events.js';
import type { LogLine } from './logLine.js';

export const accountFeatureLogEventTypes: readonly string[] = [...approvalEventTypes, ...maintenanceEventTypes];

const INFO = 3;
const WARNING = 2;

const modes = (action: string): string => (action === 'MONITOR_ONLY' ? 'monitor-only' : action === 'DEACTIVATE_COPIERS' ? 'inactive' : 'unchanged');

export const accountFeatureLogLineOf = (event: ApprovalEvent | MaintenanceEvent): LogLine | null => {
  const line = (accountId: string, logTypeId: 2 | 3, message: string, extra: Partial<LogLine> = {}): LogLine => ({
    accountId,
    logTypeId,
    category: 'COPY',
    message,
    code: null,
    copierId: null,
    positionId: null,
    ...extra,
  });
  switch (event.type) {
    case 'ApprovalDecided': {
      const d = event.data;
      return line(d.accountId, INFO, `Copy of master position #${d.masterPositionId} ${d.approved ? 'approved' : 'rejected'} (approval ${d.approvalId})`, {
        copierId: d.copierId,
        positionId: d.masterPositionId,
        code: d.approved ? 'APPROVED' : 'REJECTED',
      });
    }
    case 'MaintenanceWindowEntered': {
      const d = event.data;
      // A project's window (no account of its own) logs only its closes, on the accounts closed.
      if (d.accountId === null) return null;
      return line(
        d.accountId,
        WARNING,
        `Maintenance window ${d.startsAt} to ${d.endsAt} started: ${d.copierStates.length} copiers of ${d.affectedAccountIds.length} accounts recorded, active ones go ${modes(d.maintenanceAction)}; positions: ${d.closePositionStrategy}`,
        { code: 'MAINTENANCE_WINDOW' },
      );
    }
    case 'MaintenanceWindowCopiersSwitched':
      if (event.data.accountId === null) return null;
      return line(
        event.data.accountId,
        INFO,
        `Maintenance window: ${event.data.switched.length} copiers switched${event.data.switched.length ? ` (${event.data.switched.join(', ')})` : ''}`,
        { code: 'MAINTENANCE_WINDOW' },
      );
    case 'MaintenanceWindowPositionsClosed':
      return line(
        event.data.closedAccountId,
        WARNING,
        `Maintenance window of ${event.data.accountId === null ? 'the project' : `account ${event.data.accountId}`}: ${event.data.closed} positions and pending orders closed`,
        { code: 'MAINTENANCE_WINDOW' },
      );
    case 'MaintenanceWindowEntryCompleted':
      return null;
    case 'MaintenanceWindowExited':
      if (event.data.accountId === null) return null;
      return line(event.data.accountId, INFO, `Maintenance window ended: ${event.data.restored.length} copiers got their modes back`, {
        code: 'MAINTENANCE_WINDOW',
      });
    default:
      return null;
  }
};
