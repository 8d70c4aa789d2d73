// Deposits, withdrawals and the other cash movements of a cTrader account as the port's balance
// operations: read with ProtoOACashFlowHistoryListReq (a week per request; account.ts) and heard live
// as the DEPOSIT_WITHDRAW execution event. Each keeps cTrader's balanceHistoryId as its id, so the
// recorder stores it once whether it is heard live, read again after a reconnect, or at a restart.
import type { BalanceOperation } from '../port.js';
import { iso } from './book.js';
import { int, type ProtoOADepositWithdraw } from './protocol.js';

/** ProtoOAChangeBalanceType values that take money off the balance (the others add to it). */
const OUTGOING: ReadonlySet<number> = new Set([1, 4, 6, 10, 12, 13, 14, 16, 17, 18, 20, 28, 30, 32, 34, 35, 37]);

/**
 * Swap deposits and charges (BALANCE_DEPOSIT_SWAP 21, BALANCE_WITHDRAW_SWAP 22) are left out: a
 * position's swap is counted with the position and its closing deal.
 */
const SWAP: ReadonlySet<number> = new Set([21, 22]);

const NAMES: Readonly<Record<number, string>> = { 0: 'deposit', 1: 'withdrawal', 36: 'transfer in', 37: 'transfer out' };

/** The balance operation of a cash movement; null: one the positions already count (swap). */
export const balanceOperationOf = (operation: ProtoOADepositWithdraw): BalanceOperation | null => {
  const type = int(operation.operationType);
  if (SWAP.has(type)) return null;
  const digits = operation.moneyDigits ?? 2;
  const size = Math.abs(int(operation.delta)) / 10 ** digits;
  const note = operation.externalNote?.trim();
  return {
    kind: 'balance',
    id: String(int(operation.balanceHistoryId)),
    time: iso(operation.changeBalanceTimestamp),
    amount: Number((OUTGOING.has(type) ? -size : size).toFixed(digits)),
    comment: note || `cTrader ${NAMES[type] ?? `balance operation ${type}`}`,
  };
};
