// What a copy decision needs, gathered per master event: the master's funds and the symbol's
// specification once, then per copier the slave's funds, symbols and live copies. The copier rows and
// copies come from the read models (the engine waits for them to include everything before the
// event); funds and specifications come from the venues.
import type { Kysely, Selectable } from 'kysely';
import { AccountStatus } from '../../domain/account/enums.js';
import type { CopierSettings } from '../../domain/copier/settings.js';
import { initialMartingaleState } from '../../domain/copy/martingale.js';
import type { AccountFunds, CopierView, MartingaleState, OrderType, SlaveCopy, SymbolSpec } from '../../domain/copy/types.js';
import { copierFeatures } from '../../domain/copy/features/catalogue.js';
import type { ActiveFeature } from '../../domain/copy/features/rules.js';
import { membersOf } from '../../domain/feature/definition.js';
import { featuresFor, resetsOf } from '../../projections/features/queries.js';
import type { ProtectionBlock } from '../../domain/protection/blocks.js';
import { blocksInForce, timedBlocksOf } from '../../projections/protections/queries.js';
import { projectSymbolMappings, type SymbolMappingRow } from '../../projections/symbolMappings/queries.js';
import type { ProjectMapping } from '../../domain/copy/symbolMapping.js';
import type { StrategyRouting } from '../../domain/copy/strategyRouting.js';
import { applicableMappings } from '../../domain/symbolMapping/rule.js';
import { marksOf, type ReadModelMarks } from '../../projections/keptRead.js';
import type { CopiersTable, ReadModels } from '../../projections/schema.js';
import type { AccountSessions } from '../venues/connections.js';
import type { AccountInformation, SymbolInfo, VenueConnection } from '../venues/port.js';
import { slaveToMasterRate } from './currencyRate.js';
import { accountCopyHistory, STANDALONE_LIKE } from './copyRecords.js';

// The copy records moved to copyRecords.ts; their readers import them from here as before.
export { accountCopyHistory, copyHistory, HISTORY_DEPTH, masterOrdersOf, slaveLastTradeAt, standaloneTrades } from './copyRecords.js';

export type CopierRow = Selectable<CopiersTable>;

export const specOf = (info: SymbolInfo): SymbolSpec => ({
  symbol: info.symbol,
  minLot: info.minVolume,
  maxLot: info.maxVolume,
  lotStep: info.volumeStep,
  digits: info.digits,
  point: info.point,
  contractSize: info.contractSize,
  stopsLevel: info.stopsLevel,
  swapLong: info.swapLong,
  swapShort: info.swapShort,
});

export const fundsOf = (info: AccountInformation): AccountFunds => ({ balance: info.balance, equity: info.equity, currency: info.currency });

/** A strategy copier's routing by key, as its row has it (the key and activity its strategy has now); undefined without a strategy. */
export const strategyRoutingOf = (row: CopierRow): StrategyRouting | undefined =>
  row.from_strategy_id || row.to_strategy_id
    ? {
        fromKey: row.from_strategy_id ? row.strategy_key : null,
        toKey: row.to_strategy_id ? row.strategy_key : null,
        active: row.strategy_active,
      }
    : undefined;

export const copierViewOf = (row: CopierRow, projectMappings: readonly ProjectMapping[] = []): CopierView => {
  const strategy = strategyRoutingOf(row);
  return {
    id: row.id,
    settings: row.settings as CopierSettings,
    symbolOverrides: (row.symbol_mappings ?? {}) as Record<string, string>,
    projectMappings,
    ...(strategy ? { strategy } : {}),
  };
};

export interface MasterSide {
  readonly funds: AccountFunds | null;
  readonly symbol: SymbolSpec | null;
}

export type SlaveSide =
  | {
      readonly ok: true;
      readonly connection: VenueConnection;
      readonly info: AccountInformation;
      readonly symbols: readonly SymbolSpec[];
      /** The account's protections in force (a risk limit hit, a profit target locked). */
      readonly protections: readonly ProtectionBlock[];
    }
  | { readonly ok: false; readonly reason: 'SLAVE_NOT_CONNECTED' | 'SLAVE_TRADING_DISABLED'; readonly message: string };

export interface SlaveAccount {
  readonly account_status_id: number;
  readonly trading_disabled: boolean;
  readonly protections?: readonly ProtectionBlock[];
}

/** A kept read: the read models it read, what else it depends on, their marks then, and its answer. */
interface KeptRead {
  readonly names: readonly string[];
  readonly vary: string;
  readonly version: string;
  readonly value: Promise<unknown>;
}

/** Kept reads are never swept below this many. */
const KEPT_SWEEP_LEAST = 64;

export class CopyInputs {
  /** Each slave login's symbols, read from its venue once (concurrent asks share the read; a failed one is read again). */
  private readonly symbolsByLogin = new Map<string, Promise<readonly SymbolSpec[]>>();
  /** The master of each copier some read of a master's copiers answered (copiersOf). */
  private readonly masterOfCopier = new Map<string, string>();
  /**
   * Reads of a project's symbol mappings under way: the copiers of one fan-out ask at once, and share
   * one query. Only concurrent asks share it (nothing is kept once it answers), so a change of the
   * mappings is seen by the next copy as before.
   */
  private readonly mappingReads = new Map<string, Promise<SymbolMappingRow[]>>();

  /** Reads kept while the read models they read are unchanged (`kept`), by key. */
  private readonly keptReads = new Map<string, KeptRead>();
  /** The number of kept reads at which the stale ones are swept out next (`evictStale`). */
  private sweepAt = KEPT_SWEEP_LEAST;
  /** The read models the slave accounts' status, flags and protections come from (slaveAccounts). */
  private static readonly SLAVE_READ_MODELS = ['accounts', 'protections', 'risk_limits'];

  constructor(
    private readonly db: Kysely<ReadModels>,
    private readonly connections: AccountSessions,
    /** The service clock: a protection lasts until a time on it. */
    private readonly clock: () => Date = () => new Date(),
    /**
     * The mark of a read model that moves whenever it may have changed (ProjectionRunner.version); null,
     * or not given: unknown here, nothing is kept.
     */
    private readonly readModelVersion: ReadModelMarks = () => null,
  ) {}

  /**
   * `read` of the read models `names`, kept and answered again while none of them changed since it
   * began (their marks are the same): what a read now would answer, without the round trip. The copy
   * path reads the master's copiers, the project's symbol mappings and the copiers' features on every
   * master event, and they rarely change. Callers must not change what it answers (it is shared).
   */
  private kept<T>(key: string, names: readonly string[], read: () => Promise<T>, vary = ''): Promise<T> {
    const marks = marksOf(names, this.readModelVersion);
    if (marks === null) return read();
    // `vary`: what else the answer depends on (the ids asked for), kept under one key per master.
    const version = `${marks}|${vary}`;
    const entry = this.keptReads.get(key);
    if (entry && entry.version === version) return entry.value as Promise<T>;
    const value = read();
    this.keptReads.set(key, { names, vary, version, value });
    if (this.keptReads.size >= this.sweepAt) this.evictStale();
    value.catch(() => {
      if (this.keptReads.get(key)?.value === value) this.keptReads.delete(key);
    });
    return value;
  }

  /**
   * Drops the kept reads whose read models moved since (a read now would not answer them): those of a
   * deleted master or project are never asked for again, and would stay for good. Swept when the kept
   * reads have doubled since the last sweep, so the work is a constant share of the reads, and what is
   * kept stays within twice what is current.
   */
  private evictStale(): void {
    for (const [key, entry] of this.keptReads) {
      if (`${marksOf(entry.names, this.readModelVersion)}|${entry.vary}` !== entry.version) this.keptReads.delete(key);
    }
    this.sweepAt = Math.max(KEPT_SWEEP_LEAST, this.keptReads.size * 2);
  }

  /** How many reads are kept now (specs). */
  get keptCount(): number {
    return this.keptReads.size;
  }

  /** The accounts some copier copies from. */
  async masters(): Promise<string[]> {
    const rows = await this.db.selectFrom('copiers').select('from_account_id').distinct().execute();
    return rows.map((r) => r.from_account_id);
  }

  /** The master's copiers (kept while the copiers read model is unchanged: do not change what it answers). */
  copiersOf(masterAccountId: string): Promise<readonly CopierRow[]> {
    return this.kept(`copiers:${masterAccountId}`, ['copiers'], async () => {
      const rows = await this.db.selectFrom('copiers').selectAll().where('from_account_id', '=', masterAccountId).orderBy('created').orderBy('id').execute();
      for (const row of rows) this.masterOfCopier.set(row.id, masterAccountId);
      return rows;
    });
  }

  /** The master of the copier, if a read of its master's copiers found it (a copier never changes master); nothing is read. */
  knownMasterOf(copierId: string): string | undefined {
    return this.masterOfCopier.get(copierId);
  }

  /**
   * Reads ahead what a fan-out of the master reads (handlers.ts fanOutInputs, `slave`): its copiers,
   * their slave accounts, features and project mappings, and each connected slave's symbols, so the
   * kept reads hold them when its next change comes. Nothing here is decided with: a fan-out reads
   * through the same kept reads, which answer what priming read only while their read models are
   * unchanged since it began (a copier added, removed or paused meanwhile moves the copiers mark and
   * is read again).
   */
  async prime(masterAccountId: string): Promise<void> {
    const copiers = await this.copiersOf(masterAccountId);
    if (copiers.length === 0) return;
    const slaves = [...new Set(copiers.map((c) => c.to_account_id))];
    const connected = slaves.flatMap((id) => {
      const connection = this.connections.connection(id);
      return connection ? [this.symbolsOf(connection)] : [];
    });
    await Promise.all([
      this.slaveAccounts(
        copiers.map((c) => c.to_account_id),
        masterAccountId,
      ),
      this.activeFeatures(copiers),
      this.projectMappingsOf(copiers),
      ...connected,
    ]);
  }

  /** activeFeatures, the feature rows kept while the features read model is unchanged. */
  activeFeatures(
    copiers: readonly { readonly id: string; readonly to_account_id: string; readonly project_id?: string }[],
  ): Promise<Map<string, ActiveFeature[]>> {
    return activeFeatures(this.db, copiers, (...args) => this.kept(`features:${JSON.stringify(args.slice(1))}`, ['features'], () => featuresFor(...args)));
  }

  /**
   * The project's symbol mappings that apply to the copier: brokerFrom matching the master account's
   * loginServer, brokerTo the slave's, in the order they are tried (domain/symbolMapping/rule.ts).
   */
  async projectMappingsFor(copier: Pick<CopierRow, 'project_id' | 'from_account_id' | 'to_account_id'>): Promise<ProjectMapping[]> {
    const mappings = await this.projectMappings(copier.project_id);
    if (mappings.length === 0) return [];
    const servers = await this.db
      .selectFrom('accounts')
      .select(['id', 'login_server'])
      .where('id', 'in', [copier.from_account_id, copier.to_account_id])
      .execute();
    const serverOf = (id: string) => servers.find((s) => s.id === id)?.login_server ?? '';
    return applicableMappings(mappings, serverOf(copier.from_account_id), serverOf(copier.to_account_id));
  }

  /**
   * projectMappingsFor for every copier of a fan-out at once: each project's mappings read once, and
   * the login servers only when some project has mappings, in one query for all the accounts.
   */
  async projectMappingsOf(
    copiers: readonly Pick<CopierRow, 'id' | 'project_id' | 'from_account_id' | 'to_account_id'>[],
  ): Promise<Map<string, ProjectMapping[]>> {
    const projects = [...new Set(copiers.map((c) => c.project_id))];
    const byProject = new Map(await Promise.all(projects.map(async (id) => [id, await this.projectMappings(id)] as const)));
    const out = new Map<string, ProjectMapping[]>();
    const mapped = copiers.filter((c) => (byProject.get(c.project_id) ?? []).length > 0);
    if (mapped.length === 0) {
      for (const c of copiers) out.set(c.id, []);
      return out;
    }
    const servers = await this.db
      .selectFrom('accounts')
      .select(['id', 'login_server'])
      .where('id', 'in', [...new Set(mapped.flatMap((c) => [c.from_account_id, c.to_account_id]))])
      .execute();
    const serverOf = new Map(servers.map((s) => [s.id, s.login_server]));
    for (const c of copiers) {
      const rows = byProject.get(c.project_id) ?? [];
      out.set(c.id, rows.length === 0 ? [] : applicableMappings(rows, serverOf.get(c.from_account_id) ?? '', serverOf.get(c.to_account_id) ?? ''));
    }
    return out;
  }

  private projectMappings(projectId: string): Promise<SymbolMappingRow[]> {
    let read = this.mappingReads.get(projectId);
    if (!read) {
      read = this.kept(`mappings:${projectId}`, ['symbol_mappings'], () => projectSymbolMappings(this.db, projectId)).finally(() =>
        this.mappingReads.delete(projectId),
      );
      this.mappingReads.set(projectId, read);
    }
    return read;
  }

  copier(copierId: string): Promise<CopierRow | undefined> {
    return this.db.selectFrom('copiers').selectAll().where('id', '=', copierId).executeTakeFirst();
  }

  async master(masterAccountId: string, symbol: string | null): Promise<MasterSide> {
    const connection = this.connections.connection(masterAccountId);
    if (!connection) return { funds: null, symbol: null };
    const info = await connection.accountInformation();
    const spec = symbol === null ? null : await connection.symbolInfo(symbol).then(specOf, () => null);
    return { funds: fundsOf(info), symbol: spec };
  }

  /**
   * Status and trading flag of the slave accounts and their protections in force, in one round trip
   * for a whole fan-out. With `masterAccountId` (a fan-out's), the rows are kept while the accounts,
   * protections and risk limits read models are unchanged and the same accounts are asked for; the
   * protections in force are picked on the service clock at every ask (a period may end meanwhile).
   */
  async slaveAccounts(ids: readonly string[], masterAccountId?: string): Promise<Map<string, SlaveAccount>> {
    if (ids.length === 0) return new Map();
    const unique = [...new Set(ids)];
    const read = () =>
      Promise.all([
        this.db.selectFrom('accounts').select(['id', 'account_status_id', 'trading_disabled']).where('id', 'in', unique).execute(),
        timedBlocksOf(this.db, unique),
      ]);
    const [rows, blocks] = masterAccountId ? await this.kept(`slaves:${masterAccountId}`, CopyInputs.SLAVE_READ_MODELS, read, unique.join(',')) : await read();
    const protections = blocksInForce(blocks, this.clock());
    return new Map(rows.map((r) => [r.id, { ...r, protections: protections.get(r.id) ?? [] }]));
  }

  async slave(slaveAccountId: string, known?: ReadonlyMap<string, SlaveAccount>): Promise<SlaveSide> {
    const account = known ? known.get(slaveAccountId) : (await this.slaveAccounts([slaveAccountId])).get(slaveAccountId);
    if (!account || account.account_status_id !== AccountStatus.Active) {
      return { ok: false, reason: 'SLAVE_NOT_CONNECTED', message: 'the slave account is not started' };
    }
    if (account.trading_disabled) return { ok: false, reason: 'SLAVE_TRADING_DISABLED', message: 'trading is disabled on the slave account (tradingDisabled)' };
    let connection = this.connections.connection(slaveAccountId);
    if (!connection && this.connections.refreshConnected) {
      // Sessions held by another instance: an account it connected a moment ago may not be known here yet.
      await this.connections.refreshConnected();
      connection = this.connections.connection(slaveAccountId);
    }
    if (!connection) return { ok: false, reason: 'SLAVE_NOT_CONNECTED', message: 'the slave account is not connected to its broker' };
    const info = await connection.accountInformation();
    const symbols = await this.symbolsOf(connection);
    return { ok: true, connection, info, symbols, protections: account.protections ?? [] };
  }

  /** The symbols of the slave's login, read from its venue once. */
  private symbolsOf(connection: VenueConnection): Promise<readonly SymbolSpec[]> {
    const { login } = connection;
    let symbols = this.symbolsByLogin.get(login);
    if (!symbols) {
      const read = connection.symbols().then((list) => list.map(specOf));
      symbols = read;
      this.symbolsByLogin.set(login, read);
      read.catch(() => {
        if (this.symbolsByLogin.get(login) === read) this.symbolsByLogin.delete(login);
      });
    }
    return symbols;
  }

  /** The open copies of every copier of the master, by copier. */
  async copiesOf(masterAccountId: string): Promise<Map<string, SlaveCopy[]>> {
    const rows = await this.db
      .selectFrom('copies')
      .selectAll()
      .where('master_account_id', '=', masterAccountId)
      .where('status', '=', 'open')
      .where('master_position_id', 'not like', STANDALONE_LIKE)
      .execute();
    const out = new Map<string, SlaveCopy[]>();
    for (const row of rows) {
      const list = out.get(row.copier_id) ?? [];
      list.push({
        masterPositionId: row.master_position_id,
        slavePositionId: row.slave_position_id,
        kind: row.kind,
        symbol: row.symbol,
        orderType: row.order_type as OrderType,
        volume: row.volume,
        ...(row.part === 0 ? {} : { part: row.part }),
      });
      out.set(row.copier_id, list);
    }
    return out;
  }

  async martingaleOf(copierIds: readonly string[]): Promise<Map<string, MartingaleState>> {
    if (copierIds.length === 0) return new Map();
    const rows = await this.db.selectFrom('copier_martingale').selectAll().where('copier_id', 'in', copierIds).execute();
    const out = new Map<string, MartingaleState>(copierIds.map((id) => [id, initialMartingaleState]));
    for (const row of rows) out.set(row.copier_id, { consecutiveLosses: row.consecutive_losses });
    return out;
  }

  /** One unit of the slave's currency in the master's, from the slave's venue (see currencyRate.ts). */
  slaveToMasterRate(slave: VenueConnection, slaveCurrency: string, masterCurrency: string): Promise<number | null> {
    return slaveToMasterRate(slave, slaveCurrency, masterCurrency);
  }
}

/** How specific a scope is: a copier's own feature before its slave account's, before its project's. */
const SPECIFICITY: Readonly<Record<string, number>> = { copier: 0, account: 1, project: 2 };

/**
 * The copier features configured for each copier, in catalogue order: its own, its slave account's and
 * its project's. A single-instance feature set at several of these scopes runs once, at the most
 * specific one (copier, then account, then project); features that may be attached several times
 * all run. An account-scope feature that needs 'accountHistory' gets the copies of every copier of
 * the account (accountCopyHistory).
 */
export const activeFeatures = async (
  db: Kysely<ReadModels>,
  copiers: readonly { readonly id: string; readonly to_account_id: string; readonly project_id?: string }[],
  /** How the feature rows are read (CopyInputs keeps them). */
  rowsOf: typeof featuresFor = featuresFor,
): Promise<Map<string, ActiveFeature[]>> => {
  const out = new Map<string, ActiveFeature[]>();
  if (copiers.length === 0) return out;
  const order = new Map(copierFeatures.map((f, i) => [f.type, i]));
  const projectScoped = copierFeatures.filter((f) => f.scopes.includes('project')).map((f) => f.type);
  const rows = await rowsOf(
    db,
    copiers.map((c) => c.id),
    [...new Set(copiers.map((c) => c.to_account_id))],
    projectScoped.length ? [...new Set(copiers.flatMap((c) => (c.project_id ? [c.project_id] : [])))] : [],
    projectScoped,
  );
  if (rows.length === 0) return out;
  const resets = await resetsOf(
    db,
    rows.map((r) => r.id),
  );
  const needsAccountHistory = rows.filter(
    (r) => r.scope_kind === 'account' && order.has(r.type) && copierFeatures[order.get(r.type)!]!.rules.needs?.includes('accountHistory'),
  );
  const accountHistory = await accountCopyHistory(db, [...new Set(needsAccountHistory.map((r) => r.account_id!))]);
  // A feature whose account-scope instance runs on its own (accountScopeElsewhere: the keep-alive
  // executor) is no copier's at account scope; a copier's own instance stays the copier's.
  const elsewhere = (r: (typeof rows)[number]) =>
    r.scope_kind === 'account' && order.has(r.type) && copierFeatures[order.get(r.type)!]!.rules.accountScopeElsewhere === true;
  for (const copier of copiers) {
    const applying = rows
      .filter(
        (r) =>
          (r.scope_kind === 'copier' && r.copier_id === copier.id) ||
          (r.scope_kind === 'account' && r.account_id === copier.to_account_id) ||
          (r.scope_kind === 'project' && copier.project_id !== undefined && r.project_id === copier.project_id),
      )
      .filter((r) => order.has(r.type) && !elsewhere(r));
    const mostSpecific = new Map<string, number>();
    for (const r of applying) mostSpecific.set(r.type, Math.min(mostSpecific.get(r.type) ?? 9, SPECIFICITY[r.scope_kind] ?? 9));
    const mine = applying
      .filter((r) => copierFeatures[order.get(r.type)!]!.multiple || SPECIFICITY[r.scope_kind] === mostSpecific.get(r.type))
      .sort((a, b) => order.get(a.type)! - order.get(b.type)!)
      .map((r): ActiveFeature => {
        const feature = copierFeatures[order.get(r.type)!]!;
        const scope = r.scope_kind as ActiveFeature['scope'] & string;
        return {
          featureId: r.id,
          feature,
          settings: membersOf<object>(r.setting),
          resets: resets.get(r.id) ?? {},
          configuredAt: new Date(r.created).toISOString(),
          scope,
          ...(scope === 'account' && feature.rules.needs?.includes('accountHistory') ? { accountHistory: accountHistory.get(r.account_id!) ?? [] } : {}),
        };
      });
    if (mine.length > 0) out.set(copier.id, mine);
  }
  return out;
};
