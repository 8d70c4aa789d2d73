// aliasMapping of the chat notification features (FeatureMessagingNotificationDTO,
// FeatureTelegramNotificationDTO; issue 18): read-only, "the aliases of accountIds". It was filled when the
// feature was saved and went stale when an account's alias changed; the features read model now follows
// AccountUpdated (projections/features/projector.ts), live and in a rebuild.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { featuresProjection } from '../../projections/features/projector.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { accountUpdate, startTestService, type TestService } from '../support/service.js';
import { featureBody, startedAccount } from '../support/trading.js';

const A = DEFAULT_PROJECT_ID;

describe('chat notification features: aliasMapping follows the accounts (issue 18)', function () {
  this.timeout(120_000);
  let t: TestService;
  let first: string;
  let second: string;
  let featureId: string;

  const mappings = async (): Promise<Record<string, string>[]> => {
    const res = await t.call('GET', `/projects/${A}/features/${featureId}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return (res.body.setting.notifications as { aliasMapping: Record<string, string> }[]).map((n) => n.aliasMapping);
  };
  const rename = async (accountId: string, alias: string) => {
    const account = await t.call('GET', `/accounts/${accountId}`);
    const res = await t.call('PUT', `/accounts/${accountId}`, { body: accountUpdate(account.body, { alias }) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  };

  before(async () => {
    t = await startTestService();
    first = await startedAccount(t, 'alias-first');
    second = await startedAccount(t, 'alias-second');
    const bot = await t.call('POST', `/projects/${A}/features`, { body: featureBody({ type: 'FeatureMessagingAccountDTO', platform: 'OFFLINE' }) });
    expect(bot.status, JSON.stringify(bot.body)).to.equal(200);
    const added = await t.call('POST', `/projects/${A}/features`, {
      body: featureBody({
        type: 'FeatureMessagingNotificationDTO',
        messagingAccountId: bot.body.featureId,
        notifications: [
          { chatId: 'desk', logLevel: { id: 3 }, accountIds: [first, second], useAlias: true },
          { chatId: 'risk', logLevel: { id: 1 }, accountIds: [second] },
          { chatId: 'all', logLevel: { id: 2 } },
        ],
      }),
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    featureId = added.body.featureId;
  });
  after(() => t?.stop());

  it('answers the aliases the accounts had when the feature was saved', async () =>
    expect(await mappings()).to.deep.equal([{ [first]: 'alias-first', [second]: 'alias-second' }, { [second]: 'alias-second' }, {}]));

  it("answers an account's new alias in every entry naming it, and only there", async () => {
    await rename(second, 'renamed-second');
    expect(await mappings()).to.deep.equal([{ [first]: 'alias-first', [second]: 'renamed-second' }, { [second]: 'renamed-second' }, {}]);
  });

  it('a change of another member of the account leaves the mapping as it is', async () => {
    const account = await t.call('GET', `/accounts/${second}`);
    const res = await t.call('PUT', `/accounts/${second}`, { body: accountUpdate(account.body, { labels: ['desk'] }) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(await mappings()).to.deep.equal([{ [first]: 'alias-first', [second]: 'renamed-second' }, { [second]: 'renamed-second' }, {}]);
  });

  it('a rebuild of the features read model answers the same', async () => {
    const before = await mappings();
    await rebuildProjection(t.service.services.db, t.service.services.store, featuresProjection);
    expect(await mappings()).to.deep.equal(before);
  });
});
