// The webhook dispatcher (spec "Events" 2, FeatureWebhookDTO): follows `$all` from its own durable
// checkpoint and turns position events into deliveries in the outbox (engine/delivery/outbox.ts),
// one per (event, kind, webhook), with the stable id of domain/webhook/payload.ts.
//
// It keeps its own view of what it needs, folded from the same events in the same order: the webhook
// features (feature-*) and each account's project and metadata (account-*). So a webhook receives
// exactly the events after its FeatureAdded in `$all`, never earlier ones, and no read model's lag
// can change who receives what. A batch of events, the view changes, the messages it enqueues and the
// checkpoint are one PostgreSQL transaction, under a lock on the checkpoint row: a crash or a second
// instance neither loses nor repeats an enqueue (and an enqueue repeated anyway is a no-op by id).
//
// A first start reads `$all` from its beginning: webhooks did not exist before this dispatcher did,
// so that only folds the accounts and enqueues nothing old.
import { type ColumnType, type Kysely, sql } from 'kysely';
import { ACCOUNT_STREAM_PREFIX_FOR_WEBHOOKS, type AccountFacts, accountFactsOf } from './accounts.js';
import { type FeatureEvent, FEATURE_STREAM_PREFIX, type FeatureSetting } from '../../domain/feature/events.js';
import { membersOf } from '../../domain/feature/definition.js';
import { accountIdOfPositionsStream, POSITIONS_STREAM_PREFIX, type PositionsEvent } from '../../domain/positions/events.js';
import { backoffScheduleMs } from '../../domain/webhook/backoff.js';
import type { RecoveryLog } from '../../store/recovery.js';
import { WEBHOOK_FEATURE_TYPE, type WebhookSettings } from '../../domain/webhook/feature.js';
import { fixedWebhookHeaders, WEBHOOK_EVENT_HEADER, WEBHOOK_ID_HEADER } from '../../domain/webhook/headers.js';
import { type AccountMetadata, buildWebhookPayload, webhookKindsOf } from '../../domain/webhook/payload.js';
import { sealedAuthenticationOf } from '../../domain/webhook/secrets.js';
import { loadCheckpoint, lockCheckpoint, saveCheckpoints } from '../../store/postgres/checkpoints.js';
import type { Leases } from '../../store/postgres/leases.js';
import { StreamProcessor } from '../../store/processor.js';
import { comparePositions, type EventStore, type RecordedEvent } from '../../store/port.js';
import type { ReadModels } from '../../projections/schema.js';
import { type DeliveryTarget, Outbox, WEBHOOK_DELIVERY_KIND } from '../delivery/outbox.js';

/** The processor's partition and checkpoint name. */
const CHECKPOINT = 'webhooks';
/** The dispatcher's lease: its checkpoint's name. */
export const WEBHOOKS_LEASE = CHECKPOINT;
const MAX_BATCH = 200;

type Json<T> = ColumnType<T, string, string>;

/** The dispatcher's own tables (created by projections/migrations.ts). */
export type WebhookTables = {
  webhook_subscriptions: { feature_id: string; project_id: string; account_id: string | null; setting: Json<FeatureSetting> };
  webhook_accounts: { account_id: string; metadata: Json<AccountMetadata> };
};

type Db = Kysely<ReadModels & WebhookTables>;

/** The streams the dispatcher reads of `$all` (what /ready counts as its lag, api/health.ts). */
export const WEBHOOK_DISPATCHER_STREAMS: readonly string[] = [POSITIONS_STREAM_PREFIX, FEATURE_STREAM_PREFIX, ACCOUNT_STREAM_PREFIX_FOR_WEBHOOKS];

export interface WebhookDispatcherDeps {
  readonly store: EventStore;
  /** The read-model database (the dispatcher's tables and the outbox live there). */
  readonly db: Kysely<ReadModels>;
  readonly outbox: Outbox;
  readonly log: RecoveryLog;
  /** Who works the partition "webhooks" (null: this instance, unconditionally). */
  readonly leases?: Leases | null;
  /** Wall clock, for the time a removal cancels pending deliveries. */
  readonly now?: () => Date;
}

/** What a webhook's setting says about where and how its deliveries go. */
const targetOf = (setting: FeatureSetting): DeliveryTarget => {
  const s = membersOf<WebhookSettings>(setting);
  return {
    url: s.url,
    headers: s.headers ?? {},
    auth: sealedAuthenticationOf(setting),
    timeoutMs: s.timeoutSeconds * 1000,
    minIntervalMs: Math.ceil(60_000 / s.rateLimitPerMinute),
  };
};

const isWebhook = (setting: FeatureSetting | undefined): setting is FeatureSetting => setting?.type === WEBHOOK_FEATURE_TYPE;

export class WebhookDispatcher {
  private readonly processor: StreamProcessor;
  private readonly db: Db;

  constructor(private readonly deps: WebhookDispatcherDeps) {
    this.db = deps.db.withTables<WebhookTables>();
    this.processor = new StreamProcessor({
      name: CHECKPOINT,
      description: 'the webhook dispatcher',
      store: deps.store,
      leases: deps.leases ?? null,
      filter: { streamNamePrefixes: [...WEBHOOK_DISPATCHER_STREAMS] },
      maxBatch: MAX_BATCH,
      log: deps.log,
      consumer: {
        resume: async () => (await loadCheckpoint(this.db, CHECKPOINT)) ?? null,
        reload: async () => (await loadCheckpoint(this.db, CHECKPOINT)) ?? null,
        apply: (batch) => this.applyBatch(batch),
      },
    });
  }

  start(): Promise<void> {
    return this.processor.start();
  }

  stop(): Promise<void> {
    return this.processor.stop();
  }

  private async applyBatch(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1]!.position;
    const enqueued = await this.db.transaction().execute(async (trx) => {
      const saved = await lockCheckpoint(trx, CHECKPOINT);
      // Another instance may have handled part of this batch already.
      const fresh = saved ? batch.filter((e) => comparePositions(e.position, saved) > 0) : batch;
      if (fresh.length === 0) return 0;
      // Most of the time no webhook exists at all: position events then cost no query.
      const any = await trx.selectFrom('webhook_subscriptions').select('feature_id').limit(1).executeTakeFirst();
      const view = { anyWebhook: any !== undefined };
      let count = 0;
      for (const recorded of fresh) count += await this.apply(trx, recorded, view);
      await saveCheckpoints(trx, [CHECKPOINT], last);
      return count;
    });
    if (enqueued > 0) this.deps.outbox.wake();
  }

  /** Folds one event into the view, or enqueues its deliveries; answers how many were enqueued. */
  private async apply(trx: Db, recorded: RecordedEvent, view: { anyWebhook: boolean }): Promise<number> {
    const accountId = accountIdOfPositionsStream(recorded.streamId);
    if (accountId) return view.anyWebhook ? this.dispatch(trx, recorded, accountId) : 0;
    if (recorded.streamId.startsWith(FEATURE_STREAM_PREFIX)) {
      const event = recorded as unknown as FeatureEvent;
      if (event.type === 'FeatureAdded' && isWebhook(event.data.setting)) view.anyWebhook = true;
      await this.foldFeature(trx, event);
      return 0;
    }
    const facts = accountFactsOf(recorded);
    if (facts) await this.foldAccount(trx, facts);
    return 0;
  }

  private async foldFeature(trx: Db, event: FeatureEvent): Promise<void> {
    const { featureId } = event.data;
    switch (event.type) {
      case 'FeatureAdded': {
        if (!isWebhook(event.data.setting)) return;
        const scope = event.data.scope;
        await trx
          .insertInto('webhook_subscriptions')
          .values({
            feature_id: featureId,
            project_id: event.data.projectId,
            account_id: scope.kind === 'account' ? scope.accountId : null,
            setting: JSON.stringify(event.data.setting),
          })
          .onConflict((oc) => oc.column('feature_id').doNothing())
          .execute();
        return;
      }
      case 'FeatureUpdated': {
        if (!isWebhook(event.data.setting)) return;
        const updated = await trx
          .updateTable('webhook_subscriptions')
          .set({ setting: JSON.stringify(event.data.setting) })
          .where('feature_id', '=', featureId)
          .executeTakeFirst();
        if (updated.numUpdatedRows === 0n) return;
        const target = targetOf(event.data.setting);
        await Outbox.retarget(trx, featureId, target, (fixed) =>
          fixedWebhookHeaders(target.headers, fixed[WEBHOOK_ID_HEADER] ?? '', fixed[WEBHOOK_EVENT_HEADER] ?? ''),
        );
        return;
      }
      case 'FeatureRemoved': {
        const removed = await trx.deleteFrom('webhook_subscriptions').where('feature_id', '=', featureId).executeTakeFirst();
        // A removed webhook's pending deliveries end, and so do those of any other notification feature
        // (a Telegram or Discord channel's CHAT messages carry its feature id too).
        const reason = removed.numDeletedRows > 0n ? 'the webhook was removed' : 'the notification feature was removed';
        await Outbox.cancel(trx, featureId, reason, (this.deps.now ?? (() => new Date()))());
        return;
      }
      default:
        return;
    }
  }

  private async foldAccount(trx: Db, facts: AccountFacts): Promise<void> {
    if (facts.kind === 'created') {
      await trx
        .insertInto('webhook_accounts')
        .values({ account_id: facts.metadata.accountId, metadata: JSON.stringify(facts.metadata) })
        .onConflict((oc) => oc.column('account_id').doNothing())
        .execute();
      return;
    }
    await trx
      .updateTable('webhook_accounts')
      .set({ metadata: sql<string>`metadata || ${JSON.stringify(facts.changes)}::jsonb` })
      .where('account_id', '=', facts.accountId)
      .execute();
  }

  /** The deliveries of one position event: every webhook of its account and of the account's project that subscribed to a kind it gives. */
  private async dispatch(trx: Db, recorded: RecordedEvent, accountId: string): Promise<number> {
    const event = recorded as unknown as PositionsEvent;
    const kinds = webhookKindsOf(event);
    if (kinds.length === 0) return 0;
    const found = await trx.selectFrom('webhook_accounts').select('metadata').where('account_id', '=', accountId).executeTakeFirst();
    const account = found?.metadata ?? null;
    const subscriptions = await trx
      .selectFrom('webhook_subscriptions')
      .select(['feature_id', 'setting'])
      .where((eb) => {
        const ofAccount = eb('account_id', '=', accountId);
        const projectId = account?.projectId;
        return projectId ? eb.or([ofAccount, eb.and([eb('account_id', 'is', null), eb('project_id', '=', projectId)])]) : ofAccount;
      })
      .orderBy('feature_id')
      .execute();
    let count = 0;
    for (const subscription of subscriptions) {
      const settings = membersOf<WebhookSettings>(subscription.setting);
      const target = targetOf(subscription.setting);
      for (const kind of kinds) {
        if (!settings.events.includes(kind)) continue;
        const payload = buildWebhookPayload({
          sourceEventId: recorded.id,
          event,
          kind,
          featureId: subscription.feature_id,
          options: { includePositionDetails: settings.includePositionDetails, includeAccountMetadata: settings.includeAccountMetadata },
          account,
        });
        await this.deps.outbox.enqueue(trx, {
          id: payload.eventId,
          kind: WEBHOOK_DELIVERY_KIND,
          url: target.url,
          headers: fixedWebhookHeaders(target.headers, payload.eventId, kind),
          body: payload as unknown as Record<string, unknown>,
          maxAttempts: settings.maxAttempts,
          backoffMs: backoffScheduleMs(settings),
          timeoutMs: target.timeoutMs,
          rateLimit: { key: `webhook:${subscription.feature_id}`, minIntervalMs: target.minIntervalMs },
          auth: target.auth,
          webhook: { featureId: subscription.feature_id, accountId, eventType: kind },
        });
        count += 1;
      }
    }
    return count;
  }
}
