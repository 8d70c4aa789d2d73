// The trade guardrails of one account at work (stream `guardrails-<accountId>`): the guardrail monitor
// (engine/protection/tradeGuardrails.ts) sends the closes the rule (rules.ts) asks for and then the
// outcome of each; the decider records a decision once per position and its outcome once. State keeps
// only the decisions whose close has not finished, and the failure codes already logged for them.
import type { CommandMetadata, Decider } from '../shared/command.js';
import type { GuardrailDecision, GuardrailEvent } from './events.js';

export type CloseOutcome =
  | { readonly type: 'closed'; readonly closePrice: number; readonly result: number }
  | { readonly type: 'gone' }
  | { readonly type: 'failed'; readonly code: string; readonly message: string };

export type GuardrailCommand =
  | { type: 'DecideGuardrailCloses'; data: { accountId: string; closes: readonly GuardrailDecision[] }; metadata: CommandMetadata }
  | { type: 'RecordGuardrailClose'; data: { accountId: string; positionId: string; outcome: CloseOutcome }; metadata: CommandMetadata };

export interface GuardrailState {
  /** By position id: decided, its close not finished yet. */
  readonly pending: Readonly<Record<string, GuardrailDecision>>;
  /** By position id: the failure code last logged for it. */
  readonly failed: Readonly<Record<string, string>>;
}

export const initialGuardrailState: GuardrailState = { pending: {}, failed: {} };

const without = <T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> => {
  const { [key]: _dropped, ...rest } = record;
  return rest;
};

export const evolve = (state: GuardrailState, event: GuardrailEvent): GuardrailState => {
  const { positionId } = event.data;
  switch (event.type) {
    case 'GuardrailCloseDecided': {
      const { at: _at, ...decision } = event.data;
      return { ...state, pending: { ...state.pending, [positionId]: decision } };
    }
    case 'GuardrailPositionClosed':
      return { pending: without(state.pending, positionId), failed: without(state.failed, positionId) };
    case 'GuardrailCloseFailed':
      return { ...state, failed: { ...state.failed, [positionId]: event.data.code } };
  }
};

export const decide = (command: GuardrailCommand, state: GuardrailState): GuardrailEvent[] => {
  const at = command.metadata.now;
  switch (command.type) {
    case 'DecideGuardrailCloses': {
      const seen = new Set<string>();
      const events: GuardrailEvent[] = [];
      for (const close of command.data.closes) {
        if (state.pending[close.positionId] || seen.has(close.positionId)) continue;
        seen.add(close.positionId);
        events.push({ type: 'GuardrailCloseDecided', data: { ...close, at } });
      }
      return events;
    }
    case 'RecordGuardrailClose': {
      const decision = state.pending[command.data.positionId];
      if (!decision) return [];
      const { outcome } = command.data;
      if (outcome.type === 'failed') {
        if (state.failed[decision.positionId] === outcome.code) return [];
        return [{ type: 'GuardrailCloseFailed', data: { ...decision, code: outcome.code, message: outcome.message, at } }];
      }
      const closed = outcome.type === 'closed' ? { closePrice: outcome.closePrice, result: outcome.result } : { closePrice: null, result: null };
      return [{ type: 'GuardrailPositionClosed', data: { ...decision, ...closed, at } }];
    }
  }
};

export const guardrailDecider: Decider<GuardrailCommand, GuardrailEvent, GuardrailState> = { decide, evolve, initialState: initialGuardrailState };
