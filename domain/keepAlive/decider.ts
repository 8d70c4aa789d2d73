// An account's keep-alive trades at work (stream `keepAlive-<accountId>`): the keep-alive executor
// (engine/schedule/keepAliveTrades.ts) sends each firing of the account's FeatureKeepAliveTradeDTO with
// what it decided for it (a trade or a skip), the outcome of each order and of each close; the decider
// records a firing once, its outcome once, and each refusal once per code. State keeps what is still
// current: the latest firing of each feature, the trade decided and not yet open, the open trades.
import type { CommandMetadata, Decider } from '../shared/command.js';
import type { KeepAliveEvent, KeepAliveFiring, KeepAliveOrder, KeepAliveSkipReason, KeepAliveTrade } from './events.js';

export type KeepAliveOpenOutcome =
  | { readonly type: 'opened'; readonly positionId: string; readonly price: number; readonly time: string }
  | { readonly type: 'failed'; readonly code: string; readonly message: string; readonly final: boolean };

export type KeepAliveCloseOutcome =
  | { readonly type: 'closed'; readonly closePrice: number | null; readonly result: number | null }
  | { readonly type: 'gone' }
  | { readonly type: 'failed'; readonly code: string; readonly message: string };

export type KeepAliveCommand =
  | {
      type: 'DecideKeepAliveFiring';
      data: KeepAliveFiring & {
        readonly decision:
          | { readonly type: 'trade'; readonly order: Omit<KeepAliveOrder, keyof KeepAliveFiring> }
          | { readonly type: 'skip'; readonly reason: KeepAliveSkipReason; readonly message: string };
      };
      metadata: CommandMetadata;
    }
  | { type: 'RecordKeepAliveOpen'; data: KeepAliveFiring & { readonly outcome: KeepAliveOpenOutcome }; metadata: CommandMetadata }
  | {
      type: 'RecordKeepAliveClose';
      data: { readonly accountId: string; readonly positionId: string; readonly outcome: KeepAliveCloseOutcome };
      metadata: CommandMetadata;
    };

/** How many of the account's latest keep-alive positions are kept (onlyIfInactive leaves them out of the account's activity). */
export const RECENT_TRADES = 50;

export interface KeepAliveState {
  /** By feature: the latest firing decided (a trade or a skip). */
  readonly lastFiring: Readonly<Record<string, string>>;
  /** The trade decided and not open yet, with the code of its last refusal logged. */
  readonly pending: (KeepAliveOrder & { readonly refused: string | null }) | null;
  /** By position id: the open keep-alive trades, with the code of the last refusal of their close logged. */
  readonly open: Readonly<Record<string, KeepAliveTrade & { readonly closeRefused: string | null }>>;
  /** The account's latest keep-alive positions, newest last. */
  readonly recent: readonly string[];
}

export const initialKeepAliveState: KeepAliveState = { lastFiring: {}, pending: null, open: {}, recent: [] };

const without = <T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> => {
  const { [key]: _dropped, ...rest } = record;
  return rest;
};

const samePending = (state: KeepAliveState, f: KeepAliveFiring): boolean =>
  state.pending !== null && state.pending.featureId === f.featureId && state.pending.firing === f.firing;

export const evolve = (state: KeepAliveState, event: KeepAliveEvent): KeepAliveState => {
  switch (event.type) {
    case 'KeepAliveTradeDecided': {
      const { at: _at, ...order } = event.data;
      return { ...state, lastFiring: { ...state.lastFiring, [order.featureId]: order.firing }, pending: { ...order, refused: null } };
    }
    case 'KeepAliveTradeSkipped':
      return { ...state, lastFiring: { ...state.lastFiring, [event.data.featureId]: event.data.firing } };
    case 'KeepAliveTradeOpened': {
      const { at: _at, ...trade } = event.data;
      return {
        ...state,
        pending: samePending(state, trade) ? null : state.pending,
        open: { ...state.open, [trade.positionId]: { ...trade, closeRefused: null } },
        recent: [...state.recent.filter((id) => id !== trade.positionId), trade.positionId].slice(-RECENT_TRADES),
      };
    }
    case 'KeepAliveTradeRefused': {
      const d = event.data;
      if (d.stage === 'open') {
        if (!samePending(state, d)) return state;
        return { ...state, pending: d.final ? null : { ...state.pending!, refused: d.code } };
      }
      const trade = d.positionId === null ? undefined : state.open[d.positionId];
      return trade ? { ...state, open: { ...state.open, [trade.positionId]: { ...trade, closeRefused: d.code } } } : state;
    }
    case 'KeepAliveTradeClosed':
      return { ...state, open: without(state.open, event.data.positionId) };
    default: {
      const unhandled: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unhandled)}`);
    }
  }
};

export const decide = (command: KeepAliveCommand, state: KeepAliveState): KeepAliveEvent[] => {
  const at = command.metadata.now;
  switch (command.type) {
    case 'DecideKeepAliveFiring': {
      const { decision, ...firing } = command.data;
      // Once per firing: a later tick, a replay or a restart decides nothing more for it.
      const last = state.lastFiring[firing.featureId];
      if (last !== undefined && Date.parse(last) >= Date.parse(firing.firing)) return [];
      // One trade at a time: the decided one is placed (or finally refused) first.
      if (state.pending !== null) return [];
      if (decision.type === 'skip') return [{ type: 'KeepAliveTradeSkipped', data: { ...firing, reason: decision.reason, message: decision.message, at } }];
      return [{ type: 'KeepAliveTradeDecided', data: { ...firing, ...decision.order, at } }];
    }
    case 'RecordKeepAliveOpen': {
      const { outcome, ...firing } = command.data;
      if (!samePending(state, firing)) return [];
      const order = state.pending!;
      const { refused: _refused, ...decided } = order;
      if (outcome.type === 'opened') {
        return [{ type: 'KeepAliveTradeOpened', data: { ...decided, positionId: outcome.positionId, price: outcome.price, openedAt: outcome.time, at } }];
      }
      // Tried again every second until the next firing; each refusal logged once, the last one final.
      if (!outcome.final && order.refused === outcome.code) return [];
      return [
        {
          type: 'KeepAliveTradeRefused',
          data: { ...decided, stage: 'open', positionId: null, code: outcome.code, message: outcome.message, final: outcome.final, at },
        },
      ];
    }
    case 'RecordKeepAliveClose': {
      const { positionId, outcome } = command.data;
      const trade = state.open[positionId];
      if (!trade) return [];
      const { closeRefused, ...open } = trade;
      if (outcome.type === 'failed') {
        if (closeRefused === outcome.code) return [];
        return [{ type: 'KeepAliveTradeRefused', data: { ...open, stage: 'close', code: outcome.code, message: outcome.message, final: false, at } }];
      }
      return [
        {
          type: 'KeepAliveTradeClosed',
          data: {
            ...open,
            closePrice: outcome.type === 'closed' ? outcome.closePrice : null,
            result: outcome.type === 'closed' ? outcome.result : null,
            gone: outcome.type === 'gone',
            at,
          },
        },
      ];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const keepAliveDecider: Decider<KeepAliveCommand, KeepAliveEvent, KeepAliveState> = { decide, evolve, initialState: initialKeepAliveState };
