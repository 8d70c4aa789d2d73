// The charting webhook's use cases (spec: FeatureChartingWebhookDTO, /webhooks/charting/{webhookId}):
// an alert arrives at a webhook address, is stored as charting data (ChartingAlertReceived), and is
// attempted: its orders go through the Trading API's path (app/trading/orders.ts for the venue order,
// app/commands/tradeRequests.ts for the record of who asked and of a refusal) on the account's own
// venue session, so what it opens is the account's own trade and is copied to its slaves like any
// other. Every attempt is recorded with what it did (ChartingAlertAttempted); what the broker refused
// or did not answer is attempted again by the retry job (retries.ts) while openRetry allows, and a
// close until it is done.
//
// Client order ids are fixed per alert and leg (domain/chartingWebhook/decider.ts), so a retry, a
// second instance or a crash between the order and its record never opens a leg twice: the venue
// answers a repeated id with the first result.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { CHARTING_WEBHOOK, type ChartingWebhookSettings, maskedWebhookId, volumeCapOf } from '../../domain/chartingWebhook/feature.js';
import type { ChartingOutcome, ChartingStatus, ChartingWork } from '../../domain/chartingWebhook/events.js';
import { chartingDataStream } from '../../domain/chartingWebhook/events.js';
import type { ChartingDataCommand } from '../../domain/chartingWebhook/commands.js';
import { chartingDataDecider, chartingEventId, closeRequestId, modifyRequestId, openLegRequestId } from '../../domain/chartingWebhook/decider.js';
import { ALERT_LIMITS, type ChartingAlert, type CloseAlert, type ModifyAlert, type OpenAlert, readAlert } from '../../domain/chartingWebhook/message.js';
import { type LegOrder, planOpen, priceOfLevel } from '../../domain/chartingWebhook/plan.js';
import type { RiskPerTradeSettings } from '../../domain/copy/features/riskPerTrade.js';
import { membersOf } from '../../domain/feature/definition.js';
import type { FeatureSetting } from '../../domain/feature/events.js';
import { type RequestContext, systemContext } from '../../domain/shared/command.js';
import { DomainError } from '../../domain/shared/errors.js';
import { pointValueOf } from '../../engine/copy/accountViews.js';
import { findAccount } from '../../projections/accounts/queries.js';
import { type ChartingDataRow, findChartingData } from '../../projections/chartingData/queries.js';
import { accountFeatureRows } from '../../projections/features/queries.js';
import { handleCommand } from '../../store/commandHandler.js';
import { recordTradeRejection, recordTradeRequest } from '../commands/tradeRequests.js';
import { commandMetadata, type Services, settle } from '../services.js';
import { openRequestOf, type OrderToPlace, venueOrderOf } from '../trading/orders.js';
import { refuseOpenWhileLocked, TradingRefusal, type TradingSession, tradingSession } from '../trading/session.js';
import { chartingRateLimiter } from './rateLimit.js';

/** The spec: a refused open is retried every 30 seconds. */
export const CHARTING_RETRY_INTERVAL_MS = 30_000;

/** How long a venue may take to answer before the attempt counts as unanswered (and is retried). */
const VENUE_ANSWER_MS = 10_000;

export interface ChartingTarget {
  readonly featureId: string;
  readonly accountId: string;
  readonly projectId: string;
  readonly settings: ChartingWebhookSettings;
}

const targetOf = (row: { id: string; account_id: string | null; project_id: string; setting: unknown }): ChartingTarget => ({
  featureId: row.id,
  accountId: row.account_id!,
  projectId: row.project_id,
  settings: membersOf<ChartingWebhookSettings>(row.setting as FeatureSetting),
});

/** The charting webhook a webhookId opens, or null. */
export const findChartingWebhook = async (services: Pick<Services, 'db'>, webhookId: string): Promise<ChartingTarget | null> => {
  const row = await services.db
    .selectFrom('features')
    .select(['id', 'account_id', 'project_id', 'setting'])
    .where('type', '=', CHARTING_WEBHOOK)
    .where('scope_kind', '=', 'account')
    .where(sql<boolean>`setting->>'webhookId' = ${webhookId}`)
    .executeTakeFirst();
  return row ? targetOf(row) : null;
};

const chartingWebhookById = async (services: Pick<Services, 'db'>, featureId: string): Promise<ChartingTarget | null> => {
  const row = await services.db
    .selectFrom('features')
    .select(['id', 'account_id', 'project_id', 'setting'])
    .where('id', '=', featureId)
    .where('type', '=', CHARTING_WEBHOOK)
    .executeTakeFirst();
  return row ? targetOf(row) : null;
};

const run = (services: Services, command: ChartingDataCommand) =>
  handleCommand(services.store, chartingDataStream(command.data.dataId), chartingDataDecider, command, { eventId: chartingEventId });

/** What arrived at a webhook address. */
export interface AlertArrival {
  readonly webhookId: string;
  /** The raw body, already bounded by the route's size limit. */
  readonly body: string;
  readonly declaredJson: boolean;
  readonly context: RequestContext;
}

/**
 * Receives an alert: the webhook it is for (404 [WEBHOOK_NOT_FOUND]), its rate (429 [RATE_LIMITED],
 * not stored), then stored and attempted once; answers the stored charting data after the attempt.
 */
export const receiveChartingAlert = async (services: Services, arrival: AlertArrival): Promise<ChartingDataRow> => {
  const target = await findChartingWebhook(services, arrival.webhookId);
  if (!target) throw new DomainError('notFound', '[WEBHOOK_NOT_FOUND]', 'no charting webhook has this address (it may have been rotated or removed)');
  const wait = chartingRateLimiter.take(target.featureId, target.settings.rateLimitPerMinute);
  if (wait !== null) {
    throw new DomainError(
      'tooManyRequests',
      '[RATE_LIMITED]',
      `this webhook takes ${target.settings.rateLimitPerMinute} alerts a minute (rateLimitPerMinute)`,
      {
        retryAfterSeconds: wait,
      },
    );
  }
  const dataId = randomUUID();
  const read = readAlert(arrival.body, arrival.declaredJson);
  const metadata = commandMetadata(services, { ...arrival.context, projectId: target.projectId });
  const now = new Date(metadata.now);
  const alert = read.ok ? read.alert : null;
  const retryUntil =
    alert?.action === 'open' && target.settings.openRetry ? new Date(now.getTime() + target.settings.openRetryTimeoutInMinutes * 60_000).toISOString() : null;
  await run(services, {
    type: 'ReceiveChartingAlert',
    data: {
      dataId,
      accountId: target.accountId,
      projectId: target.projectId,
      featureId: target.featureId,
      format: read.format,
      message: arrival.body.slice(0, ALERT_LIMITS.text),
      alert,
      retryUntil,
    },
    metadata,
  });
  services.log.info(`charting webhook ${maskedWebhookId(arrival.webhookId)}: alert ${dataId} for account ${target.accountId}`);
  if (!read.ok) {
    await recordAttempt(services, target, dataId, 1, [refusedOutcome('[ALERT_UNREADABLE]', read.reason)], 'REFUSED', NO_REMAINING, null, arrival.context);
  } else {
    await attemptAlert(
      services,
      target,
      { dataId, alert: read.alert, attempt: 1, remaining: null, retryUntil: retryUntil ? new Date(retryUntil) : null, doneBefore: false },
      arrival.context,
      CHARTING_RETRY_INTERVAL_MS,
    );
  }
  await settle(services);
  return (await findChartingData(services.db, target.projectId, target.accountId, dataId))!;
};

/** The next attempt of an alert the retry job found due. */
export const retryChartingAlert = async (services: Services, row: ChartingDataRow, intervalMs: number): Promise<void> => {
  const context = systemContext(`charting-retry-${row.id}`);
  const target = await chartingWebhookById(services, row.feature_id);
  const attempt = row.attempts + 1;
  if (!target || !row.alert) {
    const gaveUp = [...row.remaining.openLegs.map((leg) => gaveUpOutcome(leg, null, 'the charting webhook was removed'))];
    for (const positionId of row.remaining.closePositions) gaveUp.push(gaveUpOutcome(null, positionId, 'the charting webhook was removed'));
    const fake = { featureId: row.feature_id, accountId: row.account_id, projectId: row.project_id } as ChartingTarget;
    const status = row.outcomes.some((o) => DONE.has(o.kind)) ? 'PARTIAL' : 'REFUSED';
    await recordAttempt(services, fake, row.id, attempt, gaveUp, status, NO_REMAINING, null, context);
    await settle(services, ['charting_data']);
    return;
  }
  await attemptAlert(
    services,
    target,
    {
      dataId: row.id,
      alert: row.alert,
      attempt,
      remaining: row.remaining,
      retryUntil: row.retry_until,
      doneBefore: row.outcomes.some((o) => DONE.has(o.kind)),
    },
    context,
    intervalMs,
  );
  // The next look reads the read model: it must show this attempt, or the alert would look due again.
  await settle(services, ['charting_data']);
};

const DONE: ReadonlySet<string> = new Set(['OPENED', 'PLACED', 'CLOSED', 'MODIFIED']);

const NO_REMAINING: ChartingWork = { openLegs: [], closePositions: [] };

const outcome = (o: Partial<ChartingOutcome> & Pick<ChartingOutcome, 'kind' | 'message'>): ChartingOutcome => ({
  leg: null,
  positionId: null,
  volume: null,
  code: null,
  ...o,
});
const refusedOutcome = (code: string, message: string, leg: number | null = null): ChartingOutcome => outcome({ kind: 'REFUSED', code, message, leg });
const gaveUpOutcome = (leg: number | null, positionId: string | null, message: string): ChartingOutcome =>
  outcome({ kind: 'GAVE_UP', leg, positionId, code: '[OPEN_RETRY_EXPIRED]', message });

const recordAttempt = async (
  services: Services,
  target: Pick<ChartingTarget, 'accountId'>,
  dataId: string,
  attempt: number,
  outcomes: readonly ChartingOutcome[],
  status: ChartingStatus,
  remaining: ChartingWork,
  nextAttemptAt: string | null,
  context: RequestContext,
) => {
  await run(services, {
    type: 'RecordChartingAttempt',
    data: { dataId, accountId: target.accountId, attempt, outcomes, status, remaining, nextAttemptAt },
    metadata: commandMetadata(services, context),
  });
};

/** A venue call that does not answer in time fails like a refusal that may be retried. */
const answered = async <T>(work: Promise<T>): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new TradingRefusal('[NOT_CONNECTED]', `the broker did not answer within ${VENUE_ANSWER_MS / 1000} seconds`)),
      VENUE_ANSWER_MS,
    );
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
};

/** What a failure says: the broker's code, or ours. */
const failureOf = (error: unknown): { code: string; message: string } => {
  if (error instanceof DomainError) return { code: error.code, message: error.message };
  return { code: '[BROKER_ERROR]', message: error instanceof Error ? error.message : String(error) };
};

interface Attempt {
  readonly dataId: string;
  readonly alert: ChartingAlert;
  readonly attempt: number;
  /** null: the first attempt (everything the alert asks is to do). */
  readonly remaining: ChartingWork | null;
  readonly retryUntil: Date | null;
  /** An earlier attempt opened, closed or modified something. */
  readonly doneBefore: boolean;
}

interface Result {
  readonly outcomes: ChartingOutcome[];
  /** Work to try again; `retryable` false: given up instead. */
  readonly remaining: ChartingWork;
  readonly done: number;
  readonly refused: number;
}

/** One attempt of an alert, recorded with what it did. */
const attemptAlert = async (services: Services, target: ChartingTarget, item: Attempt, context: RequestContext, intervalMs: number): Promise<void> => {
  const now = services.clock();
  const session = await sessionOf(services, target);
  let result: Result;
  if ('refusal' in session) {
    // No session: nothing was tried; what the alert asks stays to do (the terminal does not answer).
    result = notReachable(item, session.refusal);
  } else {
    const ctx = { services, target, item, connection: session.connection, accountTypeId: session.accountTypeId, context };
    result =
      item.alert.action === 'open'
        ? await attemptOpen(ctx, item.alert)
        : item.alert.action === 'close'
          ? await attemptClose(ctx, item.alert)
          : await attemptModify(ctx, item.alert);
  }
  const outcomes = [...result.outcomes];
  let { remaining } = result;
  const next = new Date(now.getTime() + intervalMs);
  // Opens are retried while openRetry's window runs; closes until they are done.
  if (remaining.openLegs.length > 0 && !(item.retryUntil && next.getTime() <= item.retryUntil.getTime())) {
    const why = item.retryUntil
      ? `given up: the broker kept refusing it until ${item.retryUntil.toISOString()} (openRetryTimeoutInMinutes)`
      : 'not retried: openRetry is off';
    for (const leg of remaining.openLegs) outcomes.push(gaveUpOutcome(leg, null, `open of leg ${leg} ${why}`));
    remaining = { ...remaining, openLegs: [] };
  }
  const pending = remaining.openLegs.length + remaining.closePositions.length > 0;
  if (pending) {
    outcomes.push(
      outcome({
        kind: 'RETRYING',
        message: `tried again at ${next.toISOString()}: ${[...remaining.openLegs.map((l) => `leg ${l}`), ...remaining.closePositions.map((p) => `close #${p}`)].join(', ')}`,
      }),
    );
  }
  const everDone = result.done > 0 || item.doneBefore;
  const shortfall = result.refused > 0 || outcomes.some((o) => o.kind === 'GAVE_UP');
  const status: ChartingStatus = pending ? 'RETRYING' : !everDone ? 'REFUSED' : shortfall ? 'PARTIAL' : 'COMPLETED';
  await recordAttempt(services, target, item.dataId, item.attempt, outcomes, status, remaining, pending ? next.toISOString() : null, context);
};

const sessionOf = async (
  services: Services,
  target: ChartingTarget,
): Promise<{ connection: TradingSession; accountTypeId: number } | { refusal: { code: string; message: string; retryable: boolean } }> => {
  const account = await findAccount(services.db, target.projectId, target.accountId);
  if (!account) return { refusal: { code: '[ACCOUNT_NOT_FOUND]', message: `account ${target.accountId} not found`, retryable: false } };
  try {
    return { connection: tradingSession(services, target.accountId, account, true), accountTypeId: account.account_type_id };
  } catch (error) {
    const { code, message } = failureOf(error);
    // A session that is down is a terminal that does not answer; a deleted account or one whose trading is disabled refuses.
    return { refusal: { code, message, retryable: code === '[ACCOUNT_NOT_CONNECTED]' || code === '[ACCOUNT_NOT_ACTIVE]' } };
  }
};

const notReachable = (item: Attempt, refusal: { code: string; message: string; retryable: boolean }): Result => {
  const { alert } = item;
  if (alert.action === 'open') {
    const legs = item.remaining?.openLegs ?? Array.from({ length: Math.max(1, alert.takeProfits.length) }, (_, i) => i + 1);
    return {
      outcomes: legs.map((leg) => refusedOutcome(refusal.code, refusal.message, leg)),
      remaining: refusal.retryable ? { openLegs: legs, closePositions: [] } : NO_REMAINING,
      done: 0,
      refused: legs.length,
    };
  }
  if (alert.action === 'close' && refusal.retryable) {
    // The positions to close are not known without the session: the first attempt with one reads them.
    return {
      outcomes: [refusedOutcome(refusal.code, refusal.message)],
      remaining: item.remaining ?? { openLegs: [], closePositions: ['*'] },
      done: 0,
      refused: 1,
    };
  }
  return { outcomes: [refusedOutcome(refusal.code, refusal.message)], remaining: NO_REMAINING, done: 0, refused: 1 };
};

interface AttemptContext {
  readonly services: Services;
  readonly target: ChartingTarget;
  readonly item: Attempt;
  readonly connection: TradingSession;
  readonly accountTypeId: number;
  readonly context: RequestContext;
}

/** The account-level FeatureRiskPerTradeDTO, with the symbol's own members over the general ones. */
const riskPerTradeOf = async (services: Services, target: ChartingTarget, symbol: string): Promise<RiskPerTradeSettings | null> => {
  const row = (await accountFeatureRows(services.db, target.projectId, target.accountId)).find((r) => r.type === 'FeatureRiskPerTradeDTO');
  if (!row) return null;
  const settings = membersOf<RiskPerTradeSettings>(row.setting);
  const own = Object.entries(settings.symbolsConfiguration ?? {}).find(([s]) => s.toLowerCase() === symbol.toLowerCase())?.[1];
  return own ? { ...settings, ...own } : settings;
};

const attemptOpen = async (ctx: AttemptContext, alert: OpenAlert): Promise<Result> => {
  const { services, target, item, connection } = ctx;
  const legsOfPlan = Math.max(1, alert.takeProfits.length);
  const pendingLegs = item.remaining?.openLegs ?? Array.from({ length: legsOfPlan }, (_, i) => i + 1);
  let info;
  try {
    info = await answered(connection.symbolInfo(alert.symbol));
  } catch (error) {
    const { code, message } = failureOf(error);
    // An unknown symbol is the alert's fault: refused, not retried.
    if (code === '[SYMBOL_NOT_FOUND]')
      return { outcomes: [refusedOutcome(code, `unknown symbol ${alert.symbol}: ${message}`)], remaining: NO_REMAINING, done: 0, refused: 1 };
    return {
      outcomes: pendingLegs.map((leg) => refusedOutcome(code, message, leg)),
      remaining: { openLegs: pendingLegs, closePositions: [] },
      done: 0,
      refused: pendingLegs.length,
    };
  }
  let plan;
  try {
    const [quote, account] = await Promise.all([answered(connection.quote(alert.symbol)), answered(connection.accountInformation())]);
    // A locked account (risk limit hit, profit target reached) opens nothing, as through the Trading API;
    // the lock may end within openRetryTimeoutInMinutes, so the legs are retried.
    await refuseOpenWhileLocked(services, target.accountId, alert.symbol);
    const riskPerTrade = alert.sizing.kind === 'volume' ? null : await riskPerTradeOf(services, target, alert.symbol);
    const venuePointValue = alert.sizing.kind === 'volume' ? null : await pointValueOf(connection, alert.symbol, account.currency);
    plan = planOpen(alert, {
      symbol: info,
      quote,
      cap: volumeCapOf(target.settings),
      riskPerTrade,
      balance: account.balance,
      venuePointValue,
    });
  } catch (error) {
    const { code, message } = failureOf(error);
    return {
      outcomes: pendingLegs.map((leg) => refusedOutcome(code, message, leg)),
      remaining: { openLegs: pendingLegs, closePositions: [] },
      done: 0,
      refused: pendingLegs.length,
    };
  }
  if (!plan.ok) return { outcomes: [refusedOutcome('[ALERT_REFUSED]', plan.reason)], remaining: NO_REMAINING, done: 0, refused: 1 };
  const outcomes: ChartingOutcome[] = [];
  const failed: number[] = [];
  for (const leg of plan.legs.filter((l) => pendingLegs.includes(l.leg))) {
    try {
      outcomes.push(await placeLeg(ctx, alert, leg));
    } catch (error) {
      const { code, message } = failureOf(error);
      outcomes.push(refusedOutcome(code, message, leg.leg));
      failed.push(leg.leg);
    }
  }
  return { outcomes, remaining: { openLegs: failed, closePositions: [] }, done: outcomes.length - failed.length, refused: failed.length };
};

/** One leg through the Trading API's path: the venue order, the record of the request, the order, a refusal recorded. */
const placeLeg = async (ctx: AttemptContext, alert: OpenAlert, leg: LegOrder): Promise<ChartingOutcome> => {
  const { services, target, item, connection, context } = ctx;
  const toPlace: OrderToPlace = {
    symbol: alert.symbol,
    orderType: leg.orderType,
    volume: leg.volume,
    openPrice: leg.openPrice,
    stopLoss: leg.stopLoss,
    takeProfit: leg.takeProfit,
    comment: alert.comment,
    magicNumber: null,
    pendingExpirySeconds: null,
    relativeTpSl: false,
  };
  const { order, expiry } = await venueOrderOf(services, ctx.accountTypeId, connection, toPlace);
  const requestId = openLegRequestId(item.dataId, leg.leg);
  const metadata = await recordTradeRequest(services, {
    accountId: target.accountId,
    requestId,
    fingerprint: null,
    request: openRequestOf(toPlace, order, expiry, false),
    context: { ...context, projectId: target.projectId },
  });
  try {
    const result = await answered(connection.placeOrder(order, requestId));
    const legWords = Math.max(1, alert.takeProfits.length) > 1 ? ` (leg ${leg.leg})` : '';
    if (result.status === 'filled') {
      return outcome({
        kind: 'OPENED',
        leg: leg.leg,
        positionId: result.positionId ?? result.orderId,
        volume: result.volume,
        message: `${leg.orderType} ${result.volume} ${alert.symbol} at ${result.price}${legWords}`,
      });
    }
    return outcome({
      kind: 'PLACED',
      leg: leg.leg,
      positionId: result.orderId,
      volume: order.volume,
      message: `${leg.orderType} ${order.volume} ${alert.symbol} at ${leg.openPrice}${legWords}`,
    });
  } catch (error) {
    if (error instanceof TradingRefusal) await recordTradeRejection(services, { accountId: target.accountId, requestId, refusal: error }, metadata);
    throw error;
  }
};

const sideOf = (orderType: string): 'buy' | 'sell' => (orderType.toLowerCase().startsWith('buy') ? 'buy' : 'sell');

const attemptClose = async (ctx: AttemptContext, alert: CloseAlert): Promise<Result> => {
  const { services, target, item, connection, context } = ctx;
  let items;
  try {
    items = await answered(connection.positions());
  } catch (error) {
    const { code, message } = failureOf(error);
    return { outcomes: [refusedOutcome(code, message)], remaining: item.remaining ?? { openLegs: [], closePositions: ['*'] }, done: 0, refused: 1 };
  }
  // The first attempt closes what is open on the symbol now; retries only what the first one found.
  const wanted = item.remaining && !item.remaining.closePositions.includes('*') ? new Set(item.remaining.closePositions) : null;
  const targets = items.filter((p) =>
    wanted ? wanted.has(p.id) : p.symbol.toUpperCase() === alert.symbol && (alert.side === null || sideOf(p.orderType) === alert.side),
  );
  if (targets.length === 0) {
    const words = wanted
      ? 'the positions were closed meanwhile'
      : `no open position or pending order of ${alert.symbol}${alert.side ? ` (${alert.side})` : ''}`;
    return { outcomes: [outcome({ kind: 'NOTHING_TO_DO', message: words })], remaining: NO_REMAINING, done: 1, refused: 0 };
  }
  const outcomes: ChartingOutcome[] = [];
  const failed: string[] = [];
  for (const p of targets) {
    const requestId = closeRequestId(item.dataId, p.id);
    const metadata = await recordTradeRequest(services, {
      accountId: target.accountId,
      requestId,
      fingerprint: null,
      request: { action: 'close', positionId: p.id, pendingOnly: false },
      context: { ...context, projectId: target.projectId },
    });
    try {
      if (p.kind === 'order') await answered(connection.cancelOrder(p.id, requestId));
      else await answered(connection.closePosition(p.id, undefined, requestId));
      outcomes.push(
        outcome({
          kind: 'CLOSED',
          positionId: p.id,
          volume: p.volume,
          message: `${p.kind === 'order' ? 'cancelled' : 'closed'} #${p.id} ${p.volume} ${p.symbol}`,
        }),
      );
    } catch (error) {
      const { code, message } = failureOf(error);
      if (code === '[POSITION_NOT_FOUND]' || code === '[ORDER_NOT_FOUND]') {
        outcomes.push(outcome({ kind: 'NOTHING_TO_DO', positionId: p.id, message: `#${p.id} was closed meanwhile` }));
        continue;
      }
      if (error instanceof TradingRefusal) await recordTradeRejection(services, { accountId: target.accountId, requestId, refusal: error }, metadata);
      outcomes.push(outcome({ kind: 'REFUSED', positionId: p.id, code, message }));
      failed.push(p.id);
    }
  }
  return { outcomes, remaining: { openLegs: [], closePositions: failed }, done: outcomes.length - failed.length, refused: failed.length };
};

const attemptModify = async (ctx: AttemptContext, alert: ModifyAlert): Promise<Result> => {
  const { services, target, item, connection, context } = ctx;
  let items;
  let info;
  try {
    items = await answered(connection.positions());
    info = await answered(connection.symbolInfo(alert.symbol));
  } catch (error) {
    const { code, message } = failureOf(error);
    return { outcomes: [refusedOutcome(code, message)], remaining: NO_REMAINING, done: 0, refused: 1 };
  }
  const targets = items.filter((p) => p.symbol.toUpperCase() === alert.symbol && (alert.side === null || sideOf(p.orderType) === alert.side));
  if (targets.length === 0) {
    return {
      outcomes: [outcome({ kind: 'NOTHING_TO_DO', message: `no open position or pending order of ${alert.symbol} to modify` })],
      remaining: NO_REMAINING,
      done: 0,
      refused: 1,
    };
  }
  const outcomes: ChartingOutcome[] = [];
  let refused = 0;
  for (const p of targets) {
    const buy = sideOf(p.orderType) === 'buy';
    const changes = {
      ...(alert.stopLoss ? { stopLoss: priceOfLevel(alert.stopLoss, p.openPrice, !buy, info) } : {}),
      ...(alert.takeProfit ? { takeProfit: priceOfLevel(alert.takeProfit, p.openPrice, buy, info) } : {}),
    };
    const requestId = modifyRequestId(item.dataId, p.id);
    const metadata = await recordTradeRequest(services, {
      accountId: target.accountId,
      requestId,
      fingerprint: null,
      request: { action: 'modify', positionId: p.id, ...changes },
      context: { ...context, projectId: target.projectId },
    });
    try {
      await answered(connection.modifyPosition(p.id, changes, requestId));
      const words = [
        changes.stopLoss !== undefined ? `stop loss ${changes.stopLoss}` : null,
        changes.takeProfit !== undefined ? `take profit ${changes.takeProfit}` : null,
      ]
        .filter(Boolean)
        .join(', ');
      outcomes.push(outcome({ kind: 'MODIFIED', positionId: p.id, volume: p.volume, message: `#${p.id}: ${words}` }));
    } catch (error) {
      const { code, message } = failureOf(error);
      if (error instanceof TradingRefusal) await recordTradeRejection(services, { accountId: target.accountId, requestId, refusal: error }, metadata);
      outcomes.push(outcome({ kind: 'REFUSED', positionId: p.id, code, message }));
      refused += 1;
    }
  }
  return { outcomes, remaining: NO_REMAINING, done: outcomes.length - refused, refused };
};
