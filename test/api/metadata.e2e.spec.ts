// Metadata over HTTP (issue 17): GET /types/copierSettings/availableFields, generated from the copier
// schema, and GET /brokers/{brokerType}/all: the shipped list of each account type, the operator's
// DATA_DIR/brokers.json merged over it (read again when it changes; checked at start), the simulated
// venue's servers under every type, 404 [ACCOUNT_TYPE_NOT_FOUND] for anything else.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { copierSettingFields } from '../../api/types/copierSettingFields.js';
import { SIMULATED_SERVERS } from '../../engine/venues/simulated/servers.js';
import { startTestService, type TestService, validAccount } from '../support/service.js';
import { tempDir } from '../support/tempDirs.js';

describe('metadata: copier setting fields and brokers', function () {
  this.timeout(60_000);
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t?.stop());

  it('GET /types/copierSettings/availableFields answers the copier settings as FieldMetadataDTO', async () => {
    const res = await t.call('GET', '/types/copierSettings/availableFields');
    expect(res.status).to.equal(200);
    expect(res.body.map((f: { fieldName: string }) => f.fieldName)).to.deep.equal(copierSettingFields().map((f) => f.field));
    expect(res.body.find((f: { fieldName: string }) => f.fieldName === 'multiplier')).to.deep.include({
      fieldName: 'multiplier',
      fieldType: 'number',
      dtoClassName: 'CopierDTO',
    });
    expect(res.body.map((f: { fieldName: string }) => f.fieldName)).not.to.include.members(['id', 'fromAccountId', 'toAccountId', 'created']);
    expect((await t.call('GET', '/types/copierSettings/availableFields', { key: null })).status).to.equal(401);
  });

  it('GET /brokers/{brokerType}/all lists the curated brokers of every type, the simulated venue last', async () => {
    for (let type = 1; type <= 17; type++) {
      const res = await t.call('GET', `/brokers/${type}/all`);
      expect(res.status, `type ${type}`).to.equal(200);
      expect(res.body.length, `type ${type}`).to.be.greaterThan(1);
      expect(res.body.at(-1), `type ${type}`).to.deep.equal({
        name: 'Simulated',
        servers: [...SIMULATED_SERVERS],
        source: 'built in: the simulated venue',
        simulated: true,
      });
      for (const broker of res.body.slice(0, -1)) expect(broker.source, `${type} ${broker.name}`).to.match(/curated/i);
    }
    const mt5 = (await t.call('GET', '/brokers/2/all')).body as { name: string; servers: string[] }[];
    expect(mt5.find((b) => b.name === 'MetaQuotes')?.servers).to.include('MetaQuotes-Demo');
  });

  it('answers 404 [ACCOUNT_TYPE_NOT_FOUND] for a type that does not exist', async () => {
    for (const type of ['0', '18', '01x', 'abc', '-1', '1.0', '99999999999']) {
      const res = await t.call('GET', `/brokers/${type}/all`);
      expect(res.status, type).to.equal(404);
      expect(res.body.error, type).to.equal('[ACCOUNT_TYPE_NOT_FOUND]');
    }
  });

  it('the servers listed for the simulated venue work: hedging and netting demo accounts, in USD, EUR and GBP', async () => {
    for (const [index, loginServer] of SIMULATED_SERVERS.entries()) {
      const created = await t.call('POST', '/accounts', {
        body: validAccount({ loginServer, loginAccountNumber: `77${index}`, alias: loginServer }),
      });
      expect(created.status, loginServer).to.equal(200);
      const started = await t.call('POST', `/accounts/${created.body.id}/actions/start`);
      expect(started.status, `${loginServer}: ${JSON.stringify(started.body)}`).to.be.within(200, 204);
      const information = await t.call('GET', `/accounts/${created.body.id}/information`);
      expect(information.body.accountMode, loginServer).to.equal(/netting/i.test(loginServer) ? 'NETTING' : 'HEDGING');
      expect(information.body.currency, loginServer).to.equal(/EUR|GBP/.exec(loginServer)?.[0] ?? 'USD');
    }
    expect(SIMULATED_SERVERS.filter((s) => /netting/i.test(s))).to.have.length(1);
    expect(SIMULATED_SERVERS.filter((s) => /EUR|GBP/.test(s))).to.have.length(2);
  });

  it("merges the operator's DATA_DIR/brokers.json over the shipped list, re-read when it changes, the last good one kept when it breaks", async () => {
    const file = path.join(t.dataDir, 'brokers.json');
    const before = (await t.call('GET', '/brokers/1/all')).body as { name: string }[];
    writeFileSync(
      file,
      JSON.stringify({
        source: 'our desk',
        accountTypes: [
          {
            accountTypeId: 1,
            brokers: [
              { name: 'Our Own Broker', servers: ['OwnBroker-Live'] },
              { name: 'ic markets', servers: ['ICMarketsSC-Live99'] },
            ],
          },
        ],
      }),
    );
    const merged = (await t.call('GET', '/brokers/1/all')).body as { name: string; servers: string[]; source: string }[];
    expect(merged).to.have.length(before.length + 1);
    expect(merged.find((b) => b.name === 'ic markets')).to.deep.equal({
      name: 'ic markets',
      servers: ['ICMarketsSC-Live99'],
      source: 'our desk',
      simulated: false,
    });
    expect(merged.map((b) => b.name)).not.to.include('IC Markets');
    expect(merged.at(-2)).to.deep.equal({ name: 'Our Own Broker', servers: ['OwnBroker-Live'], source: 'our desk', simulated: false });
    expect(merged.at(-1)!.name).to.equal('Simulated');
    // other types are untouched
    expect((await t.call('GET', '/brokers/2/all')).body.map((b: { name: string }) => b.name)).not.to.include('Our Own Broker');

    writeFileSync(file, '{ "accountTypes": [ { "accountTypeId": 42, "brokers": [] } ], "broken": ');
    expect((await t.call('GET', '/brokers/1/all')).body).to.deep.equal(merged);
  });

  it('refuses to start with an operator brokers file that is not valid, naming the problem', async () => {
    const dataDir = tempDir('ct-brokers-');
    writeFileSync(path.join(dataDir, 'brokers.json'), JSON.stringify({ accountTypes: [{ accountTypeId: 18, brokers: [] }] }));
    let failure: unknown = null;
    try {
      const started = await startTestService({ dataDir });
      await started.stop();
    } catch (error) {
      failure = error;
    }
    expect(String(failure)).to.include('brokers.json').and.to.include('accountTypeId');
  });
});
