// Lists an exchange answers by time window with a cap per answer (Binance USDⓈ-M's allOrders,
// allAlgoOrders and userTrades: 7 days a query, 1,000 at most an answer): a window that answers the cap
// may hold more, so it is read again in two halves, each halved again while full, whatever order the
// exchange picks its 1,000 by. Items are told apart by id (a half's edge belongs to both).

/** The most a window answer holds (the exchanges' maximum `limit`). */
export const WINDOW_CAP = 1000;
/** Halvings at most (1,000 × 2^16 items in one window). */
const MAX_DEPTH = 16;

/** Everything `read` lists in [from, to] (ms), windows that answered the cap split until none does. */
export const everyInWindow = async <T>(read: (from: number, to: number) => Promise<T[]>, idOf: (item: T) => string, from: number, to: number): Promise<T[]> => {
  const found = new Map<string, T>();
  const walk = async (start: number, end: number, depth: number): Promise<void> => {
    const items = await read(start, end);
    for (const item of items) found.set(idOf(item), item);
    if (items.length < WINDOW_CAP || end - start < 2 || depth >= MAX_DEPTH) return;
    const middle = Math.floor((start + end) / 2);
    await walk(start, middle, depth + 1);
    await walk(middle, end, depth + 1);
  };
  await walk(from, to, 0);
  return [...found.values()];
};
