// What the account logs say about an account's protections (category PROTECTION): each period's
// reference, every limit hit and target locked with its reason code, the closing of positions, resets
// and clears. The copy engine's skips (RISK_LIMIT_HIT ...) are logged with the copies.
import type { ProtectionEvent } from '../../domain/protection/events.js';
import { type LogLine, LogType } from '../accountLogs/logLine.js';

const money = (amount: number): string => amount.toFixed(2);
const PERIOD = { day: 'Day', week: 'Week', month: 'Month' } as const;

const CODES = {
  RISK_LIMIT: { LIMIT: 'RISK_LIMIT_HIT', FALLBACK: 'RISK_LIMIT_FALLBACK_HIT' },
  PROFIT_TARGET: { TARGET: 'PROFIT_TARGET_LOCKED' },
  OVERALL_TARGET: { TARGET: 'OVERALL_TARGET_REACHED', LOSS_LIMIT: 'OVERALL_LOSS_LIMIT_REACHED' },
} as const;

export const protectionLogLine = (event: ProtectionEvent): LogLine | null => {
  const line = (logTypeId: LogLine['logTypeId'], message: string, code: string | null, positionId: string | null = null): LogLine => ({
    accountId: event.data.accountId,
    logTypeId,
    category: 'PROTECTION',
    message,
    code,
    copierId: null,
    positionId,
  });
  switch (event.type) {
    case 'ProtectionReferenceRecorded': {
      const d = event.data;
      const values = `balance ${money(d.balance)} ${d.currency}, equity ${money(d.equity)} ${d.currency}`;
      if (d.kind === 'PERIOD') {
        const late = d.late
          ? `; read late, at ${d.observedAt}: the rule was added then, or the account was not watched when the ${d.unit} began (service down, account offline), so it measures from then`
          : '';
        return line(
          d.late ? LogType.Warning : LogType.Info,
          `${PERIOD[d.unit!]} ${d.label} began at ${d.start}: risk limits and profit targets measure from ${values}${late}`,
          'PERIOD_REFERENCE',
        );
      }
      if (d.kind === 'RESET') return line(LogType.Info, `After the reset at ${d.start}, the rule measures from ${values}`, 'RESET_REFERENCE');
      return line(
        LogType.Info,
        `Overall target ${d.ruleId} watched from ${d.observedAt}: ${values}; deposits and withdrawals from now on move its reference when adjustReferenceOnBalanceChange is on`,
        'OVERALL_REFERENCE',
      );
    }
    case 'ProtectionPeakRecorded':
      return null;
    case 'ProtectionThresholdReached':
      return line(LogType.Warning, event.data.message, event.data.level === 'FALLBACK' ? 'RISK_LIMIT_FALLBACK_REACHED' : 'RISK_LIMIT_REACHED');
    case 'ProtectionThresholdReceded':
      return line(
        LogType.Info,
        `Risk limit ${event.data.ruleId}: reached at ${event.data.since}, no longer held at ${event.data.at} before its fulfillSeconds passed; it did not act`,
        'RISK_LIMIT_RECEDED',
      );
    case 'ProtectionTriggered': {
      const codes = CODES[event.data.ruleKind] as Readonly<Record<string, string>>;
      return line(LogType.Warning, event.data.message, codes[event.data.level] ?? 'PROTECTION_TRIGGERED');
    }
    case 'ProtectionCleared': {
      const why = event.data.reason === 'NEXT_PERIOD' ? 'its period ended' : 'its rule was removed or deactivated';
      return line(LogType.Info, `Protection ${event.data.ruleId} no longer in force (${why}): new copies to this account resume`, 'PROTECTION_CLEARED');
    }
    case 'ProtectionReset':
      return line(LogType.Info, event.data.message, 'PROTECTION_RESET');
    case 'ProtectionPositionsClosed': {
      const { closedPositions, cancelledOrders } = event.data;
      const closed = closedPositions.length
        ? `closed position${closedPositions.length === 1 ? '' : 's'} ${closedPositions.map((p) => `#${p}`).join(', ')}`
        : 'no position to close';
      const cancelled = cancelledOrders.length
        ? `; cancelled pending order${cancelledOrders.length === 1 ? '' : 's'} ${cancelledOrders.map((p) => `#${p}`).join(', ')}`
        : '';
      return line(LogType.Info, `Protection ${event.data.ruleId}: ${closed}${cancelled}`, 'PROTECTION_POSITIONS_CLOSED');
    }
    case 'ProtectionClosingDecided':
    case 'ProtectionLockedCloseDecided':
      // Its outcome is logged (closed, or why not).
      return null;
    case 'ProtectionLockedPositionClosed': {
      const d = event.data;
      const item = `${d.kind === 'position' ? 'position' : 'pending order'} #${d.positionId} (${d.volume} ${d.volume === 1 ? 'lot' : 'lots'} ${d.symbol}, ${d.outside ? 'placed outside the service' : 'placed through the service'})`;
      const what = d.gone ? `${item} was already gone when it was to be closed` : `${d.kind === 'position' ? 'closed' : 'cancelled'} ${item}`;
      const until = d.until === null ? 'until it is reset' : `until ${d.until}`;
      return line(
        LogType.Warning,
        `Protection ${d.ruleId} (${d.ruleType}) locks the account ${until}, closing what opens meanwhile: ${what}`,
        'PROTECTION_LOCKED_POSITION_CLOSED',
        d.positionId,
      );
    }
    case 'ProtectionCloseFailed':
      return line(
        LogType.Error,
        `Protection ${event.data.ruleId} could not close #${event.data.positionId}: ${event.data.message}; ${event.data.final === true ? 'its lock has ended: not tried again' : 'trying again every second'}`,
        event.data.code,
        event.data.positionId,
      );
  }
};
