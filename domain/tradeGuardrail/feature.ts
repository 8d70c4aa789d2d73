// FeatureTradeGuardrailsDTO (reference: "trade guardrails feature (account)"; spec: copier): it watches
// open positions and closes those that break a guard, whoever placed them.
//   - maxLotSizeThreshold: an open position above it is closed; with aggregatePerSymbol the lots open on
//     a symbol count together, and the newest positions of the symbol are closed until what stays open
//     is at or below the threshold (our choice where both documents are silent; the oldest stay).
//   - maxOpenTimeSeconds: a position open longer than that (from its open time at the venue) is closed.
//   - 0 turns a guard off; enabled false turns both off; symbolsConfiguration gives a symbol its own
//     members (perSymbol.ts), 0 there turning that guard off for the symbol.
// Scope: on an account (the reference's scope) it watches the account's whole book at its venue: the
// positions the service placed (its copies, API orders) and those placed outside it (a person in the
// broker's terminal, another program). On a copier (the spec's scope, kept) it watches only the slave
// positions that copier opened; those follow their copier's guardrail, not the account's (the most
// specific scope applies, as for every feature). It never refuses an open: it closes what is open.
// The guardrail monitor (engine/protection/tradeGuardrails.ts) applies it every second; the rule is
// rules.ts, the record of its closes the account's `guardrails-<accountId>` stream (events.ts).
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';
import { checkSymbolsConfiguration, withSymbolsConfiguration } from '../copy/features/perSymbol.js';

export const TRADE_GUARDRAILS_TYPE = 'FeatureTradeGuardrailsDTO';

const general = Type.Object({
  enabled: Type.Boolean({ description: 'false: both guards are off (default true)' }),
  maxLotSizeThreshold: Type.Number({
    minimum: 0,
    maximum: 1e6,
    description: 'lots: an open position above it is closed (with aggregatePerSymbol: the lots open on its symbol together); default 0 = deactivated',
  }),
  aggregatePerSymbol: Type.Boolean({
    description:
      'true: the lots open on a symbol count together against maxLotSizeThreshold, and the newest positions of the symbol are closed until the rest is at or below it; default false (each position alone)',
  }),
  maxOpenTimeSeconds: Type.Integer({
    minimum: 0,
    maximum: 31_536_000,
    description: 'seconds a position may stay open before it is closed; default 0 = deactivated (at most a year)',
  }),
});
export type TradeGuardrailsGeneral = Static<typeof general>;
const members = withSymbolsConfiguration(
  general,
  'Per symbol, its own members: e.g. {"EURUSD": {"maxLotSizeThreshold": 1, "maxOpenTimeSeconds": 7200}}; 0 there turns that guard off for the symbol, enabled false both.',
);
export type TradeGuardrailsSettings = Static<typeof members>;

export const TRADE_GUARDRAILS_DEFAULTS: TradeGuardrailsSettings = {
  enabled: true,
  maxLotSizeThreshold: 0,
  aggregatePerSymbol: false,
  maxOpenTimeSeconds: 0,
  symbolsConfiguration: {},
};

export const tradeGuardrailsFeature: FeatureDefinition<TradeGuardrailsSettings> = {
  type: TRADE_GUARDRAILS_TYPE,
  scopes: ['account', 'copier'],
  multiple: false,
  members,
  defaults: TRADE_GUARDRAILS_DEFAULTS,
  description:
    "Closes open positions that break a guard, checked every second. On an account (the reference's scope) it watches every position of the account at its venue, those the service placed and those placed outside it (in the broker's terminal, by another program); on a copier (the spec 1.2.6 also lists that scope) only the slave positions that copier opened, which then follow the copier's guardrail rather than the account's (the most specific scope applies). A position above maxLotSizeThreshold lots is closed; with aggregatePerSymbol the lots open on a symbol count together and its newest positions are closed until the rest is at or below the threshold (our choice: the documents do not say which). A position open longer than maxOpenTimeSeconds (from its open time at the venue) is closed. 0 (the default) deactivates a guard; symbolsConfiguration gives a symbol its own members (0 there: that guard off for the symbol); enabled false turns both off. Opens are never refused. Every close is logged on the account (category PROTECTION, code GUARDRAIL_MAX_LOT_SIZE or GUARDRAIL_MAX_OPEN_TIME) with its reason and whether the position was placed outside the service; each position is closed once, also across restarts (deterministic client request ids).",
  check: (s) => checkSymbolsConfiguration(s),
};
