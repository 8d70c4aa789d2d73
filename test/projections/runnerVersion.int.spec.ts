// The projection runner's marks (projections/runner.ts `version`), which the copy engine's kept reads
// compare (engine/copy/inputs.ts): moved by a checkpoint load (a term's start), and for a read model by
// a batch applied to it, before the waiters hear of that batch; unmoved for a read model the batch had
// nothing for.
import { expect } from 'chai';
import { accountDecider } from '../../domain/account/decider.js';
import { accountStream } from '../../domain/account/events.js';
import { systemContext } from '../../domain/shared/command.js';
import { accountsProjection } from '../../projections/accounts/projector.js';
import { copiersProjection } from '../../projections/copiers/projector.js';
import { createReadModelDb } from '../../projections/database.js';
import { migrateReadModels } from '../../projections/migrations.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { handleCommand } from '../../store/commandHandler.js';
import { PostgresEventStore } from '../../store/postgres/postgresEventStore.js';
import { migrateEventStore } from '../../store/postgres/schema.js';
import { freshDatabase } from '../support/postgres.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const PROJECT = '22222222-2222-4222-8222-222222222222';

describe('projection runner: read model versions', function () {
  // A fresh database's migrations alone can take longer than mocha's 30 s on a loaded machine.
  this.timeout(120_000);
  it('moves the mark of a read model a batch changed, before its waiters hear of it, and only that one', async () => {
    const url = await freshDatabase();
    const { db } = createReadModelDb(url);
    await migrateEventStore(db);
    await migrateReadModels(db);
    const store = await PostgresEventStore.connect(url);
    const runner = new ProjectionRunner(db, store, [accountsProjection, copiersProjection], quiet);
    try {
      const beforeStart = runner.version('accounts');
      expect(beforeStart, 'null before start, as its comment says').to.equal(null);
      await runner.start();
      const accounts = runner.version('accounts');
      expect(accounts, 'moved by the checkpoint load').to.not.equal(beforeStart);
      const copiers = runner.version('copiers');
      expect(accounts).to.be.a('string');

      const accountId = crypto.randomUUID();
      const { position } = await handleCommand(store, accountStream(accountId), accountDecider, {
        type: 'CreateAccount',
        data: {
          accountId,
          projectId: PROJECT,
          settings: {
            loginServer: 'Server-1',
            loginAccountNumber: '1001',
            passwordCiphertext: 'c',
            alias: 'a',
            accountTypeId: 1,
            regionId: 1,
            propFirm: false,
            tradingDisabled: false,
            nativeMode: false,
            closeUnmanagedPositions: false,
            dedicatedIp: null,
            myHomeIp: null,
            labels: [],
            skipCredentialCheck: false,
            ctraderClientId: null,
            ctraderClientSecretCiphertext: null,
            proxy: null,
          },
        },
        metadata: { now: new Date().toISOString(), context: { ...systemContext('t'), projectId: PROJECT } },
      });
      // Asked as the waiter hears of it: the mark has moved already.
      let heard: string | null = null;
      const reached = await runner.waitFor(position!, 10_000, ['accounts']).then((ok) => {
        heard = runner.version('accounts');
        return ok;
      });
      expect(reached).to.equal(true);
      expect(heard).to.be.a('string').and.not.equal(accounts);
      expect(runner.version('copiers'), 'nothing applied to copiers').to.equal(copiers);
    } finally {
      await runner.stop();
      await store.dispose();
      await db.destroy();
    }
  });
});
