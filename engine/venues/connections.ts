// The live venue session of every started account, and the recorder that turns what each venue
// reports into events of the account's positions stream.
//
// Ordering and durability, per account: changes are appended one at a time in the order the venue
// reported them, each only after the venue state that produced it is saved (a recorded change never
// describes a venue state a crash could lose). A failed append is retried until it succeeds. The
// appends of different accounts under way at once share one multi-stream append (store/factBatches.ts).
//
// Reconciliation (reconcile.ts): whenever a session starts (start, reconnect, service restart) what the
// venue did while nobody listened is recorded. Ids are deterministic (recorder.ts), so a change seen
// live and again there is stored once. Every append is a venue fact (store/recorder.ts).
import type { Kysely } from 'kysely';
import { type Account, accountDecider } from '../../domain/account/decider.js';
import { accountStream } from '../../domain/account/events.js';
import { AccountStatus } from '../../domain/account/enums.js';
import { systemContext } from '../../domain/shared/command.js';
import { type PositionsEvent, positionsStream } from '../../domain/positions/events.js';
import { positionsProjection } from '../../projections/positions/projector.js';
import type { ReadModels } from '../../projections/schema.js';
import { type AggregateState, aggregateStream, handleCommand } from '../../store/commandHandler.js';
import { type AppendResult, END, type EventStore, type Position, type ResolvedEvent } from '../../store/port.js';
import { venueApplication } from './applications.js';
import type { VenueHost } from './host.js';
import type { SymbolInfo, VenueChange, VenueConnection } from './port.js';
import { VenueError } from './port.js';
import { reconcileAccount } from './reconcile.js';
import { positionsEventId, recordChange } from './recorder.js';
import { FactBatches } from '../../store/factBatches.js';
import { Recovery } from '../../store/recovery.js';

export interface ConnectionsLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error: unknown): void;
}

export interface ConnectionsDeps {
  readonly store: EventStore;
  readonly db: Kysely<ReadModels>;
  readonly host: VenueHost;
  readonly decryptPassword: (ciphertext: string) => string;
  /** Seals a password a real venue renewed on its own (a cTrader token pair); unset: renewals are not stored. */
  readonly encryptPassword?: (plain: string) => string;
  readonly clock: () => Date;
  readonly log: ConnectionsLog;
  /** Resolves once the read models named (all when none are) include `position`. */
  readonly waitForReadModels: (position: Position, readModels?: readonly string[]) => Promise<unknown>;
}

interface Session {
  readonly accountId: string;
  readonly connection: VenueConnection;
  unsubscribe: () => void;
  /** The account's appends, one after another. */
  tail: Promise<unknown>;
  /** The pending order the venue reported filled last: its position's opening belongs to the fill. */
  lastFilled: string | null;
}

/** Accounts connected at once at service start. */
const START_CONCURRENCY = 8;

export type DisconnectReason = 'stopped' | 'deleted' | 'reconnect';

/** Hears a venue change as the positions event it will be recorded as, when the venue delivers it (before it is saved or stored). */
export type ChangeWatcher = (accountId: string, id: string, event: PositionsEvent) => void;

/** What the API and the copy engine use of the sessions: local ones, or another instance's (app/venueSessions.ts). */
export type AccountSessions = Pick<
  AccountConnections,
  'connection' | 'isConnected' | 'connectedAccountIds' | 'connect' | 'disconnect' | 'recorded' | 'catalogueSymbols' | 'watch' | 'statusMessage'
> & {
  /** Another instance's sessions: ask it again which accounts are connected (the answer is cached). */
  refreshConnected?(): Promise<void>;
};

/** An account started while its platform could not be reached yet (a MetaTrader terminal not attached): it connects once it is. */
interface Waiting {
  readonly connection: VenueConnection;
  readonly accountTypeId: number;
  readonly loginServer: string;
  readonly loginAccountNumber: string;
}

export class AccountConnections {
  private readonly sessions = new Map<string, Session>();
  private readonly waiting = new Map<string, Waiting>();
  /** Why the account's last connect was refused (a VenueError), while it has no session: its statusMessage until it connects, stops or is deleted. */
  private readonly refused = new Map<string, string>();
  private stopped = false;
  private stopReachable: (() => void) | null = null;

  /** Failures to record venue changes: logged once per run of failures, retried with backoff until recorded. */
  private readonly recording: Recovery;
  /** The changes of every account recorded at once go in one multi-stream append (a fan-out's fills). */
  private readonly facts: FactBatches;
  private readonly watchers = new Set<ChangeWatcher>();

  constructor(private readonly deps: ConnectionsDeps) {
    this.recording = new Recovery('recording venue changes', deps.log, { action: 'records the change again' });
    this.facts = new FactBatches(deps.store);
  }

  connection(accountId: string): VenueConnection | null {
    const session = this.sessions.get(accountId);
    return session && session.connection.isConnected() ? session.connection : null;
  }

  isConnected(accountId: string): boolean {
    return this.connection(accountId) !== null;
  }

  /** The accounts with a live session here. */
  /** The symbols of the built-in venue's catalogue (what an account without a session is taken to trade). */
  async catalogueSymbols(): Promise<readonly SymbolInfo[]> {
    return this.deps.host.simulated.symbols();
  }

  /**
   * What the account's link to its real venue is doing, with its last error (VenueConnection.statusMessage),
   * also while it waits for its platform; null: no session here, or a venue without a link (the simulated one).
   */
  statusMessage(accountId: string): string | null {
    return (this.sessions.get(accountId)?.connection ?? this.waiting.get(accountId)?.connection)?.statusMessage ?? this.refused.get(accountId) ?? null;
  }

  connectedAccountIds(): string[] {
    return [...this.sessions].filter(([, session]) => session.connection.isConnected()).map(([accountId]) => accountId);
  }

  /**
   * `watcher` hears every live venue change as it is seen, before the venue state behind it is saved and
   * before it is recorded (the copy engine places slave orders from it, engine/copy/early.ts). Answers
   * the unsubscribe.
   */
  watch(watcher: ChangeWatcher): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Resolves once every change the account's venue reported so far is recorded. */
  async recorded(accountId: string): Promise<void> {
    await this.sessions.get(accountId)?.tail;
  }

  /**
   * Opens the account's venue session, reconciles, and records VenueConnected. A refusal (wrong
   * password) is recorded as VenueConnectionFailed and thrown as the VenueError. A platform not reachable
   * yet at a venue that says when it becomes reachable (RealVenue.onReachable: a MetaTrader terminal not
   * attached) is no refusal: it is recorded and logged the same way, the account waits with the venue's
   * state as its statusMessage, and connects when its login becomes reachable. `known`: the account's
   * stream as the caller has just read it (the start use case reads it once for this and its command).
   */
  async connect(accountId: string, known?: AggregateState<Account>): Promise<void> {
    if (this.sessions.has(accountId)) return;
    const { state: account } = known ?? (await aggregateStream(this.deps.store, accountStream(accountId), accountDecider.evolve, accountDecider.initialState));
    if (!account.exists || !account.settings) throw new Error(`account ${accountId} does not exist`);
    const { settings } = account;
    const login = { accountTypeId: settings.accountTypeId, loginServer: settings.loginServer, loginAccountNumber: settings.loginAccountNumber };
    const password = this.deps.decryptPassword(settings.passwordCiphertext);
    const application = this.deps.host.realVenueFor(settings.accountTypeId)
      ? await venueApplication(this.deps.db, this.deps.decryptPassword, account.projectId, settings)
      : null;
    const connection = await this.deps.host.connectionFor({
      ...login,
      password,
      onRenewed: this.renewedCredentials(accountId, account.projectId, password),
      ...(application ? { application } : {}),
    });
    const venue = this.deps.host.venueFor(settings.accountTypeId).name;
    try {
      await connection.connect();
    } catch (error) {
      const waits = error instanceof VenueError && error.code === '[NOT_CONNECTED]' && !!this.deps.host.realVenueFor(settings.accountTypeId)?.onReachable;
      if (error instanceof VenueError) {
        if (!waits) this.refused.set(accountId, `refused by its venue: ${error.code} ${error.message}`);
        await this.append(accountId, `connection-failed/${this.deps.clock().toISOString()}`, {
          type: 'VenueConnectionFailed',
          data: { accountId, at: this.deps.clock().toISOString(), venue, login: connection.login, code: error.code, message: error.message },
        });
      }
      if (waits) {
        this.waiting.set(accountId, { connection, ...login });
        this.deps.log.info(`account ${accountId}: ${connection.statusMessage ?? (error as Error).message}; it connects once its venue login is reachable`);
        return;
      }
      throw error;
    }
    this.waiting.delete(accountId);
    this.refused.delete(accountId);
    if (this.sessions.has(accountId)) {
      await connection.disconnect();
      return;
    }
    const session: Session = { accountId, connection, unsubscribe: () => undefined, tail: Promise.resolve(), lastFilled: null };
    session.unsubscribe = connection.subscribe((change) => this.onChange(session, change));
    this.sessions.set(accountId, session);
    const at = this.deps.clock().toISOString();
    await this.enqueue(session, async () => {
      // The account currency is recorded with each connection (the accounts read model keeps it), so
      // earnings and payouts know it while the account is disconnected; a venue that does not answer
      // leaves it out, and the last one recorded stands.
      const currency = await connection.accountInformation().then(
        (info) => info.currency,
        () => undefined,
      );
      const connected = `connected/${at}`;
      const data = { accountId, at, venue, login: connection.login, ...(currency ? { currency } : {}) };
      const appended = await this.append(accountId, connected, { type: 'VenueConnected', data });
      // The stream's first event is this VenueConnected: a first start, and nothing to read back.
      await this.reconcile(session, positionsEventId(accountId, connected), appended.nextExpectedRevision === 0n);
    });
  }

  /**
   * Stores the password a venue renewed (VenueCredentials.onRenewed) as the account's, sealed: an
   * AccountUpdated of the venue's own, unless the account's password was changed meanwhile by someone
   * else (then theirs stays).
   */
  private renewedCredentials(accountId: string, projectId: string, connectedWith: string): ((password: string) => Promise<void>) | undefined {
    const { encryptPassword } = this.deps;
    if (!encryptPassword) return undefined;
    let current = connectedWith;
    return async (password) => {
      const stored = await aggregateStream(this.deps.store, accountStream(accountId), accountDecider.evolve, accountDecider.initialState);
      const ciphertext = stored.state.settings?.passwordCiphertext;
      if (!ciphertext || this.deps.decryptPassword(ciphertext) !== current) {
        this.deps.log.warn(`account ${accountId}: its venue renewed its credentials, but its password was changed meanwhile; keeping the new password`);
        return;
      }
      await handleCommand(this.deps.store, accountStream(accountId), accountDecider, {
        type: 'UpdateAccount',
        data: { accountId, projectId, changes: { passwordCiphertext: encryptPassword(password) } },
        metadata: { now: this.deps.clock().toISOString(), context: { ...systemContext(`venue:${accountId}`), projectId } },
      });
      current = password;
      this.deps.log.info(`account ${accountId}: stored the credentials its venue renewed`);
    };
  }

  async disconnect(accountId: string, reason: DisconnectReason): Promise<void> {
    this.waiting.delete(accountId);
    this.refused.delete(accountId);
    const session = this.sessions.get(accountId);
    if (!session) return;
    this.sessions.delete(accountId);
    session.unsubscribe();
    await session.tail.catch(() => undefined);
    await session.connection.disconnect();
    const at = this.deps.clock().toISOString();
    await this.append(accountId, `disconnected/${at}`, { type: 'VenueDisconnected', data: { accountId, at, reason } });
  }

  /**
   * At service start: a session for every Active account, START_CONCURRENCY at a time (a real venue may
   * wait for its platform: the book of a MetaTrader terminal that just attached, a cTrader login; several
   * of those must not wait one after another). A refusal is recorded and logged. From then on,
   * an Active account without a session connects when its real venue says its login became reachable
   * (a terminal attached later: no restart needed).
   */
  async connectActiveAccounts(): Promise<void> {
    this.stopReachable ??= this.deps.host.onReachable((types, loginServer, loginAccountNumber) => {
      void this.connectReached(types, loginServer, loginAccountNumber);
    });
    const active = await this.deps.db.selectFrom('accounts').select('id').where('account_status_id', '=', AccountStatus.Active).execute();
    const queue = active.map(({ id }) => id);
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        try {
          await this.connect(id);
        } catch (error) {
          this.deps.log.warn(`account ${id} could not connect at start: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, queue.length) }, worker));
  }

  /** A real venue's login became reachable: its Active accounts without a session connect. */
  private async connectReached(accountTypeIds: readonly number[], loginServer: string, loginAccountNumber: string): Promise<void> {
    if (this.stopped || accountTypeIds.length === 0) return;
    const accounts = await this.deps.db
      .selectFrom('accounts')
      .select('id')
      .where('account_status_id', '=', AccountStatus.Active)
      .where('account_type_id', 'in', [...accountTypeIds])
      .where('login_server', '=', loginServer)
      .where('login_account_number', '=', loginAccountNumber)
      .execute();
    // Accounts started while waiting, whose Active status the read model may not show yet, connect too.
    const started = [...this.waiting]
      .filter(([, w]) => accountTypeIds.includes(w.accountTypeId) && w.loginServer === loginServer && w.loginAccountNumber === loginAccountNumber)
      .map(([id]) => ({ id }));
    for (const { id } of [...new Map([...accounts, ...started].map((a) => [a.id, a])).values()]) {
      if (this.sessions.has(id) || this.stopped) continue;
      this.deps.log.info(`account ${id}: its venue login ${loginServer}/${loginAccountNumber} became reachable; connecting`);
      await this.connect(id).catch((error: unknown) =>
        this.deps.log.warn(`account ${id} could not connect once its venue login became reachable: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
  }

  /** Ends every session without recording a disconnection: the accounts stay Active for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopReachable?.();
    this.waiting.clear();
    for (const session of this.sessions.values()) {
      session.unsubscribe();
      await session.tail.catch(() => undefined);
      await session.connection.disconnect();
    }
    this.sessions.clear();
  }

  private onChange(session: Session, change: VenueChange): void {
    const { id, event } = recordChange(session.accountId, change);
    // recordChange's event is new: the fill's flag is set on it, not spread into another literal
    // (domain/copy/decisionContext.ts, orderOf).
    if (event.type === 'PositionOpened' && session.lastFilled === event.data.position.positionId) Object.assign(event.data, { fromPendingOrder: true });
    session.lastFilled = change.type === 'orderFilled' ? change.order.id : null;
    // The venue state behind this change is saved first. The venue delivers a change once its state
    // is consistent, so the save asked for now holds it: the save starts after the request that caused
    // the change has run (host.ts persist), so the request's own save serves, and so does it for every
    // change a fan-out causes meanwhile; nothing is built for it here.
    const saved = this.deps.host.persist();
    void this.enqueue(session, async () => {
      await saved;
      await this.appendEvent(session.accountId, id, event, { venueSequence: change.sequence });
    }).catch((error: unknown) => this.deps.log.error(`recording a change of account ${session.accountId} failed`, error));
    for (const watcher of this.watchers) {
      try {
        watcher(session.accountId, id, event);
      } catch (error) {
        this.deps.log.error(`a watcher of account ${session.accountId}'s venue changes failed`, error);
      }
    }
  }

  /** Runs `work` after everything queued for the account before it. */
  private enqueue(session: Session, work: () => Promise<void>): Promise<void> {
    const run = session.tail.then(work);
    session.tail = run.catch(() => undefined);
    return run;
  }

  private append(accountId: string, key: string, event: PositionsEvent): Promise<AppendResult> {
    return this.appendEvent(accountId, positionsEventId(accountId, key), event, {});
  }

  private async appendEvent(accountId: string, id: string, event: PositionsEvent, extra: Record<string, unknown>): Promise<AppendResult> {
    // Added to fresh literals, not spread into new ones: this runs for every fill of a fan-out, and in
    // Node 20's V8 a spread gives each result a map of its own (domain/copy/decisionContext.ts, orderOf).
    const metadata = Object.assign(systemContext(`venue:${accountId}`), { receivedAt: this.deps.clock().toISOString() }, extra);
    const fact = { id, type: event.type, data: event.data };
    for (;;) {
      try {
        const result = await this.facts.record(positionsStream(accountId), [fact], metadata);
        this.recording.succeeded();
        return result;
      } catch (error) {
        if (this.stopped) throw error;
        await this.recording.failed(error, () => this.stopped);
      }
    }
  }

  /**
   * Records what the venue did while this account had no session (reconcile.ts), against what the
   * positions read model knows of the account: everything its positions stream said up to now (the
   * read model is fed by that stream alone). A stream that holds only this session's VenueConnected
   * (a first start) said nothing: nothing is known and nothing waited for. `firstEvent`: the append of
   * this VenueConnected answered that it is the stream's first event, so the stream is not read.
   */
  private async reconcile(session: Session, connectedId: string, firstEvent: boolean): Promise<void> {
    const { accountId, connection } = session;
    const latest: ResolvedEvent[] = [];
    if (!firstEvent) {
      for await (const resolved of this.deps.store.readStream(positionsStream(accountId), { fromRevision: END, direction: 'backwards', maxCount: 1 }))
        latest.push(resolved);
    }
    const last = latest[0]?.event;
    const first = firstEvent || !last || (last.revision === 0n && last.id === connectedId);
    if (last && !first) await this.deps.waitForReadModels(last.position, [positionsProjection.name]);
    const known = new Map(
      first ? [] : (await this.deps.db.selectFrom('positions').selectAll().where('account_id', '=', accountId).execute()).map((r) => [r.id, r]),
    );
    const activity = first ? undefined : await this.deps.db.selectFrom('venue_activity').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    const now = this.deps.clock().toISOString();
    const since = activity ? new Date(new Date(activity.last_change_at).getTime() - 60_000).toISOString() : new Date(0).toISOString();
    // The read model holds the spec's order types ('Buy', 'Sell'); the port's side is 'buy' | 'sell'.
    const open = [...known.values()].filter((row) => row.kind === 'position' && (row.order_type === 'Buy' || row.order_type === 'Sell'));
    connection.follow?.(
      [...new Set([...known.values()].map((row) => row.symbol))],
      open.map((row) => ({
        id: row.id,
        symbol: row.symbol,
        side: row.order_type === 'Buy' ? ('buy' as const) : ('sell' as const),
        volume: row.volume,
        openPrice: row.open_price,
        openTime: new Date(row.open_time).toISOString(),
      })),
      [...known.values()]
        .filter((row) => row.kind !== 'position')
        .map((row) => ({ id: row.id, symbol: row.symbol, openTime: new Date(row.open_time).toISOString() })),
    );
    const venueBook = await connection.positions();
    const history = await connection.history(new Date(0).toISOString(), now);
    await reconcileAccount({
      accountId,
      now,
      since,
      known,
      venueBook,
      history,
      record: async (key, event) => void (await this.append(accountId, key, event)),
      warn: (message) => this.deps.log.warn(message),
    });
  }
}
