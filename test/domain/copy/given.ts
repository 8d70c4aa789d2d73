// Builders for the copy rule specs: a master trade, a copier, two accounts and the symbol data, each
// with plain defaults a spec overrides only where its behaviour lives.
import { expect } from 'chai';
import { type CopierSettings, defaultCopierSettings } from '../../../domain/copier/settings.js';
import { decideCopy, type FeatureInputs, NO_FEATURES } from '../../../domain/copy/decision.js';
import type {
  AccountPosition,
  ApprovalDecision,
  CopierFeature,
  CopyRecord,
  ManageContext,
  ManagedAction,
  ManagedCopy,
  MasterOrderRecord,
  QuoteView,
  SlaveAccountView,
} from '../../../domain/copy/features/rules.js';
import type {
  AccountFunds,
  CopierView,
  CopyAction,
  MarketData,
  MasterEvent,
  MasterTrade,
  MarketOrderType,
  PendingOrderType,
  SkipReason,
  SlaveCopy,
  SlaveState,
  SymbolSpec,
} from '../../../domain/copy/types.js';

export const COPIER_ID = '0b7e3c52-5c1e-4d8e-9a44-6f3f1d2b9a01';
export const EVENT_ID = '5d0f6a1e-2a8b-4c3d-8e9f-1a2b3c4d5e6f';
export const MASTER_POSITION = 'm-1001';
export const SLAVE_POSITION = 's-2002';

export const symbolSpec = (overrides: Partial<SymbolSpec> = {}): SymbolSpec => ({
  symbol: 'EURUSD',
  minLot: 0.01,
  maxLot: 100,
  lotStep: 0.01,
  digits: 5,
  point: 0.00001,
  contractSize: 100_000,
  ...overrides,
});

export const copierSettings = (overrides: Partial<CopierSettings> = {}): CopierSettings => ({
  ...defaultCopierSettings,
  ...overrides,
});

export const funds = (overrides: Partial<AccountFunds> = {}): AccountFunds => ({
  balance: 10_000,
  equity: 10_000,
  currency: 'USD',
  ...overrides,
});

export const slaveState = (overrides: Partial<SlaveState> = {}): SlaveState => ({
  ...funds(),
  copies: [],
  martingale: { consecutiveLosses: 0 },
  ...overrides,
});

export const slaveCopy = (overrides: Partial<SlaveCopy> = {}): SlaveCopy => ({
  masterPositionId: MASTER_POSITION,
  slavePositionId: SLAVE_POSITION,
  kind: 'position',
  symbol: 'EURUSD',
  orderType: 'Buy',
  volume: 1,
  ...overrides,
});

export const trade = <T extends MarketOrderType | PendingOrderType = 'Buy'>(overrides: Partial<MasterTrade<T>> = {}): MasterTrade<T> =>
  ({
    masterPositionId: MASTER_POSITION,
    symbol: 'EURUSD',
    orderType: 'Buy',
    volume: 1,
    openPrice: 1.1,
    stopLoss: 1.095,
    takeProfit: 1.11,
    comment: 'breakout',
    magicNumber: 42,
    ...overrides,
  }) as MasterTrade<T>;

const ref = { masterPositionId: MASTER_POSITION, symbol: 'EURUSD' };

export const masterOpened = (overrides: Partial<MasterTrade<MarketOrderType>> = {}): MasterEvent => ({
  type: 'MasterPositionOpened',
  eventId: EVENT_ID,
  data: trade<MarketOrderType>(overrides),
});
export const masterModified = (stopLoss: number | null, takeProfit: number | null): MasterEvent => ({
  type: 'MasterPositionModified',
  eventId: EVENT_ID,
  data: { ...ref, stopLoss, takeProfit },
});
export const masterPartiallyClosed = (closedVolume: number, remainingVolume: number): MasterEvent => ({
  type: 'MasterPositionPartiallyClosed',
  eventId: EVENT_ID,
  data: { ...ref, closedVolume, remainingVolume },
});
export const masterClosed = (): MasterEvent => ({ type: 'MasterPositionClosed', eventId: EVENT_ID, data: ref });
export const masterPendingPlaced = (orderType: PendingOrderType, overrides: Partial<MasterTrade<PendingOrderType>> = {}): MasterEvent => ({
  type: 'MasterPendingOrderPlaced',
  eventId: EVENT_ID,
  data: trade<PendingOrderType>({ orderType, ...overrides }),
});
export const masterPendingModified = (openPrice: number, stopLoss: number | null, takeProfit: number | null): MasterEvent => ({
  type: 'MasterPendingOrderModified',
  eventId: EVENT_ID,
  data: { ...ref, openPrice, stopLoss, takeProfit },
});
export const masterPendingCancelled = (): MasterEvent => ({ type: 'MasterPendingOrderCancelled', eventId: EVENT_ID, data: ref });
export const masterPendingFilled = (overrides: Partial<MasterTrade<MarketOrderType>> = {}): MasterEvent => ({
  type: 'MasterPendingOrderFilled',
  eventId: EVENT_ID,
  data: trade<MarketOrderType>(overrides),
});

/** A feature as a spec configures it: the catalogue's entry, its members (defaults filled in), its resets. */
export interface Configured {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each spec's feature has its own settings type
  readonly feature: CopierFeature<any>;
  readonly settings: object;
  readonly resets?: Readonly<Record<string, string>>;
  /** When the feature was added (ActiveFeature.configuredAt). */
  readonly configuredAt?: string;
}

export const NOW = '2026-01-07T10:00:00.000Z';

/** A copy in the copier's history. */
export const record = (overrides: Partial<CopyRecord> = {}): CopyRecord => ({
  masterPositionId: 'm-900',
  slavePositionId: 's-900',
  symbol: 'EURUSD',
  side: 'Buy',
  volume: 1,
  openedAt: '2026-01-07T09:00:00.000Z',
  closedAt: '2026-01-07T09:30:00.000Z',
  result: 10,
  closedBy: 'COPIER',
  ...overrides,
});

export interface World {
  readonly settings?: Partial<CopierSettings>;
  readonly features?: readonly Configured[];
  readonly history?: readonly CopyRecord[];
  readonly now?: string;
  readonly eventTime?: string | null;
  readonly deferredBy?: readonly string[];
  readonly quotes?: { readonly master?: QuoteView | null; readonly slave?: QuoteView | null };
  readonly slaveAccount?: SlaveAccountView | null;
  readonly marginPerLot?: number | null;
  readonly overrides?: Readonly<Record<string, string>>;
  readonly master?: Partial<AccountFunds>;
  readonly slave?: Partial<SlaveState>;
  readonly masterSymbol?: Partial<SymbolSpec>;
  readonly slaveSymbols?: readonly SymbolSpec[];
  readonly slaveToMasterRate?: number | null;
  /** The slave's quote the engine reads for a copier with a maxSlippage. */
  readonly slaveQuote?: QuoteView | null;
  readonly approval?: ApprovalDecision | null;
  readonly slavePositions?: readonly AccountPosition[] | null;
  readonly pointValue?: number | null;
  /** The master's orders on the trade's symbol (features that need 'masterOrders'). */
  readonly masterOrders?: readonly MasterOrderRecord[];
  /** On a master's stop change: the master position's and the slave positions' open prices (features that need 'openPrices'). */
  readonly openPrices?: FeatureInputs['openPrices'];
  /** A strategy copier's routing by key. */
  readonly strategy?: CopierView['strategy'];
}

/**
 * The copier of these specs: the defaults, but copying pending orders (skipPendingOrders false) so the
 * rules can be seen on them too; decision.unit.spec.ts pins the default (pending orders skipped).
 */
export const SPEC_COPIER: Partial<CopierSettings> = { skipPendingOrders: false };

/** given a copier and both accounts, when a master event, then these actions. */
export const given = (world: World = {}) => {
  const copier: CopierView = {
    id: COPIER_ID,
    settings: copierSettings({ ...SPEC_COPIER, ...world.settings }),
    symbolOverrides: world.overrides ?? {},
    ...(world.strategy ? { strategy: world.strategy } : {}),
  };
  const market: MarketData = {
    masterSymbol: symbolSpec(world.masterSymbol),
    slaveSymbols: world.slaveSymbols ?? [symbolSpec()],
    slaveToMasterRate: world.slaveToMasterRate ?? null,
    slaveQuote: world.slaveQuote ?? null,
  };
  const accounts = { master: funds(world.master), slave: slaveState(world.slave) };
  const features: FeatureInputs = {
    ...NO_FEATURES,
    active: (world.features ?? []).map((f, i) => ({
      featureId: `f-${i}`,
      feature: f.feature,
      settings: { ...f.feature.defaults, ...f.settings },
      resets: f.resets ?? {},
      ...(f.configuredAt === undefined ? {} : { configuredAt: f.configuredAt }),
    })),
    now: world.now ?? NOW,
    history: world.history ?? [],
    quotes: { master: world.quotes?.master ?? null, slave: world.quotes?.slave ?? null },
    slaveAccount: world.slaveAccount ?? null,
    marginPerLot: world.marginPerLot ?? null,
    deferredBy: world.deferredBy ?? [],
    eventTime: world.eventTime === undefined ? NOW : world.eventTime,
    approval: world.approval ?? null,
    slavePositions: world.slavePositions ?? null,
    pointValue: world.pointValue ?? null,
    masterOrders: world.masterOrders ?? null,
    openPrices: world.openPrices ?? null,
  };
  return {
    when: (event: MasterEvent) => {
      const actions = decideCopy(event, copier, accounts, market, features);
      return {
        actions,
        /** Each expected object is a subset of the action at its place; the counts are equal. */
        then: (expected: readonly Partial<Record<string, unknown>>[]) => {
          expect(actions.map((action) => action.type)).to.deep.equal(expected.map((action) => action.type));
          expected.forEach((fields, index) => expect(actions[index]).to.deep.include(fields));
          return actions;
        },
        thenSkips: (reason: SkipReason, message?: RegExp) => {
          expect(actions).to.have.length(1);
          const [action] = actions as [CopyAction];
          expect(action.type).to.equal('skip');
          if (action.type !== 'skip') throw new Error('unreachable');
          expect(action.reason).to.equal(reason);
          expect(action.masterPositionId).to.equal(MASTER_POSITION);
          if (message) expect(action.message).to.match(message);
          return action;
        },
      };
    },
  };
};

/** A slave position as management sees it. */
export const managed = (overrides: Partial<ManagedCopy> = {}): ManagedCopy => ({
  masterPositionId: MASTER_POSITION,
  slavePositionId: SLAVE_POSITION,
  symbol: 'EURUSD',
  side: 'Buy',
  volume: 1,
  openPrice: 1.1,
  openTime: '2026-01-07T09:00:00.000Z',
  stopLoss: null,
  takeProfit: 1.11,
  currentPrice: 1.1,
  profit: 0,
  swap: 0,
  spec: symbolSpec({ stopsLevel: 0 }),
  ...overrides,
});

/** What a feature's management asks for, given these copies and that time. */
export const manageWith = (configured: Configured, context: Partial<ManageContext> = {}): readonly ManagedAction[] => {
  const settings = { ...configured.feature.defaults, ...configured.settings };
  const ctx: ManageContext = {
    now: NOW,
    history: [],
    resets: configured.resets ?? {},
    copier: copierSettings(),
    eventTime: null,
    deferredBy: [],
    copies: [],
    masterOpen: new Set(),
    masterPositions: [],
    quotes: new Map(),
    specs: new Map([['EURUSD', symbolSpec({ stopsLevel: 0 })]]),
    ...context,
  };
  return configured.feature.rules.manage!(settings, ctx, 'f-0');
};
