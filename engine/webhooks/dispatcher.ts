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
import { type Kysely, type Migration, sql } from 'kysely';
import { ACCOUNT_STREAM_PREFIX_FOR_WEBHOOKS, type AccountFacts, accountFactsOf } from './accounts.js';
import { type FeatureEvent, FEATURE_STREAM_PREFIX, type FeatureSetting } from '../../domain/feature/events.js';
import { membersOf } from '../../domain/feature/definition.js';
import { accountIdOfPositionsStream, POSITIONS_STREAM_PREFIX, type PositionsEvent } from '../../domain/positions/events.js';
import { backoffScheduleMs } from '../../domain/webhook/backoff.js';
import { Recovery, type RecoveryLog } from '../../store/recovery.js';
import { WEBHOOK_FEATURE_TYPE, type WebhookSettings } from '../../domain/webhook/feature.js';
import { fixedWebhookHeaders, WEBHOOK_EVENT_HEADER, WEBHOOK_ID_HEADER } from '../../domain/webhook/headers.js';
import { type AccountMetadata, buildWebhookPayload, webhookKindsOf } from '../../domain/webhook/payload.js';
import { sealedAuthenticationOf } from '../../domain/webhook/secrets.js';
import { followInBatches } from '../../store/batches.js';
import { migrateOwnTables } from '../../store/postgres/schema.js';
import {
  comparePositions,
  type EventStore,
  type Position,
  positionFromString,
  positionToString,
  type RecordedEvent,
  type Subscription,
} from '../../store/port.js';
import { type DeliveryTarget, Outbox, WEBHOOK_DELIVERY_KIND } from '../delivery/outbox.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the dispatcher's tables are not read models
type AnyDb = Kysely<any>;

const CHECKPOINT = 'webhooks';
const MAX_BATCH = 200;

const migrations: Record<string, Migration> = {
  '0001_webhook_dispatch': {
    async up(db) {
      await sql`CREATE TABLE webhook_checkpoints (name text PRIMARY KEY, position text, updated timestamptz NOT NULL DEFAULT now())`.execute(db);
      await sql`CREATE TABLE webhook_subscriptions (
        feature_id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        account_id uuid,
        setting jsonb NOT NULL)`.execute(db);
      await sql`CREATE INDEX webhook_subscriptions_account ON webhook_subscriptions (account_id)`.execute(db);
      await sql`CREATE INDEX webhook_subscriptions_project ON webhook_subscriptions (project_id) WHERE account_id IS NULL`.execute(db);
      await sql`CREATE TABLE webhook_accounts (account_id uuid PRIMARY KEY, metadata jsonb NOT NULL)`.execute(db);
    },
  },
};

export interface WebhookDispatcherDeps {
  readonly store: EventStore;
  readonly db: AnyDb;
  readonly outbox: Outbox;
  readonly log: RecoveryLog;
  /** Wall clock, for the time a removal cancels pending deliveries. */
  readonly now?: () => Date;
}

interface SubscriptionRow {
  feature_id: string;
  setting: FeatureSetting;
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
  private cursor: Position | null = null;
  private subscription: Subscription | null = null;
  private stopped = false;
  private loop: Promise<void> | null = null;

  constructor(private readonly deps: WebhookDispatcherDeps) {}

  static async migrate(db: AnyDb): Promise<void> {
    await migrateOwnTables(db, migrations, 'webhook_migrations');
    await sql`INSERT INTO webhook_checkpoints (name, position) VALUES (${CHECKPOINT}, NULL) ON CONFLICT (name) DO NOTHING`.execute(db);
  }

  async start(): Promise<void> {
    await WebhookDispatcher.migrate(this.deps.db);
    this.cursor = await this.savedCheckpoint();
    this.stopped = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.unsubscribe();
    await this.loop;
  }

  private async savedCheckpoint(): Promise<Position | null> {
    const row = await sql<{ position: string | null }>`SELECT position FROM webhook_checkpoints WHERE name = ${CHECKPOINT}`.execute(this.deps.db);
    const saved = row.rows[0]?.position;
    return saved ? positionFromString(saved) : null;
  }

  private run(): Promise<void> {
    return followInBatches({
      store: this.deps.store,
      filter: { streamNamePrefixes: [POSITIONS_STREAM_PREFIX, FEATURE_STREAM_PREFIX, ACCOUNT_STREAM_PREFIX_FOR_WEBHOOKS] },
      max: MAX_BATCH,
      recovery: new Recovery('the webhook dispatcher', this.deps.log, { action: 'resubscribes from its checkpoint' }),
      stopped: () => this.stopped,
      cursor: () => this.cursor,
      reload: async () => {
        this.cursor = await this.savedCheckpoint().catch(() => this.cursor);
      },
      apply: (batch) => this.applyBatch(batch),
      onSubscribe: (subscription) => (this.subscription = subscription),
    });
  }

  private async applyBatch(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1]!.position;
    const enqueued = await this.deps.db.transaction().execute(async (trx) => {
      const row = await sql<{ position: string | null }>`SELECT position FROM webhook_checkpoints WHERE name = ${CHECKPOINT} FOR UPDATE`.execute(trx);
      const saved = row.rows[0]?.position ? positionFromString(row.rows[0].position) : null;
      // Another instance may have handled part of this batch already.
      const fresh = saved ? batch.filter((e) => comparePositions(e.position, saved) > 0) : batch;
      // Most of the time no webhook exists at all: position events then cost no query.
      const any = await sql<{ any: boolean }>`SELECT EXISTS (SELECT 1 FROM webhook_subscriptions) AS any`.execute(trx);
      const view = { anyWebhook: any.rows[0]?.any === true };
      let count = 0;
      for (const recorded of fresh) count += await this.apply(trx, recorded, view);
      if (fresh.length > 0) {
        await sql`UPDATE webhook_checkpoints SET position = ${positionToString(last)}, updated = now() WHERE name = ${CHECKPOINT}`.execute(trx);
      }
      return count;
    });
    this.cursor = last;
    if (enqueued > 0) this.deps.outbox.wake();
  }

  /** Folds one event into the view, or enqueues its deliveries; answers how many were enqueued. */
  private async apply(trx: AnyDb, recorded: RecordedEvent, view: { anyWebhook: boolean }): Promise<number> {
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

  private async foldFeature(trx: AnyDb, event: FeatureEvent): Promise<void> {
    const { featureId } = event.data;
    switch (event.type) {
      case 'FeatureAdded': {
        if (!isWebhook(event.data.setting)) return;
        const scope = event.data.scope;
        await sql`INSERT INTO webhook_subscriptions (feature_id, project_id, account_id, setting)
          VALUES (${featureId}, ${event.data.projectId}, ${scope.kind === 'account' ? scope.accountId : null}, ${JSON.stringify(event.data.setting)}::jsonb)
          ON CONFLICT (feature_id) DO NOTHING`.execute(trx);
        return;
      }
      case 'FeatureUpdated': {
        if (!isWebhook(event.data.setting)) return;
        const updated =
          await sql`UPDATE webhook_subscriptions SET setting = ${JSON.stringify(event.data.setting)}::jsonb WHERE feature_id = ${featureId}`.execute(trx);
        if (Number(updated.numAffectedRows ?? 0) === 0) return;
        const target = targetOf(event.data.setting);
        await Outbox.retarget(trx, featureId, target, (fixed) =>
          fixedWebhookHeaders(target.headers, fixed[WEBHOOK_ID_HEADER] ?? '', fixed[WEBHOOK_EVENT_HEADER] ?? ''),
        );
        return;
      }
      case 'FeatureRemoved': {
        const removed = await sql`DELETE FROM webhook_subscriptions WHERE feature_id = ${featureId}`.execute(trx);
        if (Number(removed.numAffectedRows ?? 0) > 0) await Outbox.cancel(trx, featureId, 'the webhook was removed', (this.deps.now ?? (() => new Date()))());
        return;
      }
      default:
        return;
    }
  }

  private async foldAccount(trx: AnyDb, facts: AccountFacts): Promise<void> {
    if (facts.kind === 'created') {
      await sql`INSERT INTO webhook_accounts (account_id, metadata) VALUES (${facts.metadata.accountId}, ${JSON.stringify(facts.metadata)}::jsonb)
        ON CONFLICT (account_id) DO NOTHING`.execute(trx);
      return;
    }
    await sql`UPDATE webhook_accounts SET metadata = metadata || ${JSON.stringify(facts.changes)}::jsonb WHERE account_id = ${facts.accountId}`.execute(trx);
  }

  /** The deliveries of one position event: every webhook of its account and of the account's project that subscribed to a kind it gives. */
  private async dispatch(trx: AnyDb, recorded: RecordedEvent, accountId: string): Promise<number> {
    const event = recorded as unknown as PositionsEvent;
    const kinds = webhookKindsOf(event);
    if (kinds.length === 0) return 0;
    const found = await sql<{ metadata: AccountMetadata }>`SELECT metadata FROM webhook_accounts WHERE account_id = ${accountId}`.execute(trx);
    const account = found.rows[0]?.metadata ?? null;
    const subscriptions = await sql<SubscriptionRow>`SELECT feature_id, setting FROM webhook_subscriptions
      WHERE account_id = ${accountId} OR (account_id IS NULL AND project_id = ${account?.projectId ?? null})
      ORDER BY feature_id`.execute(trx);
    let count = 0;
    for (const subscription of subscriptions.rows) {
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
