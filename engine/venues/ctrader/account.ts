// The session of one cTrader account on its link (link.ts): authentication, the account, its symbols
// and prices, and its book read again on every execution event (book.ts). The port's methods are
// connection.ts.
//
// - Login: the application authenticates with the account's own client id and secret, else its
//   brand's when its white label names them (engine/venues/applications.ts), else the operator's
//   (CTRADER_CLIENT_ID, CTRADER_CLIENT_SECRET), then the account with its access token. The account is found among the
//   token's accounts (ProtoOAGetAccountListByAccessTokenReq) by loginAccountNumber: its traderLogin (the
//   number cTrader shows) or its ctidTraderAccountId. loginServer picks live or demo. A token, account or
//   environment the endpoint refuses answers [INVALID_CREDENTIALS].
// - The token pair (token.ts): an access token cTrader no longer takes is renewed with the refresh token
//   (ProtoOARefreshTokenReq) at the login, on a request refused with a token code (sent again once), on
//   ProtoOAAccountsTokenInvalidatedEvent, and CTRADER_TOKEN_RENEW_BEFORE_MS before its known expiry; the
//   new pair is stored (CTraderLogin.onRenewed) and the account authorized again on the same link.
// - Back after a dropped link, it reads the book again (ProtoOAReconcileReq, the deals since) and tells
//   what changed while it was away, once.
import type { BalanceOperation, OpenPosition, VenueChange, VenueChangeListener } from '../port.js';
import { VenueError } from '../port.js';
import { type Book, type BookContext, type BookOrder, differenceOf, EMPTY_BOOK, iso, lotSizeOf, type OpenedBy, orderOf, positionOf, tradeOf } from './book.js';
import { balanceOperationOf } from './cashFlow.js';
import { CTraderFailure, CTraderLink, CTraderTimeout, describe, isTransient, NO_APPLICATION, venueErrorOf } from './link.js';
import {
  EXECUTION,
  type Frame,
  int,
  ORDER_STATUS,
  PT,
  type ProtoOAAccountsTokenInvalidatedEvent,
  type ProtoOAAssetListRes,
  type ProtoOACashFlowHistoryListReq,
  type ProtoOACashFlowHistoryListRes,
  type ProtoOADeal,
  type ProtoOADealListRes,
  type ProtoOAExecutionEvent,
  type ProtoOAGetAccountListByAccessTokenRes,
  type ProtoOALightSymbol,
  type ProtoOAOrder,
  type ProtoOAOrderListRes,
  type ProtoOAReconcileRes,
  type ProtoOARefreshTokenReq,
  type ProtoOARefreshTokenRes,
  type ProtoOASpotEvent,
  type ProtoOASymbol,
  type ProtoOASymbolByIdRes,
  type ProtoOASymbolsListRes,
  type ProtoOATrader,
  type ProtoOATraderRes,
  spotPrice,
  toCents,
  TOKEN_CODES,
  toLots,
  TRANSIENT_CODES,
} from './protocol.js';
import { LONGEST_WAIT_MS, passwordOf, renewalDelay, renewedPair, type TokenPair } from './token.js';

/** How far back a client order id is looked up in the account's orders. */
const LOOKUP_WINDOW_MS = 7 * 24 * 3600_000;
const DAY_MS = 24 * 3600_000;
const WEEK_MS = 7 * DAY_MS;
/** How far back the history (and so a reconciliation) reads closing deals. */
const HISTORY_DAYS = 90;

export abstract class CTraderAccount extends CTraderLink implements BookContext {
  protected ctid: number | null = null;
  protected trader: ProtoOATrader | null = null;
  protected currency = '';
  protected assets = new Map<number, string>();
  protected symbolsByName = new Map<string, ProtoOALightSymbol>();
  readonly symbolNames = new Map<number, string>();
  readonly details = new Map<number, ProtoOASymbol>();
  readonly quotes = new Map<number, { bid: number; ask: number; time: string }>();
  private spotWaiters = new Map<number, (() => void)[]>();
  private subscribed = new Set<number>();
  protected book: Book = EMPTY_BOOK;
  readonly openTimes = new Map<string, OpenedBy>();
  /** Deals are read from this time on (ms), less a minute. */
  private dealsFrom = 0;
  /** After a dropped link, cash movements are read from this time on (ms), less a minute. */
  private cashFrom = 0;
  /** The balance operations told to the listeners (cTrader's balanceHistoryId). */
  private readonly toldBalances = new Set<string>();
  private readonly listeners = new Set<VenueChangeListener>();
  private sequence = 0;
  private syncing: Promise<void> = Promise.resolve();
  readonly tags = new Map<string, string>();
  /** The engine's id of each cTrader clientOrderId this connection sent. */
  protected readonly engineIds = new Map<string, string>();
  /** The token pair in use (renewed: token.ts). */
  protected tokens: TokenPair = this.account.tokens;
  /** The account is authorized on the link open now. */
  private authorized = false;
  private renewing: Promise<void> | null = null;
  private renewTimer: NodeJS.Timeout | null = null;

  subscribe(listener: VenueChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected settle(): Promise<void> {
    return this.syncing;
  }

  override async disconnect(): Promise<void> {
    if (this.renewTimer) clearTimeout(this.renewTimer);
    this.renewTimer = null;
    await super.disconnect();
  }

  /** ProtoOAAccountAuthReq with the access token in use. */
  private async authorize(): Promise<void> {
    const ctidTraderAccountId = this.ready(true);
    await this.request(PT.ACCOUNT_AUTH_REQ, { ctidTraderAccountId, accessToken: this.tokens.accessToken }, PT.ACCOUNT_AUTH_RES);
    this.authorized = true;
  }

  /** Runs `work`; when cTrader no longer takes the access token, renews it (once) and runs `work` again. */
  protected async withToken<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof CTraderFailure) || !TOKEN_CODES.has(error.errorCode) || !this.tokens.refreshToken) throw error;
      await this.renewToken(`cTrader refused it: ${error.errorCode}`);
      return await work();
    }
  }

  /**
   * Renews the pair (ProtoOARefreshTokenReq), persists it, and authorizes the account on the open link
   * with the new token. One renewal at a time; a refusal is [INVALID_CREDENTIALS].
   */
  protected renewToken(why: string): Promise<void> {
    this.renewing ??= (async () => {
      const refreshToken = this.tokens.refreshToken;
      if (!refreshToken)
        throw new VenueError('[INVALID_CREDENTIALS]', `cTrader account ${this.login}: the access token needs renewing (${why}) and no refresh token was given`);
      let res: ProtoOARefreshTokenRes;
      try {
        res = await this.request<ProtoOARefreshTokenRes>(PT.REFRESH_TOKEN_REQ, { refreshToken } satisfies ProtoOARefreshTokenReq, PT.REFRESH_TOKEN_RES);
      } catch (error) {
        // Spotware's ProtoOAErrorCode has no code of its own for a refresh token it refuses (the fake
        // answers CH_ACCESS_TOKEN_INVALID): any code but a "not now" one (TRANSIENT_CODES) is a refusal,
        // so an unlisted code (ACCESS_DENIED, INVALID_REQUEST...) stops the retries instead of looping.
        if (error instanceof CTraderTimeout || (error instanceof CTraderFailure && TRANSIENT_CODES.has(error.errorCode))) throw error;
        throw new VenueError('[INVALID_CREDENTIALS]', `cTrader refuses the refresh token of account ${this.login}: ${describe(error)}`);
      }
      this.tokens = renewedPair(res, this.clock().getTime());
      this.log.info(
        `cTrader account ${this.login}: renewed the access token (${why}); the new one expires at ${new Date(this.tokens.expiresAt!).toISOString()}`,
      );
      // The old pair no longer works: the new one is stored before anything else may need it.
      await this.account
        .onRenewed?.(passwordOf(this.tokens))
        .catch((error: unknown) =>
          this.log.warn(`cTrader account ${this.login}: storing the renewed token failed (${describe(error)}); it is kept in memory until the next renewal`),
        );
      if (this.authorized && this.socket) await this.authorize();
      this.scheduleRenewal();
    })().finally(() => {
      this.renewing = null;
    });
    return this.renewing;
  }

  /** Renews the pair CTRADER_TOKEN_RENEW_BEFORE_MS before its known expiry, while connected. */
  private scheduleRenewal(): void {
    if (this.renewTimer) clearTimeout(this.renewTimer);
    this.renewTimer = null;
    const delay = renewalDelay(this.tokens, this.clock().getTime(), this.settings.tokenRenewBeforeMs);
    if (delay === null || this.closed || !this.tokens.refreshToken) return;
    this.renewTimer = setTimeout(
      () => {
        this.renewTimer = null;
        if (this.closed) return;
        if (!this.connected || renewalDelay(this.tokens, this.clock().getTime(), this.settings.tokenRenewBeforeMs) !== 0) return this.scheduleRenewal();
        this.renewToken(`it expires at ${new Date(this.tokens.expiresAt!).toISOString()}`).catch((error: unknown) => {
          this.log.warn(`cTrader account ${this.login}: renewing the access token failed (${describe(error)})`);
          if (isTransient(error)) this.scheduleRenewal();
          else this.terminate();
        });
      },
      Math.min(delay, LONGEST_WAIT_MS),
    );
    this.renewTimer.unref();
  }

  /** Authenticates the application and the account, then reads the account, its symbols and its book. */
  protected async session(first: boolean): Promise<void> {
    this.authorized = false;
    const application = this.account.application ?? this.settings.application;
    if (!application) throw new VenueError('[INVALID_CREDENTIALS]', NO_APPLICATION);
    const { clientId, clientSecret } = application;
    await this.request(PT.APPLICATION_AUTH_REQ, { clientId, clientSecret }, PT.APPLICATION_AUTH_RES);
    if (renewalDelay(this.tokens, this.clock().getTime(), this.settings.tokenRenewBeforeMs) === 0 && this.tokens.refreshToken) {
      await this.renewToken(`it expires at ${new Date(this.tokens.expiresAt!).toISOString()}`);
    }
    if (first || this.ctid === null) {
      const list = await this.withToken(() =>
        this.request<ProtoOAGetAccountListByAccessTokenRes>(
          PT.GET_ACCOUNTS_BY_ACCESS_TOKEN_REQ,
          { accessToken: this.tokens.accessToken },
          PT.GET_ACCOUNTS_BY_ACCESS_TOKEN_RES,
        ),
      );
      const wanted = this.account.login.trim();
      const found = (list.ctidTraderAccount ?? []).find((a) => String(int(a.traderLogin)) === wanted || String(int(a.ctidTraderAccountId)) === wanted);
      if (!found) throw new VenueError('[INVALID_CREDENTIALS]', `the access token gives no access to cTrader account ${wanted}`);
      const live = found.isLive === true;
      if (live !== (this.account.environment === 'live')) {
        throw new VenueError(
          '[INVALID_CREDENTIALS]',
          `cTrader account ${wanted} is a ${live ? 'live' : 'demo'} account: set loginServer to ${live ? 'live' : 'demo'}`,
        );
      }
      if (list.permissionScope === 0) this.log.warn(`cTrader account ${wanted}: the access token has the view scope only; orders will be refused`);
      this.ctid = int(found.ctidTraderAccountId);
    }
    const ctid = this.ctid;
    await this.withToken(() => this.authorize());
    this.scheduleRenewal();
    this.trader = (await this.request<ProtoOATraderRes>(PT.TRADER_REQ, { ctidTraderAccountId: ctid }, PT.TRADER_RES)).trader;
    if (first || this.assets.size === 0) {
      const assets = await this.request<ProtoOAAssetListRes>(PT.ASSET_LIST_REQ, { ctidTraderAccountId: ctid }, PT.ASSET_LIST_RES);
      this.assets = new Map((assets.asset ?? []).map((a) => [int(a.assetId), a.name]));
      const symbols = await this.request<ProtoOASymbolsListRes>(PT.SYMBOLS_LIST_REQ, { ctidTraderAccountId: ctid }, PT.SYMBOLS_LIST_RES);
      for (const symbol of symbols.symbol ?? []) {
        if (symbol.enabled === false || !symbol.symbolName) continue;
        const name = symbol.symbolName.replace(/\//g, '');
        this.symbolsByName.set(name, symbol);
        this.symbolNames.set(int(symbol.symbolId), name);
      }
    }
    this.currency = this.assets.get(int(this.trader.depositAssetId)) ?? '';
    if (this.subscribed.size > 0) {
      const ids = [...this.subscribed];
      this.subscribed.clear();
      await this.subscribeSpots(ids);
    }
    if (first) {
      this.dealsFrom = this.clock().getTime();
      this.cashFrom = this.dealsFrom;
      this.book = await this.readBook();
    } else {
      await this.sync();
      await this.catchUpCashFlows();
    }
  }

  protected onEvent(frame: Frame): void {
    switch (frame.payloadType) {
      case PT.SPOT_EVENT:
        return this.onSpot(frame.payload as ProtoOASpotEvent);
      case PT.EXECUTION_EVENT: {
        // The position an order of ours opened carries its client order id from now on.
        const event = frame.payload as ProtoOAExecutionEvent;
        if (event.executionType === EXECUTION.DEPOSIT_WITHDRAW && event.depositWithdraw) {
          const operation = balanceOperationOf(event.depositWithdraw);
          if (operation) this.tellBalance(operation);
          this.cashFrom = Math.max(this.cashFrom, int(event.depositWithdraw.changeBalanceTimestamp));
        }
        const tag = event.order?.clientOrderId;
        const positionId = event.order?.positionId ?? event.position?.positionId;
        if (tag && positionId !== undefined && !event.order?.closingOrder) this.tags.set(String(int(positionId)), this.engineIds.get(tag) ?? tag);
        // Whoever caused it (us, the user in cTrader, a stop-out): read the book and tell what changed.
        if (this.connected)
          void this.sync().catch((error: unknown) => this.log.warn(`cTrader account ${this.login}: reading the book failed (${describe(error)})`));
        return;
      }
      case PT.ACCOUNTS_TOKEN_INVALIDATED_EVENT: {
        const event = frame.payload as ProtoOAAccountsTokenInvalidatedEvent;
        const reason = event.reason ?? 'no reason given';
        this.log.warn(`cTrader account ${this.login}: cTrader invalidated the access token (${reason})`);
        if (!this.tokens.refreshToken || !this.connected) return this.terminate();
        // Renewed and authorized again on this link; what failed meanwhile is read again.
        void this.renewToken(`cTrader invalidated it: ${reason}`)
          .then(() => this.sync())
          .catch((error: unknown) => {
            this.log.warn(`cTrader account ${this.login}: renewing the invalidated access token failed (${describe(error)}); reconnecting`);
            this.terminate();
          });
        return;
      }
      case PT.ACCOUNT_DISCONNECT_EVENT:
      case PT.CLIENT_DISCONNECT_EVENT:
        this.log.warn(`cTrader account ${this.login}: cTrader ended the session (${frame.payloadType}); reconnecting`);
        this.terminate();
        return;
      default:
        return;
    }
  }

  private onSpot(event: ProtoOASpotEvent): void {
    const id = int(event.symbolId);
    const previous = this.quotes.get(id);
    const bid = event.bid !== undefined ? spotPrice(event.bid) : (previous?.bid ?? 0);
    const ask = event.ask !== undefined ? spotPrice(event.ask) : (previous?.ask ?? 0);
    const time = event.timestamp !== undefined ? iso(event.timestamp) : this.clock().toISOString();
    this.quotes.set(id, { bid, ask, time });
    for (const wake of this.spotWaiters.get(id) ?? []) wake();
    this.spotWaiters.delete(id);
  }

  /** Resolves once a price of symbol `id` is known (subscribing to it), or fails after the request timeout. */
  protected async quoteOf(id: number, symbol: string): Promise<{ bid: number; ask: number; time: string }> {
    if (!this.quotes.has(id)) {
      await this.guard(() => this.subscribeSpots([id]));
      if (!this.quotes.has(id)) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new CTraderTimeout(`no price of ${symbol} from cTrader within ${this.settings.requestTimeoutMs} ms`)),
            this.settings.requestTimeoutMs,
          );
          const wake = () => {
            clearTimeout(timer);
            resolve();
          };
          this.spotWaiters.set(id, [...(this.spotWaiters.get(id) ?? []), wake]);
        });
      }
    }
    return this.quotes.get(id)!;
  }

  /** Reads the book again and tells the listeners what changed since the last reading. */
  sync(): Promise<void> {
    const run = this.syncing.then(async () => {
      if (!this.socket) return;
      const next = await this.readBook();
      const previous = this.book;
      this.book = next;
      const at = this.clock().toISOString();
      for (const change of differenceOf(previous, next, (message) => this.log.warn(`cTrader account ${this.login}: ${message}`))) {
        const full = { ...change, login: this.login, sequence: ++this.sequence, at } as VenueChange;
        for (const listener of this.listeners) listener(full);
      }
    });
    this.syncing = run.catch(() => undefined);
    return run;
  }

  private async readBook(): Promise<Book> {
    const ctid = this.ready(true);
    const reconciled = await this.request<ProtoOAReconcileRes>(PT.RECONCILE_REQ, { ctidTraderAccountId: ctid }, PT.RECONCILE_RES);
    const now = this.clock().getTime();
    const deals = await this.deals(Math.max(0, this.dealsFrom - 60_000), now + 60_000);
    await this.ensureDetails([
      ...(reconciled.position ?? []).map((p) => int(p.tradeData.symbolId)),
      ...(reconciled.order ?? []).map((o) => int(o.tradeData.symbolId)),
      ...deals.map((d) => int(d.symbolId)),
    ]);
    const positions = new Map<string, OpenPosition>();
    for (const p of reconciled.position ?? []) {
      const position = positionOf(this, p);
      if (position) positions.set(position.id, position);
    }
    const pending = new Map<string, BookOrder>();
    for (const o of reconciled.order ?? []) {
      const order = orderOf(this, o, this.engineIds);
      if (order) pending.set(order.id, order);
    }
    const trades = new Map(this.book.trades);
    const fills = new Map<string, string>();
    for (const deal of deals) {
      const trade = tradeOf(this, deal);
      if (trade && !trades.has(trade.id)) trades.set(trade.id, trade);
      if (!deal.closePositionDetail) fills.set(String(int(deal.orderId)), String(int(deal.positionId)));
    }
    this.dealsFrom = now;
    return { positions, pending, trades, fills };
  }

  /**
   * The deals of a time range (ms), a week per request (the endpoint's widest range) and every page of
   * each; at most the last HISTORY_DAYS days, and nothing before the account was registered.
   */
  protected async deals(from: number, to: number): Promise<ProtoOADeal[]> {
    const ctid = this.ready(true);
    const all: ProtoOADeal[] = [];
    for (const [windowStart, windowEnd] of this.weeks(from, to)) {
      let upTo = windowEnd;
      for (let page = 0; page < 50; page++) {
        const res = await this.request<ProtoOADealListRes>(
          PT.DEAL_LIST_REQ,
          { ctidTraderAccountId: ctid, fromTimestamp: windowStart, toTimestamp: upTo, maxRows: 1000 },
          PT.DEAL_LIST_RES,
        );
        const deals = res.deal ?? [];
        all.push(...deals);
        if (!res.hasMore || deals.length === 0) break;
        upTo = Math.min(...deals.map((d) => int(d.executionTimestamp))) - 1;
      }
    }
    return all;
  }

  /** The cash movements of a time range (ms) as balance operations (cashFlow.ts), a week per request, as deals(). */
  protected async cashFlows(from: number, to: number): Promise<BalanceOperation[]> {
    const ctid = this.ready(true);
    const all: BalanceOperation[] = [];
    for (const [fromTimestamp, toTimestamp] of this.weeks(from, to)) {
      const res = await this.request<ProtoOACashFlowHistoryListRes>(
        PT.CASH_FLOW_HISTORY_LIST_REQ,
        { ctidTraderAccountId: ctid, fromTimestamp, toTimestamp } satisfies ProtoOACashFlowHistoryListReq,
        PT.CASH_FLOW_HISTORY_LIST_RES,
      );
      for (const operation of res.depositWithdraw ?? []) {
        const balance = balanceOperationOf(operation);
        if (balance) all.push(balance);
      }
    }
    return all.sort((a, b) => a.time.localeCompare(b.time));
  }

  /**
   * A time range (ms) as the week-wide windows history requests take (their widest range), newest
   * first: at most the last HISTORY_DAYS days, and nothing before the account was registered.
   */
  private weeks(from: number, to: number): [number, number][] {
    const end = Math.min(to, this.clock().getTime() + 60_000);
    const start = Math.max(from, end - HISTORY_DAYS * DAY_MS, int(this.trader?.registrationTimestamp));
    const windows: [number, number][] = [];
    for (let windowEnd = end; windowEnd >= start; windowEnd -= WEEK_MS) windows.push([Math.max(start, windowEnd - WEEK_MS + 1), windowEnd]);
    return windows;
  }

  /** Tells the listeners a balance operation once (heard live, or read after a reconnect). */
  private tellBalance(operation: BalanceOperation): void {
    if (this.toldBalances.has(operation.id)) return;
    this.toldBalances.add(operation.id);
    const change: VenueChange = { type: 'balanceChanged', operation, login: this.login, sequence: ++this.sequence, at: this.clock().toISOString() };
    for (const listener of this.listeners) listener(change);
  }

  /** The cash movements since the last ones heard (less a minute), told once: back after a dropped link. */
  private async catchUpCashFlows(): Promise<void> {
    const now = this.clock().getTime();
    for (const operation of await this.cashFlows(this.cashFrom - 60_000, now + 60_000)) this.tellBalance(operation);
    this.cashFrom = now;
  }

  protected async ensureDetails(ids: readonly number[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.details.has(id));
    if (missing.length === 0) return;
    const res = await this.request<ProtoOASymbolByIdRes>(
      PT.SYMBOL_BY_ID_REQ,
      { ctidTraderAccountId: this.ready(true), symbolId: missing },
      PT.SYMBOL_BY_ID_RES,
    );
    for (const symbol of res.symbol ?? []) this.details.set(int(symbol.symbolId), symbol);
  }

  protected lotSize(symbolId: number): number {
    return lotSizeOf(this, symbolId);
  }

  protected contractOf(symbol: string): number {
    const light = this.symbolsByName.get(symbol);
    return light ? this.lotSize(int(light.symbolId)) / 100 : 1;
  }

  /** Lots as cents of units, checked against the symbol's step, minimum and maximum (nothing is sent otherwise). */
  protected centsOf(symbol: string, symbolId: number, lots: number, wholePosition = false): number {
    const d = this.details.get(symbolId);
    const lot = int(d?.lotSize) || 100;
    const cents = toCents(lots, lot);
    const step = int(d?.stepVolume) || 1;
    const min = int(d?.minVolume) || step;
    const max = d?.maxVolume !== undefined ? int(d.maxVolume) : Number.MAX_SAFE_INTEGER;
    if (cents === null || cents <= 0 || (!wholePosition && cents % step !== 0)) {
      throw new VenueError('[INVALID_VOLUME]', `${lots} lots of ${symbol} is not a multiple of its volume step ${toLots(step, lot)} at cTrader`);
    }
    if (!wholePosition && (cents < min || cents > max)) {
      throw new VenueError('[INVALID_VOLUME]', `${lots} lots of ${symbol} is outside cTrader's volume limits ${toLots(min, lot)} to ${toLots(max, lot)}`);
    }
    return cents;
  }

  protected symbolOf(symbol: string): ProtoOALightSymbol {
    const light = this.symbolsByName.get(symbol.replace(/\//g, ''));
    if (!light) throw new VenueError('[SYMBOL_NOT_FOUND]', `${symbol} is not traded at cTrader account ${this.login}`);
    return light;
  }

  private async subscribeSpots(ids: readonly number[]): Promise<void> {
    const wanted = ids.filter((id) => !this.subscribed.has(id));
    if (wanted.length === 0) return;
    for (const id of wanted) this.subscribed.add(id);
    try {
      await this.request(PT.SUBSCRIBE_SPOTS_REQ, { ctidTraderAccountId: this.ready(true), symbolId: wanted }, PT.SUBSCRIBE_SPOTS_RES);
    } catch (error) {
      for (const id of wanted) this.subscribed.delete(id);
      throw error;
    }
  }

  /** The order this account placed with client order id `tag` recently (ProtoOAOrderListReq); null: none. */
  protected async findOrder(tag: string): Promise<ProtoOAOrder | null> {
    const now = this.clock().getTime();
    const res = await this.request<ProtoOAOrderListRes>(
      PT.ORDER_LIST_REQ,
      { ctidTraderAccountId: this.ready(true), fromTimestamp: now - LOOKUP_WINDOW_MS, toTimestamp: now + 60_000 },
      PT.ORDER_LIST_RES,
    );
    return (res.order ?? []).find((o) => o.clientOrderId === tag && (o.orderStatus === ORDER_STATUS.FILLED || o.orderStatus === ORDER_STATUS.ACCEPTED)) ?? null;
  }

  /** The account's ctid; [NOT_CONNECTED] while the link is down (`during`: while the session is being set up). */
  protected ready(during = false): number {
    if ((!this.connected && !during) || this.ctid === null || !this.socket)
      throw new VenueError('[NOT_CONNECTED]', `cTrader account ${this.login} is not connected`);
    return this.ctid;
  }

  /** Runs `work` (renewing a token cTrader no longer takes), a refusal answered as the port's VenueError. */
  protected async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await this.withToken(work);
    } catch (error) {
      throw venueErrorOf(error);
    }
  }
}
