// Queries of the protections read model. A trigger whose period ended (`until` passed on the service
// clock) is no longer in force, whether or not the monitor has cleared it yet.
import type { Kysely, Selectable } from 'kysely';
import type { ProtectionBlock } from '../../domain/protection/blocks.js';
import type { RuleKind } from '../../domain/protection/rules.js';
import type { AccountProtectionsTable, ProtectionReferencesTable, ReadModels } from '../schema.js';

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

/** A trigger as a block, with the end of its period (null: until cleared). */
export interface TimedBlock {
  readonly accountId: string;
  readonly until: Date | null;
  readonly block: ProtectionBlock;
}

/**
 * Every trigger of the accounts as a block with its end, in force or not (blocksInForce picks those in
 * force at a time): the copy engine keeps these rows while the read model is unchanged (engine/copy/inputs.ts).
 */
export const timedBlocksOf = async (db: Kysely<ReadModels>, accountIds: readonly string[]): Promise<TimedBlock[]> => {
  if (accountIds.length === 0) return [];
  const rows = await db
    .selectFrom('account_protections as p')
    .leftJoin('risk_limits as l', 'l.id', 'p.rule_id')
    .selectAll('p')
    .select('l.copier_id')
    .where('p.account_id', 'in', [...new Set(accountIds)])
    .orderBy('p.at')
    .orderBy('p.trigger_id')
    .execute();
  return rows.map((row) => ({
    accountId: row.account_id,
    until: row.until === null ? null : new Date(row.until),
    block: { ruleKind: row.rule_kind as RuleKind, ruleId: row.rule_id, symbol: row.symbol, copierId: row.copier_id ?? null, message: row.message },
  }));
};

/** The blocks of `blocks` in force at `now` (as protectionBlocksOf reads them), by account. */
export const blocksInForce = (blocks: readonly TimedBlock[], now: Date): Map<string, ProtectionBlock[]> => {
  const out = new Map<string, ProtectionBlock[]>();
  for (const { accountId, until, block } of blocks) {
    if (until !== null && until.getTime() <= now.getTime()) continue;
    const list = out.get(accountId) ?? [];
    list.push(block);
    out.set(accountId, list);
  }
  return out;
};

/** The blocks in force on each account, for the copy engine; a risk limit scoped to a copier blocks that copier only. */
export const protectionBlocksOf = async (db: Kysely<ReadModels>, accountIds: readonly string[], now: Date): Promise<Map<string, ProtectionBlock[]>> => {
  const out = new Map<string, ProtectionBlock[]>();
  if (accountIds.length === 0) return out;
  const rows = await db
    .selectFrom('account_protections as p')
    .leftJoin('risk_limits as l', 'l.id', 'p.rule_id')
    .selectAll('p')
    .select('l.copier_id')
    .where('p.account_id', 'in', [...new Set(accountIds)])
    .where((eb) => eb.or([eb('p.until', 'is', null), eb('p.until', '>', now)]))
    .orderBy('p.at')
    .orderBy('p.trigger_id')
    .execute();
  for (const row of rows) {
    const list = out.get(row.account_id) ?? [];
    list.push({ ruleKind: row.rule_kind as RuleKind, ruleId: row.rule_id, symbol: row.symbol, copierId: row.copier_id ?? null, message: row.message });
    out.set(row.account_id, list);
  }
  return out;
};

export type ProtectionReferenceRow = Selectable<ProtectionReferencesTable>;

/** The references an account's rules measure from now (RiskLimitStatusDTO, ProfitTargetStatusDTO). */
export const protectionReferencesOf = (db: Kysely<ReadModels>, accountId: string): Promise<ProtectionReferenceRow[]> =>
  db.selectFrom('protection_references').selectAll().where('account_id', '=', accountId).orderBy('start').orderBy('anchor').execute();

/**
 * The reference a rule measures from now, as the protection aggregate picks it (domain/protection/anchors.ts):
 * its own reset or overall reference, or else its period family's, whichever began last.
 */
export const referenceOfRule = (rows: readonly ProtectionReferenceRow[], ruleId: string, family: string | null): ProtectionReferenceRow | undefined =>
  rows
    .filter((r) => r.rule_id === ruleId || (family !== null && r.kind === 'PERIOD' && r.family === family))
    .reduce<ProtectionReferenceRow | undefined>((best, r) => (!best || new Date(r.start).getTime() >= new Date(best.start).getTime() ? r : best), undefined);
