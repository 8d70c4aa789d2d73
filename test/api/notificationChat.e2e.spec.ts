// Telegram and Discord as notification channels end to end (issue 18 "Delivering notifications"), over
// real HTTP with local fakes of the Telegram Bot API (grammy pointed at it by MESSAGING_TELEGRAM_API_ROOT)
// and the Discord REST API (@discordjs/rest by MESSAGING_DISCORD_API_ROOT): FeatureMessagingNotificationDTO
// and FeatureTelegramNotificationDTO with their rules; a copy's log line reaches a Telegram forum topic
// (by alias) and a Discord channel; a calendar alert reaches both at its lead time on a virtual clock; a
// failing chat is retried, counted per channel, and never holds copying back; another project can use
// neither the bot nor the channels.
import { expect } from 'chai';
import { importCalendar } from '../../app/calendar.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { textSource } from '../../engine/calendar/source.js';
import { fakeDiscord, fakeTelegram } from '../support/messagingFakes.js';
import { createOtherProject, startTestService, type TestService } from '../support/service.js';
import { bookWhere, copyPair, eventually, featureBody, movableClock, openPosition, pinQuotes } from '../support/trading.js';

const A = DEFAULT_PROJECT_ID;
const B = '5c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const B_KEY = 'chat-notifications-other-project-key-0123';
const TELEGRAM_TOKEN = '654321:chat-notifications-token';
const DISCORD_TOKEN = 'chat-notifications-discord-token';
const GROUP = '-1002003004005';
const TOPIC = '17';

const CSV = ['date,title,currency,impact,forecast,previous,actual', '2026-01-07T13:30:00Z,CPI m/m,USD,High,0.3%,0.2%,'].join('\n');

interface Channel {
  featureId: string;
  channel: string;
  recipients: { key: string; name: string }[];
  deliveries: Record<'PENDING' | 'DELIVERED' | 'FAILED' | 'CANCELLED', number>;
}

describe('chat notification channels: Telegram and Discord (issue 18)', function () {
  this.timeout(120_000);
  const clock = movableClock(Date.parse('2026-01-07T10:00:00.000Z'));
  let t: TestService;
  let telegram: Awaited<ReturnType<typeof fakeTelegram>>;
  let discord: Awaited<ReturnType<typeof fakeDiscord>>;
  let telegramBot: string;
  let discordBot: string;
  let telegramChannel: string;
  let discordChannel: string;
  let operatorChannel: string;
  let pair: { master: string; slave: string; copierId: string };

  const channels = async (): Promise<Channel[]> => (await t.call('GET', `/projects/${A}/notificationChannels`)).body as Channel[];
  const add = async (body: Record<string, unknown>, project = A, key?: string) =>
    t.call('POST', `/projects/${project}/features`, { body: featureBody(body), ...(key ? { key } : {}) });

  before(async () => {
    telegram = await fakeTelegram(TELEGRAM_TOKEN);
    discord = await fakeDiscord(DISCORD_TOKEN);
    t = await startTestService({
      clock,
      env: {
        MESSAGING_TELEGRAM_API_ROOT: telegram.url,
        MESSAGING_DISCORD_API_ROOT: discord.url,
        TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
        NOTIFICATION_CHAT_RETRY_MS: '500,500,500,500,500',
      },
    });
    await createOtherProject(t, B, B_KEY);
    await pinQuotes(t, { EURUSD: [1.1, 1.1002] });
    pair = await copyPair(t, 'chatnote');
    const tg = await add({ type: 'FeatureMessagingAccountDTO', platform: 'TELEGRAM', botToken: TELEGRAM_TOKEN });
    const dc = await add({ type: 'FeatureMessagingAccountDTO', platform: 'DISCORD', botToken: DISCORD_TOKEN });
    expect([tg.status, dc.status], JSON.stringify([tg.body, dc.body])).to.deep.equal([200, 200]);
    telegramBot = tg.body.featureId;
    discordBot = dc.body.featureId;
  });
  after(async () => {
    await t?.stop();
    await telegram?.close();
    await discord?.close();
  });

  it('checks the features: their bot, accounts and log level, and the operator bot', async () => {
    const noBot = await add(
      {
        type: 'FeatureMessagingNotificationDTO',
        messagingAccountId: telegramBot,
        notifications: [{ chatId: GROUP, logLevel: { id: 3 } }],
      },
      B,
      B_KEY,
    );
    expect([noBot.status, noBot.body.error]).to.deep.equal([400, '[MESSAGING_ACCOUNT_NOT_FOUND]']);
    const level = await add({
      type: 'FeatureMessagingNotificationDTO',
      messagingAccountId: telegramBot,
      notifications: [{ chatId: GROUP, logLevel: { id: 7 } }],
    });
    expect([level.status, level.body.error]).to.deep.equal([400, '[VALIDATION_FAILED]']);
    const twice = await add({
      type: 'FeatureMessagingNotificationDTO',
      messagingAccountId: telegramBot,
      notifications: [
        { chatId: GROUP, logLevel: { id: 3 } },
        { chatId: GROUP, logLevel: { id: 1 } },
      ],
    });
    expect(twice.status).to.equal(400);
    const stranger = await add({
      type: 'FeatureMessagingNotificationDTO',
      messagingAccountId: telegramBot,
      notifications: [{ chatId: GROUP, logLevel: { id: 3 }, accountIds: ['00000000-0000-4000-8000-000000000001'] }],
    });
    expect([stranger.status, stranger.body.error]).to.deep.equal([400, '[VALIDATION_FAILED]']);
    expect((await channels()).map((c) => c.channel)).to.deep.equal([]);

    const added = await add({
      type: 'FeatureMessagingNotificationDTO',
      messagingAccountId: telegramBot,
      notifications: [{ chatId: GROUP, forumTopicId: TOPIC, logLevel: { id: 3 }, accountIds: [pair.slave], useAlias: true }],
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    expect(added.body.type).to.deep.equal({ id: 51, name: 'FeatureMessagingNotificationDTO' });
    expect(added.body.setting.notifications[0]).to.deep.equal({
      chatId: GROUP,
      forumTopicId: TOPIC,
      logLevel: { id: 3, name: 'Info' },
      accountIds: [pair.slave],
      useAlias: true,
      aliasMapping: { [pair.slave]: 'chatnote-slave' },
    });
    telegramChannel = added.body.featureId;
    const onDiscord = await add({
      type: 'FeatureMessagingNotificationDTO',
      messagingAccountId: discordBot,
      notifications: [{ chatId: discord.channelId, logLevel: { id: 3 }, accountIds: [pair.slave] }],
    });
    expect(onDiscord.status, JSON.stringify(onDiscord.body)).to.equal(200);
    discordChannel = onDiscord.body.featureId;
    const operator = await add({ type: 'FeatureTelegramNotificationDTO', notifications: [{ username: '@desk_alerts', logLevel: { id: 1 } }] });
    expect(operator.status, JSON.stringify(operator.body)).to.equal(200);
    expect(operator.body.type.id).to.equal(1);
    expect(operator.body.setting.notifications[0]).to.deep.include({ username: '@desk_alerts', logLevel: { id: 1, name: 'Error' }, useAlias: false });
    operatorChannel = operator.body.featureId;

    const listed = await channels();
    expect(listed.map((c) => [c.featureId, c.channel])).to.deep.equal([
      [telegramChannel, 'TELEGRAM'],
      [discordChannel, 'DISCORD'],
      [operatorChannel, 'TELEGRAM'],
    ]);
    expect(listed[0]!.recipients).to.deep.equal([{ key: `${GROUP}/${TOPIC}`, name: `${GROUP} → ${TOPIC}` }]);
    expect(listed[2]!.recipients.map((r) => r.key)).to.deep.equal(['@desk_alerts']);
    const other = await t.call('GET', `/projects/${B}/notificationChannels`, { key: B_KEY });
    expect(other.body).to.deep.equal([]);
  });

  it('sends a copy’s log line to a Telegram forum topic by alias and to a Discord channel, and only errors to the operator bot’s chat', async () => {
    await openPosition(t, pair.master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, pair.slave, (book) => book.length === 1, 'the copy');
    const topic = await eventually(async () => telegram.sent.find((m) => String(m.text).includes('Copied from master')), 20_000, 'the Telegram message');
    expect(topic).to.include({ chat_id: GROUP, message_thread_id: Number(TOPIC) });
    // useAlias: the slave and its master by their aliases, no UUID.
    expect(topic.text).to.match(/^Info · chatnote-slave: Copied from master chatnote-master/);
    expect(String(topic.text)).not.to.include(pair.slave);
    const posted = await eventually(async () => discord.sent.find((m) => m.content.includes('Copied from master')), 20_000, 'the Discord message');
    expect(posted.channelId).to.equal(discord.channelId);
    expect(posted.content).to.include(`Info · ${pair.slave}: Copied from master ${pair.master}`);
    // The master's own lines are not its accounts' (accountIds), and the operator's entry takes errors only.
    expect(telegram.sent.filter((m) => m.chat_id === '@desk_alerts')).to.deep.equal([]);
    const counted = await eventually(async () => {
      const list = await channels();
      return list[0]!.deliveries.PENDING === 0 && list[1]!.deliveries.PENDING === 0 && list[1]!.deliveries.DELIVERED >= 1 ? list : undefined;
    }, 10_000);
    expect(counted[0]!.deliveries.DELIVERED).to.equal(telegram.sent.filter((m) => m.chat_id === GROUP).length);
    expect(counted[1]!.deliveries.DELIVERED).to.equal(discord.sent.length);
  });

  it('retries a failing chat, counts it for its channel, and keeps copying meanwhile', async () => {
    const sentBefore = telegram.sent.length;
    const attemptsBefore = telegram.attempts.length;
    telegram.failSends(2);
    await openPosition(t, pair.master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.2 });
    // The copy does not wait for the chat.
    await bookWhere(t, pair.slave, (book) => book.length === 2, 'the second copy');
    const settled = await eventually(
      async () => {
        const list = await channels();
        const copied = telegram.sent.some((m) => String(m.text).includes('Copied from master') && String(m.text).includes('Sell 0.2'));
        return copied && list[0]!.deliveries.PENDING === 0 ? list[0]! : undefined;
      },
      30_000,
      'the retried deliveries',
    );
    const sent = telegram.sent.length - sentBefore;
    // Two attempts failed (500) and were tried again: each message got through once.
    expect(telegram.attempts.length - attemptsBefore).to.equal(sent + 2);
    expect(settled.deliveries).to.include({ DELIVERED: telegram.sent.filter((m) => m.chat_id === GROUP).length, FAILED: 0 });
    const texts = telegram.sent.slice(sentBefore).map((m) => String(m.text));
    expect(new Set(texts).size).to.equal(texts.length);
  });

  it('sends a calendar alert to a chosen Telegram topic and every chat of a Discord channel at its lead time', async () => {
    await importCalendar(t.service.services, textSource('file:week.csv', 'csv', CSV));
    const events = await t.call('GET', `/projects/${A}/economicCalendar`);
    const cpi = (events.body.content as { id: string; title: string }[]).find((e) => e.title === 'CPI m/m')!.id;
    const wrong = await t.call('POST', `/projects/${A}/calendarAlerts`, {
      body: { eventId: cpi, leadMinutes: 30, targets: [{ featureId: telegramChannel, recipient: '12345' }] },
    });
    expect([wrong.status, wrong.body.error]).to.deep.equal([400, '[NOTIFICATION_TARGET_INVALID]']);
    const armed = await t.call('POST', `/projects/${A}/calendarAlerts`, {
      body: { eventId: cpi, leadMinutes: 30, targets: [{ featureId: telegramChannel, recipient: `${GROUP}/${TOPIC}` }, { featureId: discordChannel }] },
    });
    expect(armed.status, JSON.stringify(armed.body)).to.equal(200);
    discord.failPosts(1);
    clock.advance(3 * 3600_000);
    const topic = await eventually(async () => telegram.sent.find((m) => String(m.text).includes('CPI m/m')), 20_000, 'the alert on Telegram');
    expect(topic).to.include({ chat_id: GROUP, message_thread_id: Number(TOPIC) });
    // Sent at its lead time: 30 minutes before the event at most, and no later than the clock now (the
    // virtual clock also runs with real time, so how many minutes are left depends on the spec's pace).
    const left = Number(/^USD CPI m\/m in (\d+) minutes \(HIGH\)\nCPI m\/m/.exec(String(topic.text))?.[1]);
    expect(left, String(topic.text)).to.be.within(Math.floor((Date.parse('2026-01-07T13:30:00Z') - clock().getTime()) / 60_000), 30);
    // Discord refused once (403 Missing Access): retried.
    const posted = await eventually(async () => discord.sent.find((m) => m.content.includes('CPI m/m')), 20_000, 'the alert on Discord');
    expect(posted.channelId).to.equal(discord.channelId);
    const fired = await eventually(async () => {
      const res = await t.call('GET', `/projects/${A}/calendarAlerts?status=FIRED`);
      return res.body.length === 1 ? res.body[0] : undefined;
    }, 10_000);
    expect(fired).to.include({ deliveries: 2 });
    await new Promise((r) => setTimeout(r, 1500));
    expect(telegram.sent.filter((m) => String(m.text).includes('CPI m/m'))).to.have.length(1);
    expect(discord.sent.filter((m) => m.content.includes('CPI m/m'))).to.have.length(1);
  });

  it('removes a channel with its feature', async () => {
    expect((await t.call('DELETE', `/projects/${A}/features/${operatorChannel}`)).status).to.equal(200);
    expect((await channels()).map((c) => c.featureId)).to.deep.equal([telegramChannel, discordChannel]);
  });
});
