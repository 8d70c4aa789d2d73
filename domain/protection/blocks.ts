// What the copy engine sees of an account's protections: while a risk limit is hit or a profit target
// locked, no new trade is copied to the account (decision.ts asks here before any feature). Changes
// and closes of positions already copied still follow the master, so what the account holds never
// drifts from the master's book because of a protection.
import type { Skip } from '../copy/types.js';
import type { RuleKind } from './rules.js';

export interface ProtectionBlock {
  readonly ruleKind: RuleKind;
  readonly ruleId: string;
  /** The slave symbol it blocks; null: every symbol. */
  readonly symbol: string | null;
  readonly message: string;
}

const REASONS = { RISK_LIMIT: 'RISK_LIMIT_HIT', PROFIT_TARGET: 'PROFIT_TARGET_LOCKED', OVERALL_TARGET: 'OVERALL_TARGET_REACHED' } as const;

/**
 * The skip a new copy meets: the first block of the whole account, or of `symbol` when it is given
 * (the slave's symbol, after mapping).
 */
export const protectionSkip = (blocks: readonly ProtectionBlock[], symbol: string | null): Skip | null => {
  const block = blocks.find((b) => b.symbol === null || (symbol !== null && b.symbol.toUpperCase() === symbol.toUpperCase()));
  return block ? { reason: REASONS[block.ruleKind], message: block.message } : null;
};
