// The copy engine's kept reads (engine/copy/inputs.ts `kept`): a read of the master's copiers or of a
// fan-out's slave accounts is answered again, without a query, while the marks of its read models
// (ProjectionRunner.version) stay the same; a moved mark, or an unknown one, reads again.
import { expect } from 'chai';
import { CopyInputs } from '../../../engine/copy/inputs.js';
import { Priming } from '../../../engine/copy/priming.js';
import type { AccountSessions } from '../../../engine/venues/connections.js';
import { countingDb } from '../../support/countingDb.js';

const sessions = {} as AccountSessions;

describe('engine/copy/inputs: reads kept while their read models are unchanged', () => {
  it("answers the master's copiers again while the copiers mark stays, and reads again once it moves", async () => {
    const { db, queries } = countingDb();
    const marks = new Map<string, string | null>([['copiers', '1:1']]);
    const inputs = new CopyInputs(
      db,
      sessions,
      () => new Date(),
      (name) => marks.get(name) ?? null,
    );
    const first = inputs.copiersOf('m');
    expect(inputs.copiersOf('m')).to.equal(first);
    await first;
    expect(inputs.copiersOf('m')).to.equal(first);
    expect(queries.filter((q) => q === 'copiers')).to.have.length(1);
    marks.set('copiers', '1:2');
    const second = inputs.copiersOf('m');
    expect(second).to.not.equal(first);
    await second;
    expect(queries.filter((q) => q === 'copiers')).to.have.length(2);
  });

  it('reads every time while a mark is unknown (another instance applies the read models)', async () => {
    const { db, queries } = countingDb();
    const inputs = new CopyInputs(
      db,
      sessions,
      () => new Date(),
      () => null,
    );
    await inputs.copiersOf('m');
    await inputs.copiersOf('m');
    expect(queries.filter((q) => q === 'copiers')).to.have.length(2);
  });

  it("keeps a fan-out's slave accounts per master while the accounts, protections and risk limits marks stay and the same accounts are asked for", async () => {
    const { db, queries } = countingDb();
    const marks = new Map<string, string | null>([
      ['accounts', '1:1'],
      ['protections', '1:1'],
      ['risk_limits', '1:1'],
    ]);
    const inputs = new CopyInputs(
      db,
      sessions,
      () => new Date(),
      (name) => marks.get(name) ?? null,
    );
    const reads = () => queries.filter((q) => q === 'accounts').length;
    await inputs.slaveAccounts(['a', 'b'], 'm');
    await inputs.slaveAccounts(['a', 'b'], 'm');
    expect(reads()).to.equal(1);
    await inputs.slaveAccounts(['a', 'b', 'c'], 'm');
    expect(reads(), 'other accounts asked for').to.equal(2);
    marks.set('protections', '1:2');
    await inputs.slaveAccounts(['a', 'b', 'c'], 'm');
    expect(reads(), 'protections changed').to.equal(3);
    await inputs.slaveAccounts(['a', 'b', 'c']);
    expect(reads(), 'no master: not kept').to.equal(4);
  });

  it('drops the kept reads of deleted masters once their read models moved, keeping what is current', async () => {
    const { db } = countingDb();
    const marks = new Map<string, string | null>([['copiers', '1:1']]);
    const inputs = new CopyInputs(
      db,
      sessions,
      () => new Date(),
      (name) => marks.get(name) ?? null,
    );
    for (let i = 0; i < 60; i++) await inputs.copiersOf(`gone-${i}`);
    expect(inputs.keptCount).to.equal(60);
    // The 60 masters are deleted: their copiers leave the read model, whose mark moves; nobody asks for them again.
    marks.set('copiers', '1:2');
    for (let i = 0; i < 200; i++) await inputs.copiersOf(`live-${i}`);
    expect(inputs.keptCount, 'only the live masters are kept').to.equal(200);
    const kept = inputs.copiersOf('live-7');
    expect(inputs.copiersOf('live-7'), 'a current read is still answered again').to.equal(kept);
  });

  it("primes a master's fan-out: its next reads of copiers, slave accounts, features and mappings make no query, and a moved mark reads again", async () => {
    const copier = (id: string, slave: string) => ({ id, from_account_id: 'm', to_account_id: slave, project_id: 'p', settings: {}, symbol_mappings: null });
    const { db, queries } = countingDb({ copiers: [copier('c1', 's1'), copier('c2', 's2')] });
    const marks = new Map<string, string | null>(
      ['copiers', 'accounts', 'protections', 'risk_limits', 'features', 'symbol_mappings'].map((name) => [name, '1:1']),
    );
    let symbolReads = 0;
    const connection = (login: string) => ({ login, symbols: async () => (symbolReads++, []) });
    const connected = { connection: (id: string) => (id === 's1' ? connection('login-s1') : undefined) } as unknown as AccountSessions;
    const inputs = new CopyInputs(
      db,
      connected,
      () => new Date(),
      (name) => marks.get(name) ?? null,
    );
    await inputs.prime('m');
    expect(inputs.knownMasterOf('c2')).to.equal('m');
    const primed = queries.length;
    expect(symbolReads, "the connected slave's symbols").to.equal(1);
    // What a fan-out then reads (handlers.ts fanOutInputs) is answered from what priming kept.
    const copiers = await inputs.copiersOf('m');
    await inputs.slaveAccounts(
      copiers.map((c) => c.to_account_id),
      'm',
    );
    await inputs.activeFeatures(copiers);
    await inputs.projectMappingsOf(copiers);
    expect(queries.length, queries.slice(primed).join()).to.equal(primed);
    // A copier added, removed or paused moves the copiers mark: the next fan-out reads its copiers again.
    marks.set('copiers', '1:2');
    await inputs.copiersOf('m');
    expect(queries.slice(primed)).to.deep.equal(['copiers']);
  });
});

describe('engine/copy/priming: reading ahead for masters in the background', () => {
  const settled = () => new Promise((resolve) => setImmediate(resolve));

  it('primes a master once at a time, once more when asked again meanwhile, a few masters at once, and logs a failure', async () => {
    const started: string[] = [];
    const ends = new Map<string, () => void>();
    const warnings: string[] = [];
    const priming = new Priming({
      prime: (master) => {
        started.push(master);
        if (master === 'bad') return Promise.reject(new Error('no database'));
        return new Promise<void>((resolve) => ends.set(`${master}#${started.length}`, resolve));
      },
      log: { warn: (message) => warnings.push(message) },
    });
    priming.request(['a']);
    priming.request(['a', 'a']);
    priming.request(['b', 'c']);
    await settled();
    expect(started, 'a once; b beside it; c waits (two at once)').to.deep.equal(['a', 'b']);
    ends.get('a#1')!();
    await settled();
    expect(started, 'a again (asked while it ran), beside b; c still waits').to.deep.equal(['a', 'b', 'a']);
    ends.get('b#2')!();
    ends.get('a#3')!();
    await settled();
    expect(started).to.deep.equal(['a', 'b', 'a', 'c']);
    ends.get('c#4')!();
    await settled();
    priming.request(['bad']);
    expect(await priming.idle().then(() => priming.finished)).to.equal(5);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.match(/master bad failed.*no database/);
  });
});
