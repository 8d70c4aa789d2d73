// What the copy engine sees of an account's protections: while a risk limit is hit or a profit target
// locked, no new trade is copied to the account (to the one copier a copier's risk limit is scoped to) (decision.ts asks here before any feature). Changes
// and closes of positions already copied still follow the master, so what the account holds never
// drifts from the master's book because of a protection.
import type { Skip } from '../copy/types.js';
import type { RuleKind } from './rules.js';

export interface ProtectionBlock {
  readonly ruleKind: RuleKind;
  readonly ruleId: string;
  /** The slave symbol it blocks; null: every symbol. */
  readonly symbol: string | null;
  /** A risk limit scoped to one copier (RiskLimitDTO.copierId): the copier it blocks; null or absent: every copier. */
  readonly copierId?: string | null;
  readonly message: string;
}

const REASONS = { RISK_LIMIT: 'RISK_LIMIT_HIT', PROFIT_TARGET: 'PROFIT_TARGET_LOCKED', OVERALL_TARGET: 'OVERALL_TARGET_REACHED' } as const;

/**
 * The skip a new copy of `copierId` meets: the first block of the whole account, or of `symbol` when it
 * is given (the slave's symbol, after mapping); a block scoped to a copier only meets that copier.
 */
export const protectionSkip = (blocks: readonly ProtectionBlock[], symbol: string | null, copierId?: string): Skip | null => {
  const block = blocks.find(
    (b) => (b.copierId == null || b.copierId === copierId) && (b.symbol === null || (symbol !== null && b.symbol.toUpperCase() === symbol.toUpperCase())),
  );
  return block ? { reason: REASONS[block.ruleKind], message: block.message } : null;
};
