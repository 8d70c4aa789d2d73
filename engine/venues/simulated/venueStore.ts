// The simulated venue's own storage in PostgreSQL. The venue stands in for a broker's servers, so its
// state lives apart from the event store and the read models, in tables of its own (prefix sim_):
// the venue row (clock marks, ticket counter, price feed state), one row per account (positions,
// orders, balance), and the account history and client requests as append-only rows, so a save
// writes what changed and never rewrites a long history. Only the last requests of an account are
// kept (book.ts REQUESTS_KEPT): a save deletes the rows the venue has forgotten. The history is kept
// whole here, but the venue keeps only each account's last entries in memory (book.ts HISTORY_KEPT):
// load reads those, olderHistory the rest when a request reaches back to them.
//
// The ticker saves every second, and an idle venue's journal holds nothing but its clock mark (the
// processed step): no account, ticket, pin or anchor changed. Such a save is left out for up to
// CLOCK_ONLY_SAVE_STEPS steps: what the venue did in those steps is nothing, and a venue restored from
// the older mark walks the same steps again over the same prices and books (the price paths follow
// from the seed and the pins), so it does nothing again. Anything else in a journal is written at once.
import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import { StaticMigrations } from '../../../store/postgres/schema.js';
import type { HistoryEntry } from '../port.js';
import type { AccountRecord, RecordedRequest, SimulatedVenueJournal, SimulatedVenueSnapshot } from './state.js';
import type { SimulatedSymbol } from './symbols.js';

const migrations: Record<string, Migration> = {
  '0001_simulated_venue': {
    async up(db) {
      await sql`CREATE TABLE sim_venues (
        name text PRIMARY KEY,
        symbols jsonb NOT NULL,
        processed_step bigint NOT NULL,
        next_ticket bigint NOT NULL,
        prices jsonb NOT NULL,
        updated timestamptz NOT NULL DEFAULT now())`.execute(db);
      // opened: the order accounts were opened in, which is the order the dealer walks them every
      // second (and hands out tickets in): a restored venue must keep it.
      await sql`CREATE TABLE sim_accounts (
        venue text NOT NULL REFERENCES sim_venues (name),
        login text NOT NULL,
        opened bigserial NOT NULL,
        account jsonb NOT NULL,
        PRIMARY KEY (venue, login))`.execute(db);
      await sql`CREATE TABLE sim_history (
        venue text NOT NULL,
        login text NOT NULL,
        seq int NOT NULL,
        entry jsonb NOT NULL,
        PRIMARY KEY (venue, login, seq))`.execute(db);
      await sql`CREATE TABLE sim_requests (
        venue text NOT NULL,
        login text NOT NULL,
        id text NOT NULL,
        seq int NOT NULL,
        request jsonb NOT NULL,
        PRIMARY KEY (venue, login, id))`.execute(db);
    },
  },
};

/** Rows per INSERT: far below PostgreSQL's 65,535 parameters. */
const CHUNK = 500;

const chunks = <T>(items: readonly T[]): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the venue's tables are not read models
type AnyDb = Kysely<any>;

/** A journal with only a newer clock mark is written when its mark is this many steps (seconds) past the written one. */
export const CLOCK_ONLY_SAVE_STEPS = 60;

/** The venue row as this store last wrote it. */
interface WrittenVenue {
  readonly processedStep: number;
  readonly nextTicket: number;
  readonly symbols: string;
  readonly prices: string;
}

export class SimulatedVenueStore {
  /** Per venue name, the row this store last committed (none after a start: the first save writes). */
  private readonly written = new Map<string, WrittenVenue>();

  constructor(private readonly db: AnyDb) {}

  static async migrate(db: AnyDb): Promise<void> {
    const migrator = new Migrator({
      db,
      provider: new StaticMigrations(migrations),
      migrationTableName: 'sim_migrations',
      migrationLockTableName: 'sim_migrations_lock',
    });
    const { error } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
  }

  /**
   * The venue as last saved, or null when it was never saved. With `historyKept`, only the last that
   * many history entries of each account (the venue reads older ones with `olderHistory`).
   */
  async load(name: string, historyKept?: number): Promise<SimulatedVenueSnapshot | null> {
    const venue = await this.db.selectFrom('sim_venues').selectAll().where('name', '=', name).executeTakeFirst();
    if (!venue) return null;
    const accounts = await this.db.selectFrom('sim_accounts').select(['login', 'account']).where('venue', '=', name).orderBy('opened').execute();
    const history: { login: string; seq: number; entry: HistoryEntry }[] =
      historyKept === undefined
        ? await this.db.selectFrom('sim_history').select(['login', 'seq', 'entry']).where('venue', '=', name).orderBy('login').orderBy('seq').execute()
        : // Each account's last entries, read backwards along the primary key.
          (
            await sql<{ login: string; seq: number; entry: HistoryEntry }>`SELECT a.login, h.seq, h.entry FROM sim_accounts a
              CROSS JOIN LATERAL (SELECT seq, entry FROM sim_history h WHERE h.venue = a.venue AND h.login = a.login ORDER BY seq DESC LIMIT ${historyKept}) h
              WHERE a.venue = ${name} ORDER BY a.login, h.seq`.execute(this.db)
          ).rows;
    const requests = await this.db
      .selectFrom('sim_requests')
      .select(['login', 'seq', 'request'])
      .where('venue', '=', name)
      .orderBy('login')
      .orderBy('seq')
      .execute();
    const historyOf = new Map<string, AccountRecord['history'][number][]>();
    /** The seq of each account's oldest entry loaded: the ones before stay in the store. */
    const historyFrom = new Map<string, number>();
    for (const row of history) {
      const list = historyOf.get(row.login) ?? [];
      if (list.length === 0) historyFrom.set(row.login, row.seq);
      list.push(row.entry);
      historyOf.set(row.login, list);
    }
    const requestsOf = new Map<string, RecordedRequest[]>();
    /** The seq of each account's oldest request kept: the ones before were forgotten (book.ts REQUESTS_KEPT). */
    const requestsFrom = new Map<string, number>();
    for (const row of requests) {
      const list = requestsOf.get(row.login) ?? [];
      if (list.length === 0) requestsFrom.set(row.login, row.seq);
      list.push(row.request);
      requestsOf.set(row.login, list);
    }
    return {
      version: 1,
      name,
      processedStep: Number(venue.processed_step),
      nextTicket: Number(venue.next_ticket),
      symbols: venue.symbols as SimulatedSymbol[],
      prices: venue.prices,
      accounts: accounts.map((row) => {
        const record: AccountRecord = {
          ...(row.account as Omit<AccountRecord, 'history' | 'requests'>),
          history: historyOf.get(row.login) ?? [],
          requests: requestsOf.get(row.login) ?? [],
        };
        const keptFrom = historyFrom.get(row.login) ?? 0;
        if (keptFrom !== 0) Object.assign(record, { historyFrom: keptFrom });
        const from = requestsFrom.get(row.login) ?? 0;
        return from === 0 ? record : Object.assign(record, { requestsFrom: from });
      }),
    };
  }

  /** The history entries of a login before seq `before`, in order: the ones its venue no longer keeps in memory. */
  async olderHistory(name: string, login: string, before: number): Promise<HistoryEntry[]> {
    const rows = await this.db
      .selectFrom('sim_history')
      .select('entry')
      .where('venue', '=', name)
      .where('login', '=', login)
      .where('seq', '<', before)
      .orderBy('seq')
      .execute();
    return rows.map((row) => row.entry as HistoryEntry);
  }

  /**
   * Writes one journal in one transaction: a crash keeps the venue as it was before or after it. A
   * journal whose only change is a clock mark less than CLOCK_ONLY_SAVE_STEPS past the written one is
   * not written (see above); answers whether it was.
   */
  async save(name: string, symbols: readonly SimulatedSymbol[], journal: SimulatedVenueJournal): Promise<boolean> {
    const venue: WrittenVenue = {
      processedStep: journal.processedStep,
      nextTicket: journal.nextTicket,
      symbols: JSON.stringify(symbols),
      prices: JSON.stringify(journal.prices),
    };
    if (journal.accounts.length === 0 && this.onlyClockMoved(name, venue)) return false;
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('sim_venues')
        .values({ name, symbols: venue.symbols, processed_step: venue.processedStep, next_ticket: venue.nextTicket, prices: venue.prices })
        .onConflict((oc) =>
          oc.column('name').doUpdateSet({ processed_step: venue.processedStep, next_ticket: venue.nextTicket, prices: venue.prices, updated: sql`now()` }),
        )
        .execute();
      for (const part of chunks(journal.accounts)) {
        await trx
          .insertInto('sim_accounts')
          .values(part.map((a) => ({ venue: name, login: a.account.login, account: JSON.stringify(a.account) })))
          .onConflict((oc) => oc.columns(['venue', 'login']).doUpdateSet({ account: sql`excluded.account` }))
          .execute();
      }
      const history = journal.accounts.flatMap((a) =>
        a.newHistory.map((entry, i) => ({ venue: name, login: a.account.login, seq: a.historyFrom + i, entry: JSON.stringify(entry) })),
      );
      for (const part of chunks(history)) {
        await trx
          .insertInto('sim_history')
          .values(part)
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
      const requests = journal.accounts.flatMap((a) =>
        a.newRequests.map((request, i) => ({ venue: name, login: a.account.login, id: request.id, seq: a.requestsFrom + i, request: JSON.stringify(request) })),
      );
      for (const part of chunks(requests)) {
        await trx
          .insertInto('sim_requests')
          .values(part)
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
      const forgotten = journal.accounts.filter((a) => a.forgetRequestsBefore !== null);
      if (forgotten.length > 0) {
        const logins = forgotten.map((a) => a.account.login);
        const below = forgotten.map((a) => a.forgetRequestsBefore);
        await sql`DELETE FROM sim_requests r USING unnest(${logins}::text[], ${below}::int[]) AS f(login, below)
          WHERE r.venue = ${name} AND r.login = f.login AND r.seq < f.below`.execute(trx);
      }
    });
    this.written.set(name, venue);
    return true;
  }

  /** Whether `venue` differs from the written row only by a clock mark less than CLOCK_ONLY_SAVE_STEPS ahead. */
  private onlyClockMoved(name: string, venue: WrittenVenue): boolean {
    const written = this.written.get(name);
    return (
      written !== undefined &&
      venue.processedStep >= written.processedStep &&
      venue.processedStep - written.processedStep < CLOCK_ONLY_SAVE_STEPS &&
      venue.nextTicket === written.nextTicket &&
      venue.symbols === written.symbols &&
      venue.prices === written.prices
    );
  }
}
