// The copy network of a project as a graph: accounts are nodes, copiers are edges master -> slave.
// Trades flow along the edges, so a cycle would copy a trade back to where it came from, forever.

export interface CopierEdge {
  readonly from_account_id: string;
  readonly to_account_id: string;
  /** A strategy copier's strategy (copiers.ts CopierStrategies); absent or null: none. */
  readonly from_strategy_id?: string | null;
  readonly to_strategy_id?: string | null;
}

/** True when `to` already reaches `from` through copiers: a copier from -> to would close a cycle. */
export const wouldCloseCycle = (edges: readonly CopierEdge[], from: string, to: string): boolean => {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    const targets = next.get(e.from_account_id);
    if (targets) targets.push(e.to_account_id);
    else next.set(e.from_account_id, [e.to_account_id]);
  }
  const seen = new Set<string>();
  const stack = [to];
  while (stack.length) {
    const node = stack.pop()!;
    if (node === from) return true;
    if (seen.has(node)) continue;
    seen.add(node);
    stack.push(...(next.get(node) ?? []));
  }
  return false;
};

/**
 * True when a copier from `from` to `to` exists already, with the same strategies: two copiers between
 * the same accounts are allowed only for different strategies (each copies other trades, or marks them
 * with another key).
 */
export const copierExists = (
  edges: readonly CopierEdge[],
  from: string,
  to: string,
  strategies: { readonly fromStrategyId?: string | null; readonly toStrategyId?: string | null } = {},
): boolean =>
  edges.some(
    (e) =>
      e.from_account_id === from &&
      e.to_account_id === to &&
      (e.from_strategy_id ?? null) === (strategies.fromStrategyId ?? null) &&
      (e.to_strategy_id ?? null) === (strategies.toStrategyId ?? null),
  );
