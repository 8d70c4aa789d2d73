// settingWithAlias (domain/notification/chatFeatures.ts): what the features read model writes into a chat
// notification feature's aliasMapping when an account's alias changes.
import { expect } from 'chai';
import { type ChatNotificationEntry, settingWithAlias } from '../../../domain/notification/chatFeatures.js';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const setting: { notifications: ChatNotificationEntry[] } = {
  notifications: [
    { logLevel: { id: 3 }, accountIds: [A, B], aliasMapping: { [A]: 'a', [B]: 'b' } },
    { logLevel: { id: 1 }, accountIds: [B], aliasMapping: { [B]: 'b' } },
    { logLevel: { id: 2 }, accountIds: [], aliasMapping: {} },
  ],
};
const mappings = (s: { notifications?: readonly ChatNotificationEntry[] } | null) => s?.notifications?.map((n) => n.aliasMapping);

describe('chat notification features: an alias changed', () => {
  it('answers the new alias in each entry naming the account, in the order of accountIds', () => {
    const changed = settingWithAlias(setting, A, 'new-a');
    expect(mappings(changed)).to.deep.equal([{ [A]: 'new-a', [B]: 'b' }, { [B]: 'b' }, {}]);
    expect(Object.keys(changed!.notifications[0]!.aliasMapping!)).to.deep.equal([A, B]);
  });

  it('leaves out an account that has no alias any more', () => expect(mappings(settingWithAlias(setting, B, null))).to.deep.equal([{ [A]: 'a' }, {}, {}]));

  it('gives an alias to an account that had none', () =>
    expect(mappings(settingWithAlias({ notifications: [{ logLevel: { id: 3 }, accountIds: [A], aliasMapping: {} }] }, A, 'a'))).to.deep.equal([{ [A]: 'a' }]));

  it('changes nothing when no entry names the account', () => expect(settingWithAlias(setting, '33333333-3333-4333-8333-333333333333', 'x')).to.equal(null));
});
