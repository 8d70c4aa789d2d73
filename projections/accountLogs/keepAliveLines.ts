// Account log lines (LogDTO) of an account's keep-alive trades (domain/keepAlive, FeatureKeepAliveTradeDTO
// set on the account): every firing (the trade opened, or why none was), every refusal of the broker, and
// each close. Category TRADING: the service traded the account on its own, for no master.
import type { KeepAliveEvent } from '../../domain/keepAlive/events.js';
import type { LogLine } from './logLine.js';

const ERROR = 1;
const WARNING = 2;
const INFO = 3;

const lots = (volume: number): string => `${volume} ${volume === 1 ? 'lot' : 'lots'}`;

export const keepAliveLogLine = (event: KeepAliveEvent): LogLine | null => {
  const d = event.data;
  const base = { accountId: d.accountId, category: 'TRADING' as const, copierId: null };
  const due = `Keep-alive trade due at ${d.firing}`;
  switch (event.type) {
    case 'KeepAliveTradeDecided':
      // Its outcome is logged (opened, or refused).
      return null;
    case 'KeepAliveTradeOpened': {
      const e = event.data;
      return {
        ...base,
        logTypeId: INFO,
        code: 'KEEP_ALIVE_TRADE',
        positionId: e.positionId,
        message: `${due} (to close after ${e.closeAfterInSeconds} seconds): ${e.side} ${e.volume} ${e.symbol} opened as #${e.positionId} at ${e.price}`,
      };
    }
    case 'KeepAliveTradeSkipped':
      return { ...base, logTypeId: INFO, code: event.data.reason, positionId: null, message: `${due} not placed: ${event.data.message}` };
    case 'KeepAliveTradeRefused': {
      const e = event.data;
      if (e.stage === 'open') {
        const then = e.final ? 'not tried again: its firing has passed' : 'trying again every second until the next firing';
        return {
          ...base,
          logTypeId: ERROR,
          code: e.code,
          positionId: null,
          message: `${due} (${e.side} ${lots(e.volume)} ${e.symbol}) refused: ${e.message}; ${then}`,
        };
      }
      return {
        ...base,
        logTypeId: ERROR,
        code: e.code,
        positionId: e.positionId,
        message: `Keep-alive trade #${e.positionId} (${e.side} ${e.volume} ${e.symbol}) could not be closed: ${e.message}; trying again every second`,
      };
    }
    case 'KeepAliveTradeClosed': {
      const e = event.data;
      const trade = `Keep-alive trade #${e.positionId} (${e.side} ${e.volume} ${e.symbol}, opened at ${e.openedAt}, held ${e.closeAfterInSeconds} seconds)`;
      if (e.gone)
        return { ...base, logTypeId: WARNING, code: 'KEEP_ALIVE_TRADE', positionId: e.positionId, message: `${trade} was already closed at the venue` };
      return {
        ...base,
        logTypeId: INFO,
        code: 'KEEP_ALIVE_TRADE',
        positionId: e.positionId,
        message: `${trade} closed at ${e.closePrice}, result ${(e.result ?? 0).toFixed(2)}`,
      };
    }
  }
};
