// Deterministic slave order ids (ARCHITECTURE.md, "Engine"): uuid v5 of the master event id, the
// copier id and the action. A crash and replay of the same master event computes the same id, and the
// venue, which gets it as the client order id, refuses to place the order a second time.
import { uuidV5 as uuidv5 } from '../shared/uuidV5.js';
import type { TradeAction } from './types.js';

/** Fixed forever: changing it would give every replayed event new ids. */
export const SLAVE_ORDER_ID_NAMESPACE = '66d53390-b185-48ce-8135-05019e88f64e';

export type SlaveOrderAction = TradeAction['type'];

/**
 * `part`: the order's part when forcePositionLotSize splits a copy into several orders (split.ts); part 0
 * (an unsplit copy) keeps the id it always had.
 */
export const slaveOrderId = (masterEventId: string, copierId: string, action: SlaveOrderAction, part = 0): string =>
  uuidv5(part === 0 ? `${masterEventId}/${copierId}/${action}` : `${masterEventId}/${copierId}/${action}/${part}`, SLAVE_ORDER_ID_NAMESPACE);
