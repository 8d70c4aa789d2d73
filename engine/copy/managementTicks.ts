// A tick of a copier's management features (trailing stops, scheduled closes, keep-alive trades ...):
// what they ask for is executed and recorded like a copy. An inactive copier manages nothing (a
// standalone keep-alive trade still closes on time); a monitor-only one manages its copies but opens
// nothing new (CopierDTO monitorOnly).
import { v5 as uuidv5 } from 'uuid';
import type { Kysely } from 'kysely';
import type { CopierSettings } from '../../domain/copier/settings.js';
import { type CopyEvent, type CopySource, MANAGEMENT_SOURCE } from '../../domain/copy/events.js';
import { type FeatureNeed, type HistoryNeed, isStandaloneTrade } from '../../domain/copy/features/rules.js';
import { slaveComment, slaveMagicNumber } from '../../domain/copy/labels.js';
import { strategyMagicNumber } from '../../domain/copy/strategyRouting.js';
import type { MasterTrade } from '../../domain/copy/types.js';
import { protectionSkip } from '../../domain/protection/blocks.js';
import { calendarEvents } from '../../projections/calendar/queries.js';
import { partialClosesOf } from '../../projections/history/queries.js';
import type { ReadModels } from '../../projections/schema.js';
import { NEWS_CALENDAR_REACH_MINUTES } from '../../domain/copy/features/newsFilter.js';
import { executeActions } from './executor.js';
import type { HandlerKit } from './handlerKit.js';
import { activeFeatures, copyHistory, type CopierRow, slaveLastTradeAt, standaloneTrades, strategyRoutingOf } from './inputs.js';
import { copyActionOf, manage, managedFeatures } from './management.js';
import { COPY_EVENT_NAMESPACE, NO_POSITION } from './outcomes.js';

/** A management request the venue refused is recorded again only after this long. */
const MANAGEMENT_FAILURE_QUIET_MS = 10 * 60_000;

/** The economic calendar's events a day either side of `now` (features that need 'calendar'). */
const calendarAround = (db: Kysely<ReadModels>, now: Date) => {
  const reach = NEWS_CALENDAR_REACH_MINUTES * 60_000;
  return calendarEvents(db, { from: new Date(now.getTime() - reach).toISOString(), to: new Date(now.getTime() + reach).toISOString() });
};

/** The master's open positions, as the positions read model holds them. */
export const masterPositionsOf = async (db: Kysely<ReadModels>, masterAccountId: string): Promise<MasterTrade[]> => {
  const rows = await db.selectFrom('positions').selectAll().where('account_id', '=', masterAccountId).where('kind', '=', 'position').execute();
  return rows.map((r) => ({
    masterPositionId: r.id,
    symbol: r.symbol,
    orderType: r.order_type as MasterTrade['orderType'],
    volume: r.volume,
    openPrice: r.open_price,
    stopLoss: r.stop_loss,
    takeProfit: r.take_profit,
    comment: r.comment,
    magicNumber: r.magic_number === null ? null : Number(r.magic_number),
  }));
};

type Ask = Awaited<ReturnType<typeof manage>>[number];

export class ManagementTicks {
  private readonly failures = new Map<string, number>();

  constructor(private readonly kit: HandlerKit) {}

  async handle(copierId: string): Promise<void> {
    const { db, clock } = this.kit.deps;
    const copier = await this.kit.inputs.copier(copierId);
    if (!copier) return;
    const active = (await activeFeatures(db, [copier])).get(copier.id) ?? [];
    // The settings the decisions use: a feature (a signal follower) may make the copier monitor-only.
    const settings = active.reduce((current, f) => f.feature.rules.adjustSettings?.(f.settings, current) ?? current, copier.settings as CopierSettings);
    const standalone = await standaloneTrades(db, copier.to_account_id);
    if (!settings.active && !standalone.some((t) => t.closedAt === null)) return;
    if (managedFeatures(active).length === 0) return;
    const slave = await this.kit.inputs.slave(copier.to_account_id);
    if (!slave.ok) return;
    const masterPositions = await masterPositionsOf(db, copier.from_account_id);
    const liveCopies = (await this.kit.inputs.copiesOf(copier.from_account_id)).get(copier.id) ?? [];
    const needs = (need: FeatureNeed | HistoryNeed): boolean => active.some((f) => f.feature.rules.needs?.includes(need));
    // Each member always present, undefined when not read (manage takes both alike), so the inputs are
    // one literal rather than spreads of optional members.
    const asks = await manage({
      now: clock().toISOString(),
      active,
      history: (await copyHistory(db, [copier.id])).get(copier.id) ?? [],
      liveCopies,
      slave: slave.connection,
      slaveSymbols: slave.symbols,
      masterPositions,
      copier: settings,
      standalone,
      slaveLastTradeAt: needs('slaveActivity') ? await slaveLastTradeAt(db, copier.to_account_id) : null,
      calendar: needs('calendar') ? await calendarAround(db, clock()) : undefined,
      masterCloses: needs('masterCloses')
        ? await partialClosesOf(
            db,
            copier.from_account_id,
            masterPositions.map((p) => p.masterPositionId),
          )
        : undefined,
    });
    // One live copy per master position: two features reopening the same one in a tick place one.
    const copied = new Set(liveCopies.map((c) => c.masterPositionId));
    for (const ask of asks) {
      if (!settings.active && !(ask.action.kind === 'close' && isStandaloneTrade(ask.action.masterPositionId))) continue;
      let action = copyActionOf(copier.id, ask);
      if (action.type === 'open') {
        if (settings.monitorOnly || copied.has(action.masterPositionId)) continue;
        // A risk limit hit or a profit target locked: nothing new opens on the account.
        if (protectionSkip(slave.protections, action.symbol, copier.id)) continue;
        copied.add(action.masterPositionId);
        const trade = masterPositions.find((p) => p.masterPositionId === action.masterPositionId);
        // copyActionOf's action is a fresh literal: its members are set in place, not spread into a new one.
        action = Object.assign(action, {
          comment: slaveComment(settings, trade?.comment ?? null),
          magicNumber: strategyMagicNumber(strategyRoutingOf(copier), slaveMagicNumber(settings, trade?.magicNumber ?? null)),
        });
      }
      await this.execute(copier, slave, ask, action);
    }
  }

  /** Executes one ask and records it, a refusal the venue repeats only once in a while. */
  private async execute(
    copier: CopierRow,
    slave: Awaited<ReturnType<HandlerKit['inputs']['slave']>>,
    ask: Ask,
    action: ReturnType<typeof copyActionOf>,
  ): Promise<void> {
    const masterAccountId = copier.from_account_id;
    const key = action.type === 'skip' ? `skip/${ask.feature.featureId}/${action.masterPositionId}/${action.reason}` : action.clientOrderId;
    const source: CopySource = { eventId: key, position: NO_POSITION, type: MANAGEMENT_SOURCE };
    const results = (await executeActions([action], this.kit.executionContext(copier, masterAccountId, source, null, slave, false))).map((event): CopyEvent => {
      // A standalone trade (keep-alive) is no copy: the log says what it is in the feature's words.
      const note = isStandaloneTrade(action.masterPositionId) || ask.feature.feature.rules.logsItsReasons ? { note: ask.action.message } : {};
      // executeActions' events are fresh: the members are added to their data in place.
      if (event.type === 'CopyExecuted') Object.assign(event.data, { by: ask.feature.feature.type }, note);
      else if (event.type === 'CopyFailed') Object.assign(event.data, note);
      return event;
    });
    // A request the venue keeps refusing (each second) is recorded once in a while, not each time.
    if (results.some((e) => e.type === 'CopyFailed')) {
      const last = this.failures.get(key);
      if (last !== undefined && Date.now() - last < MANAGEMENT_FAILURE_QUIET_MS) return;
      this.failures.set(key, Date.now());
    }
    if (action.type === 'skip' && this.failures.has(key)) return;
    if (action.type === 'skip') this.failures.set(key, Date.now());
    await this.kit.outcomes.appendWithIds(
      copier,
      masterAccountId,
      source,
      results.map((event, i) => ({ id: uuidv5(`${key}/${i}`, COPY_EVENT_NAMESPACE), event })),
      false,
    );
  }
}
