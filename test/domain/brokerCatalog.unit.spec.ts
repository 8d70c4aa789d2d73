// The brokers of an account type (GET /brokers/{brokerType}/all): the curated list shipped in
// data/brokers/brokers.json covers every account type with its sources, and the operator's list merges
// over it as domain/broker/catalog.ts says, the simulated venue last under every type.
import { expect } from 'chai';
import { SHIPPED_BROKERS_FILE, readBrokerFile } from '../../app/brokers.js';
import { accountTypes, isAccountType } from '../../domain/account/enums.js';
import { type BrokerFile, brokersOfType, checkBrokerFile } from '../../domain/broker/catalog.js';

const SIMULATED = { name: 'Simulated', servers: ['Simulated-Demo', 'Simulated-Netting-Demo'] };

const shipped: BrokerFile = {
  source: 'shipped source',
  accountTypes: [
    { accountTypeId: 1, source: 'list one', brokers: [{ name: 'Alpha', servers: ['Alpha-Demo'] }, { name: 'Beta' }] },
    { accountTypeId: 2, brokers: [{ name: 'Gamma', servers: ['Gamma-Live'] }] },
  ],
};

describe('broker catalogue', () => {
  it('ships a list for each of the 17 account types, each with its platform and its sources, valid as an operator file must be', () => {
    const file = readBrokerFile(SHIPPED_BROKERS_FILE);
    expect(checkBrokerFile(file, isAccountType)).to.equal(null);
    expect(file.accountTypes.map((l) => l.accountTypeId)).to.deep.equal(accountTypes.map((t) => t.id));
    for (const list of file.accountTypes) {
      expect(list.platform, `type ${list.accountTypeId}`).to.be.a('string');
      expect(list.source, `type ${list.accountTypeId}`).to.match(/curated 2026/i);
      expect(list.brokers.length, `type ${list.accountTypeId}`).to.be.greaterThan(0);
    }
    const mt5 = brokersOfType(2, file, null, SIMULATED);
    expect(mt5.find((b) => b.name === 'MetaQuotes')?.servers).to.include('MetaQuotes-Demo');
    expect(mt5.every((b) => b.source.length > 0)).to.equal(true);
  });

  it('lists the shipped brokers of the type with their list source, then the simulated venue', () => {
    expect(brokersOfType(1, shipped, null, SIMULATED)).to.deep.equal([
      { name: 'Alpha', servers: ['Alpha-Demo'], source: 'list one', simulated: false },
      { name: 'Beta', servers: [], source: 'list one', simulated: false },
      { name: 'Simulated', servers: SIMULATED.servers, source: 'built in: the simulated venue', simulated: true },
    ]);
    expect(brokersOfType(2, shipped, null, SIMULATED)[0]).to.deep.equal({ name: 'Gamma', servers: ['Gamma-Live'], source: 'shipped source', simulated: false });
    // a type without a list still has the simulated venue
    expect(brokersOfType(17, shipped, null, SIMULATED).map((b) => b.name)).to.deep.equal(['Simulated']);
  });

  it("merges the operator's list over it: same name replaces in place, new names follow, replaceShipped drops the shipped list", () => {
    const operator: BrokerFile = {
      accountTypes: [
        {
          accountTypeId: 1,
          source: 'our desk',
          brokers: [
            { name: ' beta ', servers: ['Beta-Live-7', 'Beta-Live-7'] },
            { name: 'Delta', servers: ['D-1'] },
          ],
        },
        { accountTypeId: 2, replaceShipped: true, brokers: [{ name: 'Own' }] },
        // the simulated venue is the service's: a file cannot rename or hide it
        { accountTypeId: 3, brokers: [{ name: 'simulated', servers: ['x'] }] },
      ],
    };
    expect(brokersOfType(1, shipped, operator, SIMULATED).map((b) => [b.name, b.servers, b.source])).to.deep.equal([
      ['Alpha', ['Alpha-Demo'], 'list one'],
      ['beta', ['Beta-Live-7'], 'our desk'],
      ['Delta', ['D-1'], 'our desk'],
      ['Simulated', SIMULATED.servers, 'built in: the simulated venue'],
    ]);
    expect(brokersOfType(2, shipped, operator, SIMULATED).map((b) => [b.name, b.source])).to.deep.equal([
      ['Own', 'the operator (DATA_DIR/brokers.json)'],
      ['Simulated', 'built in: the simulated venue'],
    ]);
    expect(brokersOfType(3, shipped, operator, SIMULATED).map((b) => b.servers)).to.deep.equal([SIMULATED.servers]);
  });

  it('refuses a file that is not a brokers file, naming the problem', () => {
    const problem = (file: unknown) => checkBrokerFile(file, isAccountType);
    expect(problem([])).to.include('accountTypes');
    expect(problem({ accountTypes: [{ accountTypeId: 18, brokers: [] }] })).to.include('$.accountTypes[0].accountTypeId');
    expect(problem({ accountTypes: [{ accountTypeId: 1, brokers: [{ name: 'A' }, { name: 'a ' }] }] })).to.include('listed twice');
    expect(problem({ accountTypes: [{ accountTypeId: 1, brokers: [{ name: 'A', server: 'x' }] }] })).to.include('brokers[0].server: unknown member');
    expect(problem({ accountTypes: [{ accountTypeId: 1, brokers: [{ name: 'A', servers: [''] }] }] })).to.include('servers');
    expect(problem({ accountTypes: [{ accountTypeId: 1, brokers: [{ name: '' }] }] })).to.include('name');
    expect(problem({ accountTypes: [{ accountTypeId: 1, replaceShipped: 'yes', brokers: [] }] })).to.include('replaceShipped');
    expect(problem({ accountTypes: [] })).to.equal(null);
  });
});
