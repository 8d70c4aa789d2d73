// What a chat signal does on its trading account, through the Trading API's path as the charting
// webhook's alerts do (app/chartingWebhook/alerts.ts): the account's own venue session, the record of
// who asked (app/commands/tradeRequests.ts), client order ids fixed per message (a replayed message
// places, closes or modifies nothing twice: the venue answers a repeated id with the first result).
// Sizing by volumeMode, then domain/chartingWebhook/plan.ts (one position per take profit, the legs
// rounded to the lot step and capped by maxAllowedVolume and the symbol's maximum): a message can never
// open more than those caps, whatever it says.
import type { OpenAlert } from '../../domain/chartingWebhook/message.js';
import { planOpen } from '../../domain/chartingWebhook/plan.js';
import { floorToStep } from '../../domain/copy/rounding.js';
import type { RiskPerTradeSettings } from '../../domain/copy/features/riskPerTrade.js';
import { membersOf } from '../../domain/feature/definition.js';
import type { MessageOutcome } from '../../domain/messaging/events.js';
import { messageOrderId } from '../../domain/messaging/decider.js';
import { type MessagingConnectorSettings, positionCommentOf } from '../../domain/messaging/feature.js';
import type { CloseSignal, ModifySignal, OpenSignal } from '../../domain/messaging/signal.js';
import { systemContext } from '../../domain/shared/command.js';
import { DomainError } from '../../domain/shared/errors.js';
import { exact, toNumber } from '../../domain/shared/decimal.js';
import { pointValueOf } from '../../engine/copy/accountViews.js';
import type { VenuePosition } from '../../engine/venues/port.js';
import { findAccount } from '../../projections/accounts/queries.js';
import { accountFeatureRows } from '../../projections/features/queries.js';
import { recordTradeRejection, recordTradeRequest } from '../commands/tradeRequests.js';
import type { Services } from '../services.js';
import { openRequestOf, type OrderToPlace, venueOrderOf } from '../trading/orders.js';
import { refuseOpenWhileLocked, TradingRefusal, type TradingSession, tradingSession } from '../trading/session.js';

export interface ConnectorTarget {
  readonly featureId: string;
  readonly accountId: string;
  readonly projectId: string;
  readonly settings: MessagingConnectorSettings;
}

export interface TradeResult {
  readonly outcomes: MessageOutcome[];
  readonly positionIds: string[];
}

const outcome = (o: Partial<MessageOutcome> & Pick<MessageOutcome, 'kind' | 'message'>): MessageOutcome => ({
  positionId: null,
  volume: null,
  code: null,
  ...o,
});
const refused = (code: string, message: string, positionId: string | null = null): MessageOutcome => outcome({ kind: 'REFUSED', code, message, positionId });

const failureOf = (error: unknown): { code: string; message: string } => {
  if (error instanceof DomainError) return { code: error.code, message: error.message };
  return { code: '[BROKER_ERROR]', message: error instanceof Error ? error.message : String(error) };
};

const sessionOf = async (services: Services, target: ConnectorTarget): Promise<{ connection: TradingSession; accountTypeId: number } | MessageOutcome> => {
  const account = await findAccount(services.db, target.projectId, target.accountId);
  if (!account) return refused('[ACCOUNT_NOT_FOUND]', `account ${target.accountId} not found`);
  try {
    return { connection: tradingSession(services, target.accountId, account, true), accountTypeId: account.account_type_id };
  } catch (error) {
    const { code, message } = failureOf(error);
    return refused(code, message);
  }
};

const riskPerTradeOf = async (services: Services, target: ConnectorTarget, symbol: string): Promise<RiskPerTradeSettings | null> => {
  const row = (await accountFeatureRows(services.db, target.projectId, target.accountId)).find((r) => r.type === 'FeatureRiskPerTradeDTO');
  if (!row) return null;
  const settings = membersOf<RiskPerTradeSettings>(row.setting);
  const own = Object.entries(settings.symbolsConfiguration ?? {}).find(([s]) => s.toLowerCase() === symbol.toLowerCase())?.[1];
  return own ? { ...settings, ...own } : settings;
};

const context = (logId: string) => systemContext(`messaging-${logId}`);

/** Opens what an open signal asks, sized by the connector's volumeMode; `suggested` is the model's (or the text's) lots. */
export const openSignal = async (services: Services, target: ConnectorTarget, logId: string, messageId: string, signal: OpenSignal): Promise<TradeResult> => {
  const session = await sessionOf(services, target);
  if ('kind' in session) return { outcomes: [session], positionIds: [] };
  const { connection } = session;
  const s = target.settings;
  try {
    const info = await connection.symbolInfo(signal.symbol);
    const [quote, account] = await Promise.all([connection.quote(signal.symbol), connection.accountInformation()]);
    await refuseOpenWhileLocked(services, target.accountId, signal.symbol);
    let sizing: OpenAlert['sizing'];
    switch (s.volumeMode) {
      case 'FIXED':
        sizing = { kind: 'volume', value: s.fixedVolume };
        break;
      case 'BALANCE_SCALED':
        sizing = { kind: 'volume', value: (s.fixedVolume * account.balance) / s.balanceReference };
        break;
      case 'AI':
        sizing = { kind: 'volume', value: signal.volume ?? s.fixedVolume };
        break;
      case 'RISK_PERCENT':
      case 'RISK_AMOUNT':
        if (signal.stopLoss === null)
          return { outcomes: [refused('[SIGNAL_REFUSED]', `${s.volumeMode} sizes by the stop loss: the signal has none`)], positionIds: [] };
        sizing = s.volumeMode === 'RISK_PERCENT' ? { kind: 'riskPercent', value: s.riskPercent } : { kind: 'riskAmount', value: s.riskAmount };
        break;
      case 'MARGIN_PERCENT': {
        const perLot = await connection.marginRequired(signal.symbol, signal.side, 1);
        if (!(perLot > 0)) return { outcomes: [refused('[SIGNAL_REFUSED]', `no margin per lot of ${signal.symbol} to size MARGIN_PERCENT`)], positionIds: [] };
        sizing = { kind: 'volume', value: (Math.max(0, account.freeMargin) * s.marginPercent) / 100 / perLot };
        break;
      }
    }
    if (!(sizing.value > 0) || !Number.isFinite(sizing.value))
      return { outcomes: [refused('[SIGNAL_REFUSED]', `${s.volumeMode} sizes ${sizing.value} lots: nothing to open`)], positionIds: [] };
    const risk = sizing.kind !== 'volume';
    const plan = planOpen(
      {
        action: 'open',
        symbol: signal.symbol,
        side: signal.side,
        entry: signal.orderType === 'market' ? { kind: 'market' } : { kind: signal.orderType, price: signal.entry! },
        sizing,
        stopLoss: signal.stopLoss !== null ? { kind: 'price', value: signal.stopLoss } : null,
        takeProfits: signal.takeProfits.map((value) => ({ kind: 'price', value })),
        comment: null,
      },
      {
        symbol: info,
        quote,
        cap: s.maxAllowedVolume > 0 ? s.maxAllowedVolume : null,
        riskPerTrade: risk ? await riskPerTradeOf(services, target, signal.symbol) : null,
        balance: account.balance,
        venuePointValue: risk ? await pointValueOf(connection, signal.symbol, account.currency) : null,
      },
    );
    if (!plan.ok) return { outcomes: [refused('[SIGNAL_REFUSED]', plan.reason)], positionIds: [] };
    const outcomes: MessageOutcome[] = [];
    const positionIds: string[] = [];
    for (const leg of plan.legs) {
      const toPlace: OrderToPlace = {
        symbol: signal.symbol,
        orderType: leg.orderType,
        volume: leg.volume,
        openPrice: leg.openPrice,
        stopLoss: leg.stopLoss,
        takeProfit: leg.takeProfit,
        comment: positionCommentOf(messageId, s.connectorIndex),
        magicNumber: null,
        pendingExpirySeconds: null,
        relativeTpSl: false,
      };
      const requestId = messageOrderId(logId, `open/${leg.leg}`);
      try {
        const { order, expiry } = await venueOrderOf(services, session.accountTypeId, connection, toPlace);
        const metadata = await recordTradeRequest(services, {
          accountId: target.accountId,
          requestId,
          fingerprint: null,
          request: openRequestOf(toPlace, order, expiry, false),
          context: { ...context(logId), projectId: target.projectId },
        });
        try {
          const result = await connection.placeOrder(order, requestId);
          const id = result.status === 'filled' ? (result.positionId ?? result.orderId) : result.orderId;
          positionIds.push(id);
          outcomes.push(
            outcome({
              kind: result.status === 'filled' ? 'OPENED' : 'PLACED',
              positionId: id,
              volume: order.volume,
              message: `${leg.orderType} ${order.volume} ${signal.symbol}${plan.legs.length > 1 ? ` (take profit ${leg.leg})` : ''}`,
            }),
          );
        } catch (error) {
          if (error instanceof TradingRefusal) await recordTradeRejection(services, { accountId: target.accountId, requestId, refusal: error }, metadata);
          throw error;
        }
      } catch (error) {
        const { code, message } = failureOf(error);
        outcomes.push(refused(code, message));
      }
    }
    return { outcomes, positionIds };
  } catch (error) {
    const { code, message } = failureOf(error);
    return { outcomes: [refused(code, message)], positionIds: [] };
  }
};

/** The positions a management signal applies to: the replied-to signal's, else the symbol's positions this connector opened. */
const positionsFor = async (
  connection: TradingSession,
  target: ConnectorTarget,
  parentIds: readonly string[] | null,
  symbol: string | null,
): Promise<VenuePosition[] | string> => {
  const book = await connection.positions();
  if (parentIds !== null) {
    const mine = book.filter((p) => parentIds.includes(p.id));
    return mine.length > 0 ? mine : 'the positions of the signal replied to are closed';
  }
  if (symbol === null) return 'neither a reply to a signal nor a symbol: which trade is meant is not known';
  const tag = ` C${target.settings.connectorIndex ?? 0}`;
  const mine = book.filter((p) => p.symbol.toUpperCase() === symbol && (p.comment ?? '').startsWith('chat ') && (p.comment ?? '').endsWith(tag));
  return mine.length > 0 ? mine : `no open position of ${symbol} opened by this connector`;
};

/** Closes all or part of a signal's positions (a reply "close half"), or of a symbol's positions this connector opened. */
export const closeSignal = async (
  services: Services,
  target: ConnectorTarget,
  logId: string,
  parentIds: readonly string[] | null,
  signal: CloseSignal,
): Promise<TradeResult> => {
  const session = await sessionOf(services, target);
  if ('kind' in session) return { outcomes: [session], positionIds: [] };
  const { connection } = session;
  try {
    const found = await positionsFor(connection, target, parentIds, signal.symbol);
    if (typeof found === 'string') return { outcomes: [outcome({ kind: 'NOTHING_TO_DO', message: found })], positionIds: [] };
    const outcomes: MessageOutcome[] = [];
    for (const p of found) {
      const requestId = messageOrderId(logId, `close/${p.id}`);
      try {
        let volume: number | undefined;
        if (p.kind === 'position' && signal.fraction < 1) {
          const info = await connection.symbolInfo(p.symbol);
          volume = toNumber(floorToStep(exact(p.volume).times(exact(signal.fraction)), exact(info.volumeStep > 0 ? info.volumeStep : 0.01)));
          if (volume < info.minVolume || volume <= 0) {
            outcomes.push(
              refused(
                '[SIGNAL_REFUSED]',
                `${Math.round(signal.fraction * 100)}% of #${p.id} (${p.volume} lots) is below the symbol's minimum ${info.minVolume}`,
                p.id,
              ),
            );
            continue;
          }
          if (volume >= p.volume) volume = undefined;
        }
        const metadata = await recordTradeRequest(services, {
          accountId: target.accountId,
          requestId,
          fingerprint: null,
          request:
            volume === undefined
              ? { action: 'close', positionId: p.id, pendingOnly: false }
              : { action: 'modify', positionId: p.id, volume: toNumber(exact(p.volume).minus(exact(volume))) },
          context: { ...context(logId), projectId: target.projectId },
        });
        try {
          if (p.kind === 'order') await connection.cancelOrder(p.id, requestId);
          else await connection.closePosition(p.id, volume, requestId);
        } catch (error) {
          if (error instanceof TradingRefusal) await recordTradeRejection(services, { accountId: target.accountId, requestId, refusal: error }, metadata);
          throw error;
        }
        outcomes.push(
          outcome({
            kind: 'CLOSED',
            positionId: p.id,
            volume: volume ?? p.volume,
            message: `${p.kind === 'order' ? 'cancelled' : 'closed'} ${volume ?? p.volume} of #${p.id} ${p.symbol}`,
          }),
        );
      } catch (error) {
        const { code, message } = failureOf(error);
        outcomes.push(refused(code, message, p.id));
      }
    }
    return { outcomes, positionIds: [] };
  } catch (error) {
    const { code, message } = failureOf(error);
    return { outcomes: [refused(code, message)], positionIds: [] };
  }
};

/** Moves stop losses (to the entry, or to a price) and take profits of a signal's positions. */
export const modifySignal = async (
  services: Services,
  target: ConnectorTarget,
  logId: string,
  parentIds: readonly string[] | null,
  signal: ModifySignal,
  /** An edited signal: each leg's own take profit, in the order they were opened. */
  takeProfits: readonly number[] = [],
): Promise<TradeResult> => {
  const session = await sessionOf(services, target);
  if ('kind' in session) return { outcomes: [session], positionIds: [] };
  const { connection } = session;
  try {
    const found = await positionsFor(connection, target, parentIds, signal.symbol);
    if (typeof found === 'string') return { outcomes: [outcome({ kind: 'NOTHING_TO_DO', message: found })], positionIds: [] };
    const outcomes: MessageOutcome[] = [];
    const ordered = parentIds ? [...found].sort((a, b) => parentIds.indexOf(a.id) - parentIds.indexOf(b.id)) : found;
    for (const [i, p] of ordered.entries()) {
      const takeProfit = takeProfits[i] ?? signal.takeProfit;
      const changes = {
        ...(signal.stopLossToEntry ? { stopLoss: p.openPrice } : signal.stopLoss !== null ? { stopLoss: signal.stopLoss } : {}),
        ...(takeProfit !== null && takeProfit !== undefined ? { takeProfit } : {}),
      };
      if (Object.keys(changes).length === 0) continue;
      const requestId = messageOrderId(logId, `modify/${p.id}`);
      try {
        const metadata = await recordTradeRequest(services, {
          accountId: target.accountId,
          requestId,
          fingerprint: null,
          request: { action: 'modify', positionId: p.id, ...changes },
          context: { ...context(logId), projectId: target.projectId },
        });
        try {
          await connection.modifyPosition(p.id, changes, requestId);
        } catch (error) {
          if (error instanceof TradingRefusal) await recordTradeRejection(services, { accountId: target.accountId, requestId, refusal: error }, metadata);
          throw error;
        }
        const words = Object.entries(changes).map(([k, v]) => `${k === 'stopLoss' ? 'stop loss' : 'take profit'} ${v}`);
        outcomes.push(outcome({ kind: 'MODIFIED', positionId: p.id, volume: p.volume, message: `#${p.id}: ${words.join(', ')}` }));
      } catch (error) {
        const { code, message } = failureOf(error);
        outcomes.push(refused(code, message, p.id));
      }
    }
    if (outcomes.length === 0) return { outcomes: [outcome({ kind: 'NOTHING_TO_DO', message: 'no stop loss or take profit to change' })], positionIds: [] };
    return { outcomes, positionIds: [] };
  } catch (error) {
    const { code, message } = failureOf(error);
    return { outcomes: [refused(code, message)], positionIds: [] };
  }
};
