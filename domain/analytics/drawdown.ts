// Drawdown of an account, from its balance history (AccountInformationDTO.maxDrawdown, avgDrawdown).
//
// The curve is the balance after each closed trade. Deposits and withdrawals move the balance but
// are not results: they shift the running peak by the same amount, so a deposit never hides a
// drawdown and a withdrawal never creates one. An episode starts when the balance falls below the
// peak and ends when it reaches a new peak; its depth is the largest (peak - balance) / peak in it.
//   maxDrawdown = the deepest episode, in percent of its peak;
//   avgDrawdown = the mean depth of all episodes (the open one included), in percent; 0 without any.
export type BalanceStep = { readonly kind: 'trade'; readonly result: number } | { readonly kind: 'balance'; readonly amount: number };

export interface Drawdown {
  readonly maxDrawdown: number;
  readonly avgDrawdown: number;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

export const drawdownOf = (steps: readonly BalanceStep[]): Drawdown => {
  let balance = 0;
  let peak = 0;
  let depth = 0;
  const episodes: number[] = [];
  for (const step of steps) {
    if (step.kind === 'balance') {
      balance += step.amount;
      peak += step.amount;
      continue;
    }
    balance += step.result;
    if (balance >= peak) {
      if (depth > 0) episodes.push(depth);
      depth = 0;
      peak = balance;
    } else if (peak > 0) {
      depth = Math.max(depth, (peak - balance) / peak);
    }
  }
  if (depth > 0) episodes.push(depth);
  if (episodes.length === 0) return { maxDrawdown: 0, avgDrawdown: 0 };
  return {
    maxDrawdown: round2(Math.max(...episodes) * 100),
    avgDrawdown: round2((episodes.reduce((a, b) => a + b, 0) / episodes.length) * 100),
  };
};
