// A deleted chat notification feature sends nothing more (issue 18): its CHAT messages still waiting in the
// outbox (here one whose first attempt failed and waits for its retry) end CANCELLED when the feature is
// deleted, as a removed webhook's deliveries do, and the fake Telegram Bot API never receives them.
import { expect } from 'chai';
import { sql } from 'kysely';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { fakeTelegram } from '../support/messagingFakes.js';
import { startTestService, type TestService } from '../support/service.js';
import { bookWhere, copyPair, eventually, featureBody, movableClock, openPosition, pinQuotes } from '../support/trading.js';

const A = DEFAULT_PROJECT_ID;
const TOKEN = '765432:chat-removal-token';
const GROUP = '-1009008007006';

describe('a deleted chat notification feature: its pending messages are cancelled', function () {
  this.timeout(120_000);
  let t: TestService;
  let telegram: Awaited<ReturnType<typeof fakeTelegram>>;

  before(async () => {
    telegram = await fakeTelegram(TOKEN);
    t = await startTestService({
      clock: movableClock(),
      env: { MESSAGING_TELEGRAM_API_ROOT: telegram.url, NOTIFICATION_CHAT_RETRY_MS: '4000,4000,4000,4000,4000' },
    });
    await pinQuotes(t, { EURUSD: [1.1, 1.1002] });
  });
  const outboxOf = async (featureId: string) =>
    (
      await sql<{ status: string; last_error: string | null }>`SELECT status, last_error FROM delivery_outbox WHERE feature_id = ${featureId}`.execute(
        t.service.services.db,
      )
    ).rows;

  after(async () => {
    await t?.stop();
    await telegram?.close();
  });

  it('cancels the waiting messages of the deleted feature and never sends them', async () => {
    const pair = await copyPair(t, 'chatremoval');
    const bot = await t.call('POST', `/projects/${A}/features`, {
      body: featureBody({ type: 'FeatureMessagingAccountDTO', platform: 'TELEGRAM', botToken: TOKEN }),
    });
    expect(bot.status, JSON.stringify(bot.body)).to.equal(200);
    const channel = await t.call('POST', `/projects/${A}/features`, {
      body: featureBody({
        type: 'FeatureMessagingNotificationDTO',
        messagingAccountId: bot.body.featureId,
        notifications: [{ chatId: GROUP, logLevel: { id: 3 }, accountIds: [pair.slave] }],
      }),
    });
    expect(channel.status, JSON.stringify(channel.body)).to.equal(200);
    const featureId = channel.body.featureId as string;

    // Every send fails for now: the copy's log line waits in the outbox for its retry.
    telegram.failSends(1000);
    await openPosition(t, pair.master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, pair.slave, (book) => book.length === 1, 'the copy');
    await eventually(async () => (telegram.attempts.some((m) => String(m.text).includes('Copied from master')) ? true : undefined), 20_000, 'a first attempt');
    expect((await outboxOf(featureId)).map((r) => r.status)).to.include('PENDING');

    expect((await t.call('DELETE', `/projects/${A}/features/${featureId}`)).status).to.equal(200);
    const ended = await eventually(
      async () => {
        const rows = await outboxOf(featureId);
        return rows.every((r) => r.status !== 'PENDING') ? rows : undefined;
      },
      10_000,
      'the messages cancelled',
    );
    expect(ended.map((r) => [r.status, r.last_error])).to.deep.include(['CANCELLED', 'the notification feature was removed']);

    // The chat works again: what was cancelled is never sent, past every retry time.
    telegram.failSends(0);
    const attempts = telegram.attempts.length;
    await new Promise((resolve) => setTimeout(resolve, 9000));
    expect(telegram.attempts.length).to.equal(attempts);
    expect(telegram.sent.filter((m) => m.chat_id === GROUP)).to.deep.equal([]);
  });
});
