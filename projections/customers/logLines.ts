// The account-log line of a customer's account stopped by the block job (CustomerAccountStopped): the
// account logs (projections/accountLogs) store it with the rest, so the account's log says why it stopped
// trading and copying.
import type { CustomerEvent } from '../../domain/customer/events.js';
import { type LogLine, LogType } from '../accountLogs/logLine.js';

export const customerLogEventTypes: readonly string[] = ['CustomerAccountStopped'];

export const customerLogLine = (event: Extract<CustomerEvent, { type: 'CustomerAccountStopped' }>): LogLine => ({
  accountId: event.data.accountId,
  logTypeId: LogType.Warning,
  category: 'CONNECTION',
  message: `Account stopped: the brand's operator blocked its owner${event.data.reason ? ` (${event.data.reason})` : ''}; nothing is traded or copied on it any more`,
  code: '[CUSTOMER_BLOCKED]',
  copierId: null,
  positionId: null,
});
