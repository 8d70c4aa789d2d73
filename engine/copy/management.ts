// Periodic management of a copier's open copies by its features (features/rules.ts `manage`): break-
// even, trailing stops, guardrail closes, scheduled closes and reopens, and the features' own
// standalone trades (keep-alive trades: opened and closed, never shown to other rules). The rules see
// each copy as the slave's venue shows it now; what they ask for becomes ordinary copy actions with
// client ids that depend only on what is asked (the same stop twice is one request).
import { v5 as uuidv5 } from 'uuid';
import {
  type ActiveFeature,
  type CopyRecord,
  type ManageContext,
  type ManagedAction,
  type ManagedCopy,
  type QuoteView,
  standaloneOf,
} from '../../domain/copy/features/rules.js';
import type { CopierSettings } from '../../domain/copier/settings.js';
import { copierFeatures } from '../../domain/copy/features/catalogue.js';
import type { CancelAction, OpenAction, ModifyAction, CloseAction, SkipAction, MasterTrade, SlaveCopy, SymbolSpec } from '../../domain/copy/types.js';
import type { VenueConnection } from '../venues/port.js';
import { accountPositionsOf, slaveAccountViewOf } from './accountViews.js';

/** Fixed forever: management's client ids derive from it. */
export const MANAGEMENT_NAMESPACE = '9e2b7c41-5d3a-4f8e-b1c6-27a4d0e8f315';

export const managedFeatures = (active: readonly ActiveFeature[]): ActiveFeature[] => active.filter((f) => f.feature.rules.manage !== undefined);

/** The feature types that manage open copies. */
export const managingFeatureTypes = (): string[] => copierFeatures.filter((f) => f.rules.manage !== undefined).map((f) => f.type);

export interface ManagementInputs {
  readonly now: string;
  readonly active: readonly ActiveFeature[];
  readonly history: readonly CopyRecord[];
  readonly liveCopies: readonly SlaveCopy[];
  readonly slave: VenueConnection;
  readonly slaveSymbols: readonly SymbolSpec[];
  readonly masterPositions: readonly MasterTrade[];
  readonly copier: CopierSettings;
  /** The copier's standalone trades (keep-alive trades), each shown to the feature that placed it. */
  readonly standalone?: readonly CopyRecord[];
  /** For 'slaveActivity': when the slave account last traded, standalone trades aside. */
  readonly slaveLastTradeAt?: string | null;
  /** For 'calendar': the economic calendar's events around `now`. */
  readonly calendar?: ManageContext['calendar'];
  /** For 'masterCloses': the partial closes of the master's open positions. */
  readonly masterCloses?: ManageContext['masterCloses'];
}

/** Every rule's asks for this copier now, with the feature that asked. */
export const manage = async (inputs: ManagementInputs): Promise<{ readonly feature: ActiveFeature; readonly action: ManagedAction }[]> => {
  const features = managedFeatures(inputs.active);
  if (features.length === 0) return [];
  const book = await inputs.slave.positions();
  const specs = new Map(inputs.slaveSymbols.map((s) => [s.symbol, s]));
  const copies: ManagedCopy[] = [];
  for (const copy of inputs.liveCopies) {
    if (copy.kind !== 'position') continue;
    const position = book.find((p) => p.kind === 'position' && p.id === copy.slavePositionId);
    const spec = specs.get(copy.symbol);
    if (!position || position.kind !== 'position' || !spec) continue;
    copies.push({
      masterPositionId: copy.masterPositionId,
      slavePositionId: copy.slavePositionId,
      symbol: copy.symbol,
      side: position.orderType === 'buy' ? 'Buy' : 'Sell',
      volume: position.volume,
      openPrice: position.openPrice,
      openTime: position.openTime,
      stopLoss: position.stopLoss,
      takeProfit: position.takeProfit,
      currentPrice: position.currentPrice,
      profit: position.profit,
      swap: position.swap,
      spec,
    });
  }
  const quotes = new Map<string, QuoteView>();
  for (const symbol of new Set([...copies.map((c) => c.symbol), ...inputs.history.map((h) => h.symbol)])) {
    if (!specs.has(symbol)) continue;
    const quote = await inputs.slave.quote(symbol).catch(() => null);
    if (quote) quotes.set(symbol, { bid: quote.bid, ask: quote.ask });
  }
  const slavePositions = accountPositionsOf(book);
  const slaveAccount = features.some((f) => f.feature.rules.needs?.includes('margin')) ? slaveAccountViewOf(await inputs.slave.accountInformation()) : null;
  const asks: { feature: ActiveFeature; action: ManagedAction }[] = [];
  for (const feature of features) {
    const ctx: ManageContext = {
      now: inputs.now,
      history: inputs.history,
      resets: feature.resets,
      copier: inputs.copier,
      eventTime: null,
      deferredBy: [],
      copies,
      masterOpen: new Set(inputs.masterPositions.map((p) => p.masterPositionId)),
      masterPositions: inputs.masterPositions,
      quotes,
      specs,
      slavePositions,
      slaveAccount,
      configuredAt: feature.configuredAt,
      standalone: standaloneOf(feature.featureId, inputs.standalone ?? []),
      slaveLastTradeAt: inputs.slaveLastTradeAt ?? null,
      pendingCopies: inputs.liveCopies.filter((c) => c.kind === 'pendingOrder'),
      ...(inputs.calendar ? { calendar: inputs.calendar } : {}),
      ...(inputs.masterCloses ? { masterCloses: inputs.masterCloses } : {}),
    };
    for (const action of feature.feature.rules.manage!(feature.settings, ctx, feature.featureId)) asks.push({ feature, action });
  }
  return asks;
};

const id = (copierId: string, parts: readonly (string | number | null)[]): string =>
  uuidv5(`${copierId}/${parts.map((p) => String(p)).join('/')}`, MANAGEMENT_NAMESPACE);

/** A rule's ask as a copy action the executor carries out. */
export const copyActionOf = (
  copierId: string,
  ask: { readonly feature: ActiveFeature; readonly action: ManagedAction },
): OpenAction | ModifyAction | CloseAction | CancelAction | SkipAction => {
  const { action, feature } = ask;
  switch (action.kind) {
    case 'modify':
      return {
        type: 'modify',
        clientOrderId: id(copierId, ['modify', action.slavePositionId, action.stopLoss, action.takeProfit]),
        masterPositionId: action.masterPositionId,
        symbol: action.symbol,
        slavePositionId: action.slavePositionId,
        stopLoss: action.stopLoss,
        takeProfit: action.takeProfit,
        openPrice: null,
      };
    case 'close':
      return {
        type: 'close',
        clientOrderId: id(copierId, ['close', action.slavePositionId, feature.featureId]),
        masterPositionId: action.masterPositionId,
        symbol: action.symbol,
        slavePositionId: action.slavePositionId,
        volume: action.volume,
      };
    case 'cancel':
      return {
        type: 'cancel',
        clientOrderId: id(copierId, ['cancel', action.slavePositionId, feature.featureId]),
        masterPositionId: action.masterPositionId,
        symbol: action.symbol,
        slavePositionId: action.slavePositionId,
      };
    case 'reopen':
      return {
        type: 'open',
        clientOrderId: id(copierId, ['reopen', action.masterPositionId, feature.featureId, action.key]),
        masterPositionId: action.masterPositionId,
        symbol: action.symbol,
        orderType: action.side,
        volume: action.volume,
        openPrice: null,
        stopLoss: action.stopLoss,
        takeProfit: action.takeProfit,
        comment: null,
        magicNumber: null,
        replacesPendingOrderId: null,
      };
    case 'standaloneOpen':
      // The key is in the id: the same standalone trade is one request, after a restart too.
      return {
        type: 'open',
        clientOrderId: id(copierId, ['standalone', action.masterPositionId]),
        masterPositionId: action.masterPositionId,
        symbol: action.symbol,
        orderType: action.side,
        volume: action.volume,
        openPrice: null,
        stopLoss: null,
        takeProfit: null,
        comment: null,
        magicNumber: null,
        replacesPendingOrderId: null,
      };
    case 'skip':
      return { type: 'skip', masterPositionId: action.masterPositionId, reason: action.reason, message: action.message, wouldHave: [] };
  }
};
