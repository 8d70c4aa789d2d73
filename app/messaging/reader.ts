// The messaging connector's reader: background work of one instance at a time (a lease,
// store/postgres/leases.ts). Every MESSAGING_POLL_INTERVAL_MS it reads each messaging account
// (FeatureMessagingAccountDTO) that a connector uses from its stored cursor (processor_checkpoints,
// `messaging:<featureId>`), records the chats it tells of (MessagingChatSeen), hands each message to
// the connectors reading its chat (messages.ts), and stores the cursor after. A message is never
// traded twice: one read again after a crash before the cursor was stored is found in the log and
// skipped, and its orders carry fixed ids besides. An instance that takes the lease over carries on
// from the stored cursor. A platform that fails (a bad token, unreachable) is logged once per change
// and tried again at the next poll.
import { sql } from 'kysely';
import { messagingDecider, messagingEventId } from '../../domain/messaging/decider.js';
import { messagingChatsStream } from '../../domain/messaging/events.js';
import { MESSAGING_ACCOUNT, MESSAGING_CONNECTOR, type MessagingAccountSettings, type MessagingConnectorSettings } from '../../domain/messaging/feature.js';
import { membersOf } from '../../domain/feature/definition.js';
import type { FeatureSetting } from '../../domain/feature/events.js';
import { systemContext } from '../../domain/shared/command.js';
import type { ChatInfo, ChatPort } from '../../engine/messaging/port.js';
import { chatPortFor } from '../../engine/messaging/ports.js';
import { handleCommand } from '../../store/commandHandler.js';
import { LeasedLoop } from '../../store/postgres/leasedLoop.js';
import type { Leases } from '../../store/postgres/leases.js';
import type { RecoveryLog } from '../../store/recovery.js';
import { commandMetadata, type Services } from '../services.js';
import { type Connector, handleMessage, readsMessage } from './messages.js';

export const MESSAGING_READER_LEASE = 'messaging-reader';

interface MessagingAccount {
  readonly featureId: string;
  readonly projectId: string;
  readonly settings: MessagingAccountSettings;
}

/** The chat port of a messaging account feature, its token unsealed. */
export const portOfMessagingAccount = (services: Pick<Services, 'cipher' | 'config'>, account: Pick<MessagingAccount, 'featureId' | 'settings'>): ChatPort => {
  const { platform, botToken } = account.settings;
  const token = platform === 'OFFLINE' || !botToken ? null : services.cipher.decrypt(botToken);
  return chatPortFor({ featureId: account.featureId, platform, token }, services.config.messaging);
};

const cursorName = (featureId: string) => `messaging:${featureId}`;

export class MessagingReader {
  private readonly loop: LeasedLoop;
  private readonly failing = new Map<string, string>();

  constructor(
    private readonly services: Services,
    leases: Leases,
    private readonly log: RecoveryLog,
  ) {
    this.loop = new LeasedLoop({
      leases,
      lease: MESSAGING_READER_LEASE,
      everyMs: services.config.messaging.pollIntervalMs,
      rounds: services.jobRounds,
      round: async (signal) => void (await this.pass(signal)),
      failed: (error) => log.warn(`messaging reader: the poll failed (tried again later): ${String(error)}`),
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** The messaging accounts, and the connectors of the project's accounts reading them. */
  private async features(): Promise<{ accounts: MessagingAccount[]; connectors: Connector[] }> {
    const rows = await this.services.db
      .selectFrom('features')
      .select(['id', 'project_id', 'account_id', 'type', 'setting'])
      .where('type', 'in', [MESSAGING_ACCOUNT, MESSAGING_CONNECTOR])
      .execute();
    const accounts: MessagingAccount[] = [];
    const connectors: Connector[] = [];
    for (const row of rows) {
      const setting = row.setting as FeatureSetting;
      if (row.type === MESSAGING_ACCOUNT)
        accounts.push({ featureId: row.id, projectId: row.project_id, settings: membersOf<MessagingAccountSettings>(setting) });
      else if (row.account_id) {
        const settings = membersOf<MessagingConnectorSettings>(setting);
        connectors.push({ featureId: row.id, accountId: row.account_id, projectId: row.project_id, messagingAccountId: settings.messagingAccountId, settings });
      }
    }
    return { accounts, connectors };
  }

  /** A connector reads a messaging account of its own project only. */
  private readersOf = (account: MessagingAccount, connectors: readonly Connector[]): Connector[] =>
    connectors.filter((c) => c.messagingAccountId === account.featureId && c.projectId === account.projectId);

  /** One poll of every messaging account; answers the messages read. */
  async pass(signal?: AbortSignal): Promise<number> {
    const { accounts, connectors } = await this.features();
    let count = 0;
    for (const account of accounts) {
      if (signal?.aborted) break;
      const readers = this.readersOf(account, connectors);
      // Discord reads per channel: nothing to read without a connector.
      if (readers.length === 0 && account.settings.platform === 'DISCORD') continue;
      try {
        count += await this.readAccount(account, readers);
        if (this.failing.delete(account.featureId)) this.log.info(`messaging account ${account.featureId}: reading again`);
      } catch (error) {
        const words = error instanceof Error ? error.message : String(error);
        if (this.failing.get(account.featureId) !== words)
          this.log.warn(`messaging account ${account.featureId}: could not read (tried again at the next poll): ${words}`);
        this.failing.set(account.featureId, words);
      }
    }
    return count;
  }

  private async readAccount(account: MessagingAccount, before: readonly Connector[]): Promise<number> {
    const port = portOfMessagingAccount(this.services, account);
    const name = cursorName(account.featureId);
    const stored = await this.services.db
      .withTables<{ processor_checkpoints: { name: string; position: string | null } }>()
      .selectFrom('processor_checkpoints')
      .select('position')
      .where('name', '=', name)
      .executeTakeFirst();
    const chatKeys = [
      ...new Set(
        before.map((c) =>
          c.settings.forumTopicId !== null && port.platform === 'DISCORD' ? `${c.settings.chatId}/${c.settings.forumTopicId}` : c.settings.chatId,
        ),
      ),
    ];
    const batch = await port.read(stored?.position ?? null, chatKeys);
    for (const chat of batch.chats) await this.recordChat(account, chat);
    if (batch.messages.length === 0 && batch.cursor === (stored?.position ?? null)) return 0;
    // The connectors as they are after the read: one added just before a message was posted reads it.
    const readers = this.readersOf(account, (await this.features()).connectors);
    let count = 0;
    for (const message of batch.messages) {
      for (const connector of readers.filter((c) => readsMessage(c.settings, message))) {
        try {
          if (await handleMessage(this.services, connector, message)) count += 1;
        } catch (error) {
          // Not recorded: the cursor stays before it and the next poll reads it again.
          this.log.warn(
            `messaging connector ${connector.featureId}: message ${message.messageId} could not be handled (read again at the next poll): ${String(error)}`,
          );
          return count;
        }
      }
    }
    if (batch.cursor !== (stored?.position ?? null)) {
      await sql`INSERT INTO processor_checkpoints (name, position, updated) VALUES (${name}, ${batch.cursor}, now())
        ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated = EXCLUDED.updated`.execute(this.services.db);
    }
    return count;
  }

  private async recordChat(account: MessagingAccount, chat: ChatInfo): Promise<void> {
    await handleCommand(
      this.services.store,
      messagingChatsStream(account.featureId),
      messagingDecider,
      {
        type: 'RecordMessagingChat',
        data: { messagingAccountId: account.featureId, projectId: account.projectId, ...chat },
        metadata: commandMetadata(this.services, { ...systemContext(`messaging-chats-${account.featureId}`), projectId: account.projectId }),
      },
      { eventId: messagingEventId },
    );
  }
}
