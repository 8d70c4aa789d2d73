// The news features' notices to their notificationTargets (issue 18): the news filter's advance
// warnings and daily agenda, news protection's warnings (what is due when: domain/notification/newsWarnings.ts).
// One leased job (a LeasedLoop: of several instances one looks at a time) looks every 2 seconds on the
// service's clock (the engine's: a virtual one in the specs) and hands each due notice to the
// NotificationPort, whose deliveries have ids fixed by the notice and the target: sent again (another
// look, a restart, another instance after a lease moved) it enqueues nothing new, so each notice goes
// out once. The notices already handed over are remembered in memory only to spare the database.
import { sql } from 'kysely';
import { membersOf } from '../domain/feature/definition.js';
import type { FeatureSetting } from '../domain/feature/events.js';
import { NEWS_FILTER, type NewsFilterFeatureSettings } from '../domain/copy/features/newsFilter.js';
import { NEWS_PROTECTION, type NewsProtectionSettings } from '../domain/copy/features/newsProtection.js';
import { type NewsNotice, newsFilterNotices, newsProtectionNotices, NOTICE_REACH_MINUTES, type NoticeEvent } from '../domain/notification/newsWarnings.js';
import type { NotificationTarget } from '../domain/notification/targets.js';
import { LeasedLoop } from '../store/postgres/leasedLoop.js';
import type { Leases } from '../store/postgres/leases.js';
import { outboxNotifications, type NotificationPort } from './notifications.js';
import type { Services } from './services.js';

export const NEWS_WARNINGS_LEASE = 'news-warnings';
const REMEMBERED = 10_000;

interface FeatureRow {
  readonly id: string;
  readonly project_id: string;
  readonly type: string;
  readonly setting: FeatureSetting;
}

export class NewsWarnings {
  private readonly loop: LeasedLoop;
  private readonly port: NotificationPort;
  private readonly handed = new Set<string>();

  constructor(
    private readonly services: Services,
    leases: Leases,
    lookMs = 2000,
  ) {
    this.port = outboxNotifications(services);
    this.loop = new LeasedLoop({
      leases,
      lease: NEWS_WARNINGS_LEASE,
      everyMs: lookMs,
      rounds: services.jobRounds,
      round: async () => void (await this.look()),
      failed: (error) => services.log.warn(`news warnings: a look failed (tried again at the next): ${String(error)}`),
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Hands every notice due now to the notification port; answers how many deliveries were enqueued. */
  async look(): Promise<number> {
    const { db } = this.services;
    const features = (await db
      .selectFrom('features')
      .select(['id', 'project_id', 'type', 'setting'])
      .where('type', 'in', [NEWS_FILTER, NEWS_PROTECTION])
      .where(sql<boolean>`jsonb_array_length(coalesce(setting->'notificationTargets', '[]'::jsonb)) > 0`)
      .where(sql<boolean>`(coalesce((setting->>'advanceWarningMinutes')::int, 0) > 0 OR coalesce((setting->>'dailyAgenda')::boolean, false))`)
      .orderBy('id')
      .execute()) as FeatureRow[];
    if (features.length === 0) return 0;
    const now = this.services.clock();
    const events: NoticeEvent[] = (
      await db
        .selectFrom('calendar_events')
        .select(['event_id', 'title', 'currency', 'impact', 'time', 'all_day'])
        .where('time', '>=', new Date(now.getTime() - 1440 * 60_000))
        .where('time', '<', new Date(now.getTime() + NOTICE_REACH_MINUTES * 60_000))
        .orderBy('time')
        .execute()
    ).map((e) => ({ eventId: e.event_id, title: e.title, currency: e.currency, impact: e.impact, time: new Date(e.time).toISOString(), allDay: e.all_day }));
    let enqueued = 0;
    for (const feature of features) {
      const notices: NewsNotice[] =
        feature.type === NEWS_FILTER
          ? newsFilterNotices(feature.id, membersOf<NewsFilterFeatureSettings>(feature.setting), events, now)
          : newsProtectionNotices(feature.id, membersOf<NewsProtectionSettings>(feature.setting), events, now);
      const targets: NotificationTarget[] = ((feature.setting.notificationTargets ?? []) as { featureId: string; recipient?: string | null }[]).map((t) => ({
        featureId: t.featureId,
        recipient: t.recipient ?? null,
      }));
      for (const notice of notices) {
        if (this.handed.has(notice.id)) continue;
        enqueued += await this.port.notify(
          {
            id: notice.id,
            projectId: feature.project_id,
            eventType: notice.eventType,
            subject: notice.subject,
            text: notice.text,
            data: notice.data,
            at: now.toISOString(),
          },
          targets,
        );
        if (this.handed.size >= REMEMBERED) this.handed.clear();
        this.handed.add(notice.id);
      }
    }
    return enqueued;
  }
}
