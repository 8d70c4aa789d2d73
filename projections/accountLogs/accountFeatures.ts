// Account log lines (LogDTO) of the account features' own events: a decision on an approval, the
// steps of a maintenance window, every close of a trade guardrail with its reason, and an account's
// keep-alive trades (keepAliveLines.ts). The skips these
// features cause are TradeSkipped lines already.
import type { ApprovalEvent } from '../../domain/approval/events.js';
import { approvalEventTypes } from '../../domain/approval/events.js';
import { maintenanceEventTypes, type MaintenanceEvent } from '../../domain/maintenanceWindow/events.js';
import { guardrailEventTypes, type GuardrailEvent } from '../../domain/tradeGuardrail/events.js';
import { keepAliveEventTypes, type KeepAliveEvent } from '../../domain/keepAlive/events.js';
import { keepAliveLogLine } from './keepAliveLines.js';
import type { LogLine } from './logLine.js';

export const accountFeatureLogEventTypes: readonly string[] = [...approvalEventTypes, ...maintenanceEventTypes, ...guardrailEventTypes, ...keepAliveEventTypes];

const INFO = 3;
const WARNING = 2;

const modes = (action: string): string => (action === 'MONITOR_ONLY' ? 'monitor-only' : action === 'DEACTIVATE_COPIERS' ? 'inactive' : 'unchanged');

const GUARDRAIL_CODES = { MAX_LOT_SIZE: 'GUARDRAIL_MAX_LOT_SIZE', MAX_OPEN_TIME: 'GUARDRAIL_MAX_OPEN_TIME' } as const;

/** A trade guardrail's close (category PROTECTION): which position, who placed it, and why. */
const guardrailLine = (event: GuardrailEvent): LogLine | null => {
  const d = event.data;
  if (event.type === 'GuardrailCloseDecided') return null;
  const lots = `${d.volume} ${d.volume === 1 ? 'lot' : 'lots'}`;
  const who = d.outside ? 'placed outside the service' : 'placed by the service';
  const scope = d.copierId === null ? 'Trade guardrail' : `Trade guardrail of copier ${d.copierId}`;
  const what = `#${d.positionId} (${d.side} ${lots} ${d.symbol}, ${who})`;
  const base = { accountId: d.accountId, category: 'PROTECTION' as const, copierId: d.copierId, positionId: d.positionId };
  if (event.type === 'GuardrailCloseFailed') {
    return { ...base, logTypeId: 1, code: event.data.code, message: `${scope} could not close ${what}: ${event.data.message}; trying again every second` };
  }
  const { closePrice, result } = event.data;
  if (closePrice === null) {
    return { ...base, logTypeId: INFO, code: GUARDRAIL_CODES[d.rule], message: `${scope} was to close ${what}, already closed at the venue: ${d.reason}` };
  }
  return {
    ...base,
    logTypeId: WARNING,
    code: GUARDRAIL_CODES[d.rule],
    message: `${scope} closed ${what} at ${closePrice}, result ${(result ?? 0).toFixed(2)}: ${d.reason}`,
  };
};

export const accountFeatureLogLineOf = (event: ApprovalEvent | MaintenanceEvent | GuardrailEvent | KeepAliveEvent): LogLine | null => {
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
    case 'GuardrailCloseDecided':
    case 'GuardrailPositionClosed':
    case 'GuardrailCloseFailed':
      return guardrailLine(event);
    case 'KeepAliveTradeDecided':
    case 'KeepAliveTradeOpened':
    case 'KeepAliveTradeSkipped':
    case 'KeepAliveTradeRefused':
    case 'KeepAliveTradeClosed':
      return keepAliveLogLine(event);
    default:
      return null;
  }
};
