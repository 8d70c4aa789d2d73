// The live venue session of every started account, and the recorder that turns what each venue
// reports into events of the account's positions stream.
//
// Ordering and durability, per account: changes are appended one at a time in the order the venue
// reported them, each only after the venue state that produced it is saved (a recorded change never
// describes a venue state a crash could lose). A failed append is retried until it succeeds.
//
// Reconciliation: whenever a session starts (start, reconnect, service restart) the venue's book is
// compared with the positions read model, and what was missed while nobody listened is recorded:
// positions and pending orders that appeared, changed, filled, were cancelled, partially closed or
// closed. Ids are deterministic (recorder.ts), so a change seen live and again here is stored once.
import type { Kysely, Selectable } from 'kysely';
import { accountDecider } from '../../domain/account/decider.js';
import { accountStream } from '../../domain/account/events.js';
import { AccountStatus } from '../../domain/account/enums.js';
import { systemContext } from '../../domain/shared/command.js';
import { type PendingOrderData, type PositionsEvent, positionsStream } from '../../domain/positions/events.js';
import type { PositionsTable, ReadModels } from '../../projections/schema.js';
import { aggregateStream } from '../../store/commandHandler.js';
import type { EventStore, Position } from '../../store/port.js';
import type { VenueHost } from './host.js';
import type { ClosedTrade, HistoryEntry, VenueChange, VenueConnection } from './port.js';
import { VenueError } from './port.js';
import { orderData, positionData, positionsEventId, recordChange, tradeData } from './recorder.js';
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
  readonly clock: () => Date;
  readonly log: ConnectionsLog;
  /** Resolves once the read models include `position`. */
  readonly waitForReadModels: (position: Position) => Promise<unknown>;
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

export type DisconnectReason = 'stopped' | 'deleted' | 'reconnect';

const isTrade = (entry: HistoryEntry): entry is ClosedTrade => entry.kind === 'trade';

/** A pending order as the positions read model last saw it. */
const orderOfRow = (row: Selectable<PositionsTable>): PendingOrderData => ({
  orderId: row.id,
  symbol: row.symbol,
  orderType: row.order_type as PendingOrderData['orderType'],
  volume: row.volume,
  openPrice: row.open_price,
  openTime: new Date(row.open_time).toISOString(),
  stopLoss: row.stop_loss,
  takeProfit: row.take_profit,
  expiry: row.expiry ? new Date(row.expiry).toISOString() : null,
  comment: row.comment,
  magicNumber: row.magic_number === null ? null : Number(row.magic_number),
  clientOrderId: row.client_order_id,
});

export class AccountConnections {
  private readonly sessions = new Map<string, Session>();
  private stopped = false;

  /** Failures to record venue changes: logged once per run of failures, retried with backoff until recorded. */
  private readonly recording: Recovery;

  constructor(private readonly deps: ConnectionsDeps) {
    this.recording = new Recovery('recording venue changes', deps.log, { action: 'records the change again' });
  }

  connection(accountId: string): VenueConnection | null {
    const session = this.sessions.get(accountId);
    return session && session.connection.isConnected() ? session.connection : null;
  }

  isConnected(accountId: string): boolean {
    return this.connection(accountId) !== null;
  }

  /** Resolves once every change the account's venue reported so far is recorded. */
  async recorded(accountId: string): Promise<void> {
    await this.sessions.get(accountId)?.tail;
  }

  /**
   * Opens the account's venue session, reconciles, and records VenueConnected. A refusal (wrong
   * password) is recorded as VenueConnectionFailed and thrown as the VenueError.
   */
  async connect(accountId: string): Promise<void> {
    if (this.sessions.has(accountId)) return;
    const { state: account } = await aggregateStream(this.deps.store, accountStream(accountId), accountDecider.evolve, accountDecider.initialState);
    if (!account.exists || !account.settings) throw new Error(`account ${accountId} does not exist`);
    const { settings } = account;
    const login = { accountTypeId: settings.accountTypeId, loginServer: settings.loginServer, loginAccountNumber: settings.loginAccountNumber };
    const connection = await this.deps.host.connectionFor({ ...login, password: this.deps.decryptPassword(settings.passwordCiphertext) });
    const venue = this.deps.host.venueFor(settings.accountTypeId).name;
    try {
      await connection.connect();
    } catch (error) {
      if (error instanceof VenueError) {
        await this.append(accountId, `connection-failed/${this.deps.clock().toISOString()}`, {
          type: 'VenueConnectionFailed',
          data: { accountId, at: this.deps.clock().toISOString(), venue, login: connection.login, code: error.code, message: error.message },
        });
      }
      throw error;
    }
    if (this.sessions.has(accountId)) {
      await connection.disconnect();
      return;
    }
    const session: Session = { accountId, connection, unsubscribe: () => undefined, tail: Promise.resolve(), lastFilled: null };
    session.unsubscribe = connection.subscribe((change) => this.onChange(session, change));
    this.sessions.set(accountId, session);
    const at = this.deps.clock().toISOString();
    await this.enqueue(session, async () => {
      await this.append(accountId, `connected/${at}`, { type: 'VenueConnected', data: { accountId, at, venue, login: connection.login } });
      await this.reconcile(session);
    });
  }

  async disconnect(accountId: string, reason: DisconnectReason): Promise<void> {
    const session = this.sessions.get(accountId);
    if (!session) return;
    this.sessions.delete(accountId);
    session.unsubscribe();
    await session.tail.catch(() => undefined);
    await session.connection.disconnect();
    const at = this.deps.clock().toISOString();
    await this.append(accountId, `disconnected/${at}`, { type: 'VenueDisconnected', data: { accountId, at, reason } });
  }

  /** At service start: a session for every Active account. A refusal is recorded and logged. */
  async connectActiveAccounts(): Promise<void> {
    const active = await this.deps.db.selectFrom('accounts').select('id').where('account_status_id', '=', AccountStatus.Active).execute();
    for (const { id } of active) {
      try {
        await this.connect(id);
      } catch (error) {
        this.deps.log.warn(`account ${id} could not connect at start: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  /** Ends every session without recording a disconnection: the accounts stay Active for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const session of this.sessions.values()) {
      session.unsubscribe();
      await session.tail.catch(() => undefined);
      await session.connection.disconnect();
    }
    this.sessions.clear();
  }

  private onChange(session: Session, change: VenueChange): void {
    const recorded = recordChange(session.accountId, change);
    const { id } = recorded;
    let { event } = recorded;
    if (event.type === 'PositionOpened' && session.lastFilled === event.data.position.positionId) {
      event = { ...event, data: { ...event.data, fromPendingOrder: true } };
    }
    session.lastFilled = change.type === 'orderFilled' ? change.order.id : null;
    void this.enqueue(session, async () => {
      // The venue state behind this change is saved first.
      await this.deps.host.persist();
      await this.appendEvent(session.accountId, id, event, { venueSequence: change.sequence });
    }).catch((error: unknown) => this.deps.log.error(`recording a change of account ${session.accountId} failed`, error));
  }

  /** Runs `work` after everything queued for the account before it. */
  private enqueue(session: Session, work: () => Promise<void>): Promise<void> {
    const run = session.tail.then(work);
    session.tail = run.catch(() => undefined);
    return run;
  }

  private append(accountId: string, key: string, event: PositionsEvent): Promise<void> {
    return this.appendEvent(accountId, positionsEventId(accountId, key), event, {});
  }

  private async appendEvent(accountId: string, id: string, event: PositionsEvent, extra: Record<string, unknown>): Promise<void> {
    const metadata = { ...systemContext(`venue:${accountId}`), receivedAt: this.deps.clock().toISOString(), ...extra };
    for (;;) {
      try {
        await this.deps.store.appendToStream(positionsStream(accountId), { id, type: event.type, data: event.data, metadata }, { expectedRevision: 'any' });
        this.recording.succeeded();
        return;
      } catch (error) {
        if (this.stopped) throw error;
        await this.recording.failed(error, () => this.stopped);
      }
    }
  }

  /** Records what the venue did while this account had no session (see the top of the file). */
  private async reconcile(session: Session): Promise<void> {
    const { accountId, connection } = session;
    const head = await this.deps.store.headPosition();
    if (head) await this.deps.waitForReadModels(head);
    const known = new Map((await this.deps.db.selectFrom('positions').selectAll().where('account_id', '=', accountId).execute()).map((r) => [r.id, r]));
    const activity = await this.deps.db.selectFrom('venue_activity').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    const now = this.deps.clock().toISOString();
    const since = activity ? new Date(new Date(activity.last_change_at).getTime() - 60_000).toISOString() : new Date(0).toISOString();
    const venueBook = await connection.positions();
    const history = await connection.history(new Date(0).toISOString(), now);
    const tradesOf = (positionId: string) => history.filter(isTrade).filter((t) => t.positionId === positionId);
    const record = (key: string, event: PositionsEvent) => this.append(accountId, key, event);
    const partials = async (positionId: string, remaining: number | null, excludeLast: boolean) => {
      const trades = tradesOf(positionId);
      const partial = excludeLast ? trades.slice(0, -1) : trades;
      for (const trade of partial) {
        const position = venueBook.find((p) => p.kind === 'position' && p.id === positionId);
        if (!position || position.kind !== 'position') continue;
        await record(`partial/${trade.id}`, {
          type: 'PositionPartiallyClosed',
          data: { accountId, at: trade.closeTime, position: { ...positionData(position), volume: remaining ?? position.volume }, trade: tradeData(trade) },
        });
      }
    };

    for (const item of venueBook) {
      const row = known.get(item.id);
      if (item.kind === 'position') {
        const position = positionData(item);
        if (row?.kind === 'order') {
          await record(`filled/${item.id}`, {
            type: 'PendingOrderFilled',
            data: {
              accountId,
              at: item.openTime,
              price: item.openPrice,
              order: orderOfRow(row),
            },
          });
        }
        if (!row || row.kind === 'order') {
          const fromPendingOrder = row?.kind === 'order';
          await record(`opened/${item.id}`, { type: 'PositionOpened', data: { accountId, at: item.openTime, position, fromPendingOrder } });
          continue;
        }
        if (row.volume !== item.volume) {
          if (item.volume < row.volume) await partials(item.id, item.volume, false);
          else
            await record(`reconciled/${item.id}/${item.volume}/${now}`, {
              type: 'PositionIncreased',
              data: { accountId, at: now, position, volume: item.volume - row.volume, price: item.openPrice },
            });
        }
        if (row.stop_loss !== item.stopLoss || row.take_profit !== item.takeProfit) {
          await record(`reconciled/${item.id}/${item.stopLoss}/${item.takeProfit}/${now}`, {
            type: 'PositionModified',
            data: { accountId, at: now, position },
          });
        }
      } else {
        const order = orderData(item);
        if (!row) {
          await record(`placed/${item.id}`, { type: 'PendingOrderPlaced', data: { accountId, at: item.openTime, order } });
        } else if (row.open_price !== item.openPrice || row.stop_loss !== item.stopLoss || row.take_profit !== item.takeProfit || row.volume !== item.volume) {
          await record(`reconciled-order/${item.id}/${now}`, { type: 'PendingOrderModified', data: { accountId, at: now, order } });
        }
      }
    }

    const open = new Set(venueBook.map((item) => item.id));
    for (const row of known.values()) {
      if (open.has(row.id)) continue;
      if (row.kind === 'position') {
        const trades = tradesOf(row.id);
        const last = trades[trades.length - 1];
        if (!last) {
          this.deps.log.warn(`account ${accountId}: position ${row.id} is gone at the venue without a closing trade`);
          continue;
        }
        await partials(row.id, null, true);
        await record(`closed/${row.id}`, { type: 'PositionClosed', data: { accountId, at: last.closeTime, trade: tradeData(last) } });
      } else {
        const expired = row.expiry !== null && new Date(row.expiry).getTime() <= Date.parse(now);
        const order = orderOfRow(row);
        const filled = tradesOf(row.id).length > 0;
        if (filled) {
          // Filled and closed while away: the fill, then the close.
          const trades = tradesOf(row.id);
          const last = trades[trades.length - 1]!;
          await record(`filled/${row.id}`, { type: 'PendingOrderFilled', data: { accountId, at: last.openTime, order, price: last.openPrice } });
          await record(`opened/${row.id}`, {
            type: 'PositionOpened',
            data: {
              accountId,
              at: last.openTime,
              fromPendingOrder: true,
              position: {
                positionId: row.id,
                symbol: row.symbol,
                orderType: last.orderType === 'buy' ? 'Buy' : 'Sell',
                volume: order.volume,
                openPrice: last.openPrice,
                openTime: last.openTime,
                stopLoss: order.stopLoss,
                takeProfit: order.takeProfit,
                swap: 0,
                commission: 0,
                comment: order.comment,
                magicNumber: order.magicNumber,
                clientOrderId: order.clientOrderId,
              },
            },
          });
          await record(`closed/${row.id}`, { type: 'PositionClosed', data: { accountId, at: last.closeTime, trade: tradeData(last) } });
        } else {
          await record(`cancelled/${row.id}`, { type: 'PendingOrderCancelled', data: { accountId, at: now, order, reason: expired ? 'expired' : 'manual' } });
        }
      }
    }

    // Balance operations while away.
    for (const entry of history) {
      if (entry.kind !== 'balance' || entry.time < since) continue;
      await record(`balance/${entry.id}`, {
        type: 'BalanceChanged',
        data: { accountId, at: entry.time, operation: { operationId: entry.id, time: entry.time, amount: entry.amount, comment: entry.comment } },
      });
    }
  }
}
