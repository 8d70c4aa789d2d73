// A new copy (decision.ts): symbol mapping, the copier's limits, the features, sizing and the order.
import type { ActiveFeature, OpenContext } from './features/rules.js';
import { type Context, deferred, orderOf, priceFor, runContext, skipped, specOf, stopsFor } from './decisionContext.js';
import { slaveComment, slaveMagicNumber } from './labels.js';
import { largestSplit, splitOpen } from './split.js';
import { slaveOrderType } from './reverse.js';
import { floorToStep } from './rounding.js';
import { slaveVolume } from './sizing.js';
import { strategyMagicNumber } from './strategyRouting.js';
import { mapSymbolOf } from './symbolMapping.js';
import { protectionSkip } from '../protection/blocks.js';
import { exact, toNumber, ZERO } from '../shared/decimal.js';
import type { CopyAction, MasterTrade, OpenAction, Skip, SymbolSpec } from './types.js';

const describeTrade = (trade: MasterTrade): string => `${trade.orderType} ${trade.volume} ${trade.symbol} (master #${trade.masterPositionId})`;

const openLotsOf = (context: Context): number => toNumber(context.accounts.slave.copies.reduce((sum, copy) => sum.plus(exact(copy.volume)), ZERO));

export const openAction = (
  context: Context,
  trade: MasterTrade,
  symbol: string,
  volume: number,
  spec: SymbolSpec | undefined,
  replacesPendingOrderId: string | null,
  part = 0,
): OpenAction => {
  const { settings } = context.copier;
  const orderType = slaveOrderType(trade.orderType, settings.reverse);
  const pending = orderType !== 'Buy' && orderType !== 'Sell';
  const stops = stopsFor(context, trade, spec);
  // Members added to orderOf's object, not spread into a new one (decisionContext.ts, orderOf).
  return Object.assign(orderOf(context, 'open', symbol, part), {
    orderType,
    volume,
    openPrice: pending ? priceFor(trade.openPrice, spec) : null,
    stopLoss: stops.stopLoss,
    takeProfit: stops.takeProfit,
    comment: slaveComment(settings, trade.comment),
    magicNumber: strategyMagicNumber(context.copier.strategy, slaveMagicNumber(settings, trade.magicNumber)),
    replacesPendingOrderId,
  });
};

/** A new copy's master trade with its slave symbol and that symbol's specification: what the features' open rules see. */
interface Opening {
  readonly context: Context;
  readonly trade: MasterTrade;
  readonly symbol: string;
  readonly spec: SymbolSpec;
}

// At module level, not a closure made in `open` for every decision: under tsx (`npm start`), every
// function made inside another is named through Object.defineProperty (decision.ts, decideLive).
/** What `feature`'s open rules see of the opening (features/rules.ts, OpenContext). */
const contextOf = (opening: Opening, feature: ActiveFeature): OpenContext => {
  const { context, trade, symbol, spec } = opening;
  const { accounts, market, features } = context;
  return {
    ...runContext(features, feature, context.copier),
    trade,
    slaveSymbol: symbol,
    slaveSpec: spec,
    masterSpec: market.masterSymbol,
    copies: accounts.slave.copies,
    slaveFunds: { balance: accounts.slave.balance, equity: accounts.slave.equity, currency: accounts.slave.currency },
    quotes: features.quotes,
    slaveAccount: features.slaveAccount,
    marginPerLot: features.marginPerLot,
    slavePositions: features.slavePositions ?? null,
    pointValue: features.pointValue ?? null,
    masterOrders: features.masterOrders ?? null,
  };
};

/** A rule's refusal of the trade. */
const refused = (trade: MasterTrade, skip: Skip): CopyAction[] => [
  skipped(trade.masterPositionId, skip.reason, `${describeTrade(trade)} not copied: ${skip.message}`),
];

/**
 * The lot sizing gives with the settings the features adjusted; when sizing refuses, the first
 * fallback lot a feature offers, on whole lot steps within the broker's limits. Else the refusal.
 */
const sizedVolume = (opening: Opening): number | Skip => {
  const { context, trade, spec } = opening;
  const { copier, accounts, market, features } = context;
  const settings = features.active.reduce(
    (current, feature) => feature.feature.rules.sizing?.(feature.settings, current, contextOf(opening, feature)) ?? current,
    copier.settings,
  );
  const sized = slaveVolume(trade.volume, settings, {
    master: accounts.master,
    slave: accounts.slave,
    slaveToMasterRate: market.slaveToMasterRate,
    masterSymbol: market.masterSymbol,
    slaveSymbol: spec,
    openLots: openLotsOf(context),
    martingale: accounts.slave.martingale,
    volumeOverride: features.approval?.decision === 'approved' ? features.approval.volume : null,
  });
  if (sized.ok) return sized.volume;
  const fallback = features.active
    .map((feature) => feature.feature.rules.fallback?.(feature.settings, sized, contextOf(opening, feature)) ?? null)
    .find((answer) => answer !== null);
  if (!fallback) return sized;
  const stepped = floorToStep(exact(fallback.volume), exact(spec.lotStep));
  const ceiling = settings.forcePositionLotSize ? largestSplit(spec) : exact(spec.maxLot);
  if (stepped.lessThan(exact(spec.minLot)) || stepped.greaterThan(ceiling)) return sized;
  return toNumber(stepped);
};

/** The sized lot after each feature's adjustVolume (caps, guards), on whole lot steps; or a refusal. */
const adjustedVolume = (sized: number, opening: Opening): number | Skip => {
  const { spec } = opening;
  const { features } = opening.context;
  let volume = sized;
  for (const feature of features.active) {
    const adjust = feature.feature.rules.adjustVolume;
    if (!adjust) continue;
    const adjusted = adjust(feature.settings, volume, contextOf(opening, feature));
    if ('reason' in adjusted) return adjusted;
    // A feature's lot goes to the broker as whole steps too.
    const stepped = floorToStep(exact(adjusted.volume), exact(spec.lotStep));
    if (stepped.lessThan(exact(spec.minLot))) {
      return {
        reason: 'VOLUME_BELOW_MINIMUM',
        message: `${feature.feature.type} leaves ${adjusted.volume} lots, below the minimum ${spec.minLot} of ${spec.symbol}`,
      };
    }
    volume = toNumber(stepped);
  }
  return volume;
};

/**
 * The copier's own limits on a new copy (CopierDTO): maxOpenPositions (0 = off) counts the copies this
 * copier holds open on the slave, positions and pending orders alike; maxSlippage (points, 0 = off)
 * compares a market copy's price now (ask for a buy, bid for a sell) with the master's open price.
 */
const copierLimits = (context: Context, trade: MasterTrade, spec: SymbolSpec): Skip | null => {
  const { settings } = context.copier;
  const open = context.accounts.slave.copies.length;
  if (settings.maxOpenPositions > 0 && open >= settings.maxOpenPositions)
    return { reason: 'MAX_OPEN_POSITIONS_REACHED', message: `this copier holds ${open} open copies, its maxOpenPositions is ${settings.maxOpenPositions}` };
  const orderType = slaveOrderType(trade.orderType, settings.reverse);
  if (settings.maxSlippage > 0 && (orderType === 'Buy' || orderType === 'Sell')) {
    const quote = context.market.slaveQuote ?? null;
    if (!quote) return { reason: 'PRICE_MISSING', message: `no ${spec.symbol} price at the slave's broker to check maxSlippage ${settings.maxSlippage}` };
    const price = orderType === 'Buy' ? quote.ask : quote.bid;
    const points = Math.round(Math.abs(price - trade.openPrice) / spec.point);
    if (points > settings.maxSlippage)
      return {
        reason: 'SLIPPAGE_EXCEEDED',
        message: `the slave's ${orderType} price ${price} is ${points} points from the master's open price ${trade.openPrice}, above maxSlippage ${settings.maxSlippage}`,
      };
  }
  return null;
};

/**
 * A new copy: symbol mapping, then the features (defer, filters, sizing settings), sizing, the
 * features again (the sized lot, the order), in that order.
 */
export const open = (context: Context, trade: MasterTrade): CopyAction[] => {
  if (context.copy)
    return [
      skipped(
        trade.masterPositionId,
        'ALREADY_COPIED',
        `${describeTrade(trade)} not copied again: slave ${context.copy.kind} #${context.parts.map((part) => part.slavePositionId).join(', #')} already copies it`,
      ),
    ];
  // The account's protections come before the features: while one is in force nothing new is copied.
  const blocked = protectionSkip(context.features.protections ?? [], null, context.copier.id);
  if (blocked) return refused(trade, blocked);
  const { copier, market, features } = context;
  const symbol = mapSymbolOf(trade.symbol, market.slaveSymbols, copier.symbolOverrides, copier.projectMappings);
  const spec = symbol === null ? undefined : specOf(context, symbol);
  if (symbol === null || !spec) return refused(trade, { reason: 'SYMBOL_NOT_MAPPED', message: `no unique slave symbol for ${trade.symbol}` });
  const symbolBlocked = protectionSkip(features.protections ?? [], symbol, copier.id);
  if (symbolBlocked) return refused(trade, symbolBlocked);
  const opening: Opening = { context, trade, symbol, spec };
  const limited = copierLimits(context, trade, spec);
  if (limited) return refused(trade, limited);

  for (const feature of features.active) {
    const skip = feature.feature.rules.filterOpen?.(feature.settings, contextOf(opening, feature));
    if (skip) return refused(trade, skip);
  }
  // After the filters, so a trade they refuse is refused at once rather than later.
  for (const feature of features.active) {
    const until = feature.feature.rules.deferOpen?.(feature.settings, contextOf(opening, feature)) ?? null;
    if (until !== null)
      return [deferred(trade.masterPositionId, until, feature.feature.type, `${describeTrade(trade)} held back by ${feature.feature.type} until ${until}`)];
  }
  const sized = sizedVolume(opening);
  if (typeof sized !== 'number') return refused(trade, sized);
  const volume = adjustedVolume(sized, opening);
  if (typeof volume !== 'number') return refused(trade, volume);
  let action = openAction(context, trade, symbol, volume, spec, null);
  for (const feature of features.active) {
    const adjust = feature.feature.rules.adjustOpen;
    if (adjust) action = adjust(feature.settings, action, contextOf(opening, feature));
  }
  return copier.settings.forcePositionLotSize ? splitOpen(action, spec, context.event.eventId, copier.id) : [action];
};
