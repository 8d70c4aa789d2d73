// Builders for the copy rule specs: a master trade, a copier, two accounts and the symbol data, each
// with plain defaults a spec overrides only where its behaviour lives.
import { expect } from 'chai';
import { type CopierSettings, defaultCopierSettings } from '../../../domain/copier/settings.js';
import { decideCopy } from '../../../domain/copy/decision.js';
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

export const trade = <T extends MarketOrderType | PendingOrderType = 'Buy'>(
  overrides: Partial<MasterTrade<T>> = {},
): MasterTrade<T> =>
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
export const masterPendingPlaced = (
  orderType: PendingOrderType,
  overrides: Partial<MasterTrade<PendingOrderType>> = {},
): MasterEvent => ({
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

export interface World {
  readonly settings?: Partial<CopierSettings>;
  readonly overrides?: Readonly<Record<string, string>>;
  readonly master?: Partial<AccountFunds>;
  readonly slave?: Partial<SlaveState>;
  readonly masterSymbol?: Partial<SymbolSpec>;
  readonly slaveSymbols?: readonly SymbolSpec[];
  readonly slaveToMasterRate?: number | null;
}

/** given a copier and both accounts, when a master event, then these actions. */
export const given = (world: World = {}) => {
  const copier: CopierView = {
    id: COPIER_ID,
    settings: copierSettings(world.settings),
    symbolOverrides: world.overrides ?? {},
  };
  const market: MarketData = {
    masterSymbol: symbolSpec(world.masterSymbol),
    slaveSymbols: world.slaveSymbols ?? [symbolSpec()],
    slaveToMasterRate: world.slaveToMasterRate ?? null,
  };
  const accounts = { master: funds(world.master), slave: slaveState(world.slave) };
  return {
    when: (event: MasterEvent) => {
      const actions = decideCopy(event, copier, accounts, market);
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
