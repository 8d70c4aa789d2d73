// The account log lines to the chat notification features (FeatureMessagingNotificationDTO,
// FeatureTelegramNotificationDTO): what happened on an account (a copy, a skipped trade with its
// reason, a protection, a connection change: LogDTO) goes to each chat whose entry takes its account
// and level. One leased job (store/postgres/leases.ts: of several instances one works at a time) reads
// the account logs read model after its cursor, in `$all` order (the read model applies events in that
// order), and enqueues one outbox message per line and chat, with the cursor moved in the same
// transaction under a lock on its row (processor_checkpoints `notifications:logs`): a restart goes on
// where it stopped, a second instance neither loses nor repeats a line (and a message enqueued again
// is a no-op by its id). A line older than the feature is not sent (nor is a rebuilt read model's line
// again: the rows keep their positions). The copy engine never waits for any of it.
//
// An idle round reads nothing (projections/keptRead.ts): the projects with a chat feature are kept while
// the features read model is unchanged, and a round whose look found every line forwarded (fewer than a
// batch) is not repeated while neither the features nor the account logs read model moved since (a new
// line moves the account logs' mark; the cursor only moves forward, here or at another holder).
import { sql } from 'kysely';
import { entryTakes } from '../domain/notification/chatFeatures.js';
import { KeptRead, marksOf } from '../projections/keptRead.js';
import { lockCheckpoint, saveCheckpoints } from '../store/postgres/checkpoints.js';
import { LeasedLoop } from '../store/postgres/leasedLoop.js';
import type { Leases } from '../store/postgres/leases.js';
import { chatChannels, chatDeliveryId, enqueueChat, type ChatChannel } from './notificationsChat.js';
import type { Services } from './services.js';

export const CHAT_LOGS_LEASE = 'notifications:logs';
const CHECKPOINT = 'notifications:logs';
const BATCH = 500;
const LEVELS: Readonly<Record<number, string>> = { 1: 'Error', 2: 'Warning', 3: 'Info' };
/** The read models a look reads: which projects have a chat feature, and their lines. */
const LOOK_READ_MODELS = ['features', 'account_logs'];

interface LineRow {
  id: string;
  account_id: string;
  project_id: string;
  time: Date;
  log_type_id: number;
  message: string;
  position_commit: string;
  position_prepare: string;
}

/** A line's text: its level, its account (by alias with useAlias), the message (account ids in it by alias too). */
export const chatLineText = (line: Pick<LineRow, 'account_id' | 'log_type_id' | 'message'>, aliases: ReadonlyMap<string, string> | null): string => {
  const name = (id: string) => aliases?.get(id) ?? id;
  let message = line.message;
  if (aliases) for (const [id, alias] of aliases) message = message.split(id).join(alias);
  return `${LEVELS[line.log_type_id] ?? 'Log'} · ${name(line.account_id)}: ${message}`;
};

export class ChatLogNotifier {
  private readonly loop: LeasedLoop;
  /** The projects with a chat notification feature. */
  private readonly projects: KeptRead<readonly string[]>;
  /** The marks of LOOK_READ_MODELS taken before the last look that found every line forwarded; null: look. */
  private caughtUpAt: string | null = null;

  constructor(
    private readonly services: Services,
    leases: Leases,
    /** How often the holder looks (default 1 s). */
    lookMs = 1000,
  ) {
    this.projects = new KeptRead(
      ['features'],
      async () =>
        (
          await services.db
            .selectFrom('features')
            .select('project_id')
            .distinct()
            .where('type', 'in', ['FeatureMessagingNotificationDTO', 'FeatureTelegramNotificationDTO'])
            .execute()
        ).map((r) => r.project_id),
      (name) => services.runner.version(name),
    );
    this.loop = new LeasedLoop({
      leases,
      lease: CHAT_LOGS_LEASE,
      everyMs: lookMs,
      rounds: services.jobRounds,
      round: async () => void (await this.forward()),
      failed: (error) => services.log.warn(`chat notifications: a look failed (tried again at the next): ${String(error)}`),
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Forwards the lines after the cursor (one batch); answers how many messages were enqueued. */
  async forward(): Promise<number> {
    const { db, outbox, config, runner } = this.services;
    const at = marksOf(LOOK_READ_MODELS, (name) => runner.version(name));
    if (at !== null && at === this.caughtUpAt) return 0;
    this.caughtUpAt = null;
    const projects = await this.projects.get();
    if (projects.length === 0) {
      this.caughtUpAt = at;
      return 0;
    }
    let caughtUp = false;
    const enqueued = await db.transaction().execute(async (trx) => {
      const cursor = await lockCheckpoint(trx, CHECKPOINT);
      const after = cursor
        ? sql`AND (position_commit, position_prepare) > (${cursor.commit.toString()}::numeric, ${cursor.prepare.toString()}::bigint)`
        : sql``;
      const lines = (
        await sql<LineRow>`SELECT id, account_id, project_id, time, log_type_id, message, position_commit, position_prepare FROM account_logs
          WHERE project_id = ANY(${projects}::uuid[]) ${after} ORDER BY position_commit, position_prepare LIMIT ${BATCH}`.execute(trx)
      ).rows;
      caughtUp = lines.length < BATCH;
      if (lines.length === 0) return 0;
      const channels = new Map<string, (ChatChannel & { created: Date })[]>();
      const aliases = new Map<string, Map<string, string>>();
      for (const projectId of new Set(lines.map((l) => l.project_id))) {
        channels.set(projectId, await chatChannels(trx, projectId));
        const rows = await trx.selectFrom('accounts').select(['id', 'alias']).where('project_id', '=', projectId).where('alias', 'is not', null).execute();
        aliases.set(projectId, new Map(rows.filter((r) => r.alias).map((r) => [r.id, r.alias!])));
      }
      let count = 0;
      for (const line of lines) {
        for (const channel of channels.get(line.project_id) ?? []) {
          if (new Date(line.time) < channel.created) continue;
          if (channel.accountId !== null && channel.accountId !== line.account_id) continue;
          for (const destination of channel.destinations) {
            if (!entryTakes(destination.entry, line.account_id, line.log_type_id)) continue;
            await enqueueChat(outbox, trx, config.notifications, {
              id: chatDeliveryId(`log/${line.id}`, channel.featureId, destination.key),
              channel,
              destination,
              text: chatLineText(line, destination.entry.useAlias ? (aliases.get(line.project_id) ?? null) : null),
              eventType: 'ACCOUNT_LOG',
            });
            count += 1;
          }
        }
      }
      const last = lines.at(-1)!;
      await saveCheckpoints(trx, [CHECKPOINT], { commit: BigInt(last.position_commit), prepare: BigInt(last.position_prepare) });
      return count;
    });
    if (caughtUp) this.caughtUpAt = at;
    if (enqueued > 0) outbox.wake();
    return enqueued;
  }
}
