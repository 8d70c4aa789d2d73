// The copy engine's tick (engine/copy/scheduling.ts): its reads of deferrals, decided approvals and
// managed copiers are kept while their read models' marks stay; a deferral falling due is still taken
// up on time, one recorded meanwhile (a moved mark) is read, and one whose row its handler deleted
// itself (a deleted copier's, handlers.ts: no mark moves) is not scheduled again.
import { expect } from 'chai';
import { Scheduling } from '../../../engine/copy/scheduling.js';
import type { ScheduledWork } from '../../../engine/copy/work.js';
import { countingDb } from '../../support/countingDb.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const T0 = Date.parse('2026-11-27T18:00:00Z');

const deferral = (id: string, dueInMs: number) => ({ id, master_account_id: `master-${id}`, due_at: new Date(T0 + dueInMs) });

describe('engine/copy/scheduling: the tick reads again only when its read models moved', () => {
  const setUp = (marks: Map<string, string> | null) => {
    const rows: Record<string, unknown[]> = { copy_deferrals: [], approvals: [], features: [] };
    const { db, queries } = countingDb(rows);
    let now = T0;
    const scheduling = new Scheduling(
      { db, clock: () => new Date(now), log: silent, ...(marks ? { readModelVersion: (name: string) => marks.get(name) ?? null } : {}) },
      () => false,
    );
    const scheduled: ScheduledWork[] = [];
    scheduling.work$.subscribe((work) => scheduled.push(work));
    return { rows, queries, scheduling, scheduled, advance: (ms: number) => (now += ms) };
  };
  const marks = () =>
    new Map([
      ['copies', '1:1'],
      ['approvals', '1:1'],
      ['features', '1:1'],
      ['copiers', '1:1'],
    ]);

  it('reads nothing at an idle tick while the marks stay, and takes up a kept deferral once it falls due', async () => {
    const { rows, queries, scheduling, scheduled, advance } = setUp(marks());
    rows.copy_deferrals = [deferral('a', 5_000), deferral('b', 60_000)];
    await scheduling.tick();
    expect(queries).to.deep.equal(['copy_deferrals', 'approvals', 'features']);
    expect(scheduled).to.deep.equal([]);
    await scheduling.tick();
    advance(5_000);
    await scheduling.tick();
    expect(queries).to.have.length(3);
    expect(scheduled).to.deep.equal([{ kind: 'deferral', group: 'master-a', deferralId: 'a' }]);
  });

  it('reads again once a read model moved: a deferral recorded meanwhile is taken up, a managing feature added is managed', async () => {
    const m = marks();
    const { rows, queries, scheduling, scheduled } = setUp(m);
    await scheduling.tick();
    rows.copy_deferrals = [deferral('c', -1)];
    rows.features = [{ copier_id: 'copier-1', from_account_id: 'master-1' }];
    m.set('copies', '1:2');
    await scheduling.tick();
    expect(queries).to.deep.equal(['copy_deferrals', 'approvals', 'features', 'copy_deferrals', 'approvals']);
    expect(scheduled).to.deep.equal([{ kind: 'deferral', group: 'master-c', deferralId: 'c' }]);
    m.set('features', '1:2');
    await scheduling.tick();
    expect(queries.slice(5)).to.deep.equal(['approvals', 'features']);
    expect(scheduled.at(-1)).to.deep.equal({ kind: 'manage', group: 'master-1', copierId: 'copier-1' });
  });

  it('reads the deferrals again after one was handled: a row its handler deleted itself, with no mark moved, is not scheduled again', async () => {
    const { rows, queries, scheduling, scheduled } = setUp(marks());
    rows.copy_deferrals = [deferral('d', -1)];
    await scheduling.tick();
    expect(scheduled).to.have.length(1);
    // handlers.ts: the copier is gone, so its deferral's row is deleted outside the projection runner.
    rows.copy_deferrals = [];
    scheduling.done(scheduled[0]!);
    await scheduling.tick();
    await scheduling.tick();
    expect(scheduled).to.have.length(1);
    expect(queries).to.deep.equal(['copy_deferrals', 'approvals', 'features', 'copy_deferrals', 'approvals']);
  });

  it('reads at every tick where the marks are unknown (another instance applies the read models)', async () => {
    const { queries, scheduling } = setUp(null);
    await scheduling.tick();
    await scheduling.tick();
    expect(queries).to.deep.equal(['copy_deferrals', 'approvals', 'features', 'copy_deferrals', 'approvals', 'features']);
  });
});
