// What the copier features of one decision need from the venues (features/rules.ts: `needs`): the
// master's and the slave's quote of the symbol, the slave's margin figures and the margin of one lot.
// Read only when a configured feature asks, and only for opens; the open prices ('openPrices') only
// for a master's stop change of a position; the slave's open positions ('closeStops') only for a
// master's close or partial close; the calendar ('calendar') for opens and stop changes, never for a close.
import { type FeatureInputs, noFeaturesAt } from '../../domain/copy/decision.js';
import type { ActiveFeature, CopyRecord, FeatureNeed, QuoteView } from '../../domain/copy/features/rules.js';
import { NEWS_CALENDAR_REACH_MINUTES } from '../../domain/copy/features/newsFilter.js';
import { mapSymbolOf } from '../../domain/copy/symbolMapping.js';
import type { CopierView, MasterEvent, SymbolSpec } from '../../domain/copy/types.js';
import type { AccountInformation, VenueConnection } from '../venues/port.js';
import { accountPositionsOf, pointValueOf } from './accountViews.js';

export interface FeatureSources {
  readonly active: readonly ActiveFeature[];
  readonly history: readonly CopyRecord[];
  readonly now: string;
  readonly eventTime: string | null;
  readonly deferredBy: readonly string[];
  readonly master: VenueConnection | null;
  readonly slave: { readonly connection: VenueConnection; readonly info: AccountInformation; readonly symbols: readonly SymbolSpec[] } | null;
  readonly copier: CopierView;
  /** The decision on the event when it was held back for approval. */
  readonly approval?: FeatureInputs['approval'];
  /**
   * With 'masterOrders': the master's orders on a symbol from the read models, positions closed
   * since `since` (the earliest addition of a feature that needs them) included.
   */
  readonly masterOrders?: (symbol: string, since: string | null) => Promise<NonNullable<FeatureInputs['masterOrders']>>;
  /** With 'calendar': the economic calendar's events from `from` to `to` (ISO) from the read model. */
  readonly calendar?: (from: string, to: string) => Promise<NonNullable<FeatureInputs['calendar']>>;
}

/** The calendar's events a day either side of `now` (the widest blackout and the whole UTC day of a holiday). */
const calendarAround = async (sources: FeatureSources): Promise<Pick<FeatureInputs, 'calendar'>> => {
  if (!sources.calendar || !sources.active.some((f) => f.feature.rules.needs?.includes('calendar'))) return {};
  const now = Date.parse(sources.now);
  const reach = NEWS_CALENDAR_REACH_MINUTES * 60_000;
  return { calendar: await sources.calendar(new Date(now - reach).toISOString(), new Date(now + reach).toISOString()) };
};

/** The earliest addition of a configured feature that needs the master's orders. */
const masterOrdersSince = (active: readonly ActiveFeature[]): string | null =>
  active
    .filter((f) => f.feature.rules.needs?.includes('masterOrders'))
    .map((f) => f.configuredAt ?? new Date(0).toISOString())
    .sort()[0] ?? null;

const quoteOf = async (connection: VenueConnection | null, symbol: string | null): Promise<QuoteView | null> => {
  if (!connection || !symbol) return null;
  return connection.quote(symbol).then(
    (q) => ({ bid: q.bid, ask: q.ask }),
    () => null,
  );
};

const opening = (event: MasterEvent): boolean =>
  event.type === 'MasterPositionOpened' || event.type === 'MasterPendingOrderPlaced' || event.type === 'MasterPendingOrderFilled';

/** The master position's open price and the slave's positions' open prices, by id; what a venue does not answer is left out. */
const openPricesOf = async (event: MasterEvent, sources: FeatureSources): Promise<NonNullable<FeatureInputs['openPrices']>> => {
  const book = async (connection: VenueConnection | null) => (connection ? connection.positions().catch(() => []) : []);
  const master = (await book(sources.master)).find((p) => p.id === event.data.masterPositionId);
  const slave = (await book(sources.slave?.connection ?? null)).filter((p) => p.kind === 'position');
  return { master: master ? master.openPrice : null, slave: Object.fromEntries(slave.map((p) => [p.id, p.openPrice])) };
};

const closing = (event: MasterEvent): boolean => event.type === 'MasterPositionClosed' || event.type === 'MasterPositionPartiallyClosed';

export const featureInputs = async (event: MasterEvent, sources: FeatureSources): Promise<FeatureInputs> => {
  if (sources.active.length === 0) return noFeaturesAt(sources.now, sources.eventTime, sources.deferredBy);
  const needs = new Set<FeatureNeed>(sources.active.flatMap((f) => f.feature.rules.needs ?? []));
  // Members are added to this fresh literal with Object.assign below, not spread into new ones: in
  // Node 20's V8 a spread-then-add literal gets a map of its own on every call (decisionContext.ts, orderOf).
  const base: FeatureInputs = {
    active: sources.active,
    now: sources.now,
    history: sources.history,
    quotes: { master: null, slave: null },
    slaveAccount: null,
    marginPerLot: null,
    deferredBy: sources.deferredBy,
    eventTime: sources.eventTime,
    approval: sources.approval ?? null,
  };
  if (event.type === 'MasterPositionModified') {
    const calendar = await calendarAround(sources);
    return needs.has('openPrices') ? Object.assign(base, calendar, { openPrices: await openPricesOf(event, sources) }) : Object.assign(base, calendar);
  }
  if (closing(event)) {
    if (!needs.has('closeStops') || !sources.slave) return base;
    // Not answered: null, and a rule that needs the copy's stops takes them as unknown.
    const book = await sources.slave.connection.positions().catch(() => null);
    return Object.assign(base, { slavePositions: book ? accountPositionsOf(book) : null });
  }
  if (event.type === 'MasterPendingOrderModified') return Object.assign(base, await calendarAround(sources));
  if (!opening(event) || !('symbol' in event.data)) return base;
  const trade = event.data as { symbol: string; orderType: string };
  const slaveSymbol = sources.slave ? mapSymbolOf(trade.symbol, sources.slave.symbols, sources.copier.symbolOverrides, sources.copier.projectMappings) : null;
  const quotes = needs.has('quotes')
    ? { master: await quoteOf(sources.master, trade.symbol), slave: await quoteOf(sources.slave?.connection ?? null, slaveSymbol) }
    : base.quotes;
  let marginPerLot: number | null = null;
  let slaveAccount: FeatureInputs['slaveAccount'] = null;
  if (needs.has('margin') && sources.slave) {
    const { info, connection } = sources.slave;
    slaveAccount = {
      balance: info.balance,
      equity: info.equity,
      usedMargin: info.margin,
      freeMargin: info.freeMargin,
      leverage: info.leverage,
      currency: info.currency,
    };
    const side = trade.orderType.startsWith('Buy') ? 'buy' : 'sell';
    marginPerLot = slaveSymbol ? await connection.marginRequired(slaveSymbol, side, 1).catch(() => null) : null;
  }
  const slavePositions = needs.has('positions') && sources.slave ? accountPositionsOf(await sources.slave.connection.positions()) : null;
  const pointValue =
    needs.has('pointValue') && sources.slave && slaveSymbol ? await pointValueOf(sources.slave.connection, slaveSymbol, sources.slave.info.currency) : null;
  const masterOrders = needs.has('masterOrders') && sources.masterOrders ? await sources.masterOrders(trade.symbol, masterOrdersSince(sources.active)) : null;
  return Object.assign(base, { quotes, slaveAccount, marginPerLot, slavePositions, pointValue, masterOrders }, await calendarAround(sources));
};
