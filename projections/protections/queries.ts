// Queries of the protections read model. A trigger whose period ended (`until` passed on the service
// clock) is no longer in force, whether or not the monitor has cleared it yet.
import type { Kysely, Selectable } from 'kysely';
import type { ProtectionBlock } from '../../domain/protection/blocks.js';
import type { RuleKind } from '../../domain/protection/rules.js';
import type { AccountProtectionsTable, ReadModels } from '../schema.js';

export type ProtectionRow = Selectable<AccountProtectionsTable>;

export const protectionsInForce = async (db: Kysely<ReadModels>, accountIds: readonly string[], now: Date): Promise<ProtectionRow[]> => {
  if (accountIds.length === 0) return [];
  return db
    .selectFrom('account_protections')
    .selectAll()
    .where('account_id', 'in', [...new Set(accountIds)])
    .where((eb) => eb.or([eb('until', 'is', null), eb('until', '>', now)]))
    .orderBy('at')
    .orderBy('trigger_id')
    .execute();
};

/** The blocks in force on each account, for the copy engine. */
export const protectionBlocksOf = async (db: Kysely<ReadModels>, accountIds: readonly string[], now: Date): Promise<Map<string, ProtectionBlock[]>> => {
  const out = new Map<string, ProtectionBlock[]>();
  for (const row of await protectionsInForce(db, accountIds, now)) {
    const list = out.get(row.account_id) ?? [];
    list.push({ ruleKind: row.rule_kind as RuleKind, ruleId: row.rule_id, symbol: row.symbol, message: row.message });
    out.set(row.account_id, list);
  }
  return out;
};
