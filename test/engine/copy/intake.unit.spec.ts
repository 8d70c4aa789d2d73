// The intake's count of state events per account (engine/copy/intake.ts stateChangedSince): what an
// early run holds its decision against (early.ts). A copy-changing event counts for its account, a
// copier event for its slave account and its master (where known), nothing else for anyone.
import { expect } from 'chai';
import type { EarlyCopies } from '../../../engine/copy/early.js';
import type { CopyInputs } from '../../../engine/copy/inputs.js';
import { Intake } from '../../../engine/copy/intake.js';
import type { Outcomes } from '../../../engine/copy/outcomes.js';
import type { Tracking } from '../../../engine/copy/tracking.js';
import type { RecordedEvent } from '../../../store/port.js';
import type { Recovery } from '../../../store/recovery.js';

const AT = '2026-01-07T10:00:00.000Z';
let commit = 0n;
const recorded = (streamId: string, type: string, data: unknown): RecordedEvent => {
  commit += 1n;
  return {
    streamId,
    id: `id-${commit}`,
    revision: 0n,
    type,
    data,
    metadata: {},
    created: new Date(AT),
    position: { commit, prepare: commit },
  } as RecordedEvent;
};
const closed = (accountId: string) => recorded(`positions-${accountId}`, 'PositionClosed', { accountId, at: AT, trade: { positionId: '1', symbol: 'EURUSD' } });
const opened = (accountId: string) =>
  recorded(`positions-${accountId}`, 'PositionOpened', { accountId, at: AT, position: { positionId: '2', symbol: 'EURUSD', orderType: 'Buy', volume: 1 } });
const copierEvent = (copierId: string, type: string, data: Record<string, unknown>) => recorded(`copier-${copierId}`, type, { copierId, at: AT, ...data });

const intake = (knownMasters: Record<string, string> = {}) =>
  new Intake({
    inputs: { knownMasterOf: (copierId: string) => knownMasters[copierId], copier: async () => null } as unknown as CopyInputs,
    outcomes: { waitForReadModels: async () => undefined } as unknown as Outcomes,
    tracking: { track: () => ({}), finish: () => undefined } as unknown as Tracking,
    handling: { succeeded: () => undefined, failed: async () => undefined } as unknown as Recovery,
    stopped: () => false,
    early: { routed: () => undefined, take: () => null, copierCreated: () => undefined } as unknown as EarlyCopies,
  });

describe('the intake’s state events per account (engine/copy/intake.ts)', () => {
  it('counts a close for its account only, and an opening for none', async () => {
    const i = intake();
    const mark = i.stateCount;
    await i.route(opened('S1'));
    expect(i.stateChangedSince(mark, ['S1', 'M'])).to.equal(false);
    await i.route(closed('S1'));
    expect(i.stateChangedSince(mark, ['M', 'S1'])).to.equal(true);
    expect(i.stateChangedSince(mark, ['N', 'S2'])).to.equal(false);
    expect(i.stateChangedSince(i.stateCount, ['S1'])).to.equal(false);
  });

  it('counts a copier event for its slave account and its master, where known', async () => {
    const i = intake({ c2: 'N' });
    const mark = i.stateCount;
    await i.route(copierEvent('c1', 'CopierCreated', { fromAccountId: 'M', toAccountId: 'S1', projectId: 'p', settings: {} }));
    expect(i.stateChangedSince(mark, ['M'])).to.equal(true);
    expect(i.stateChangedSince(mark, ['S1'])).to.equal(true);
    expect(i.stateChangedSince(mark, ['N', 'S2'])).to.equal(false);
    const next = i.stateCount;
    await i.route(copierEvent('c1', 'CopierUpdated', { toAccountId: 'S1', changes: {} }));
    expect(i.stateChangedSince(next, ['M'])).to.equal(true);
    const last = i.stateCount;
    await i.route(copierEvent('c2', 'CopierDeleted', { toAccountId: 'S2' }));
    expect(i.stateChangedSince(last, ['N'])).to.equal(true);
    expect(i.stateChangedSince(last, ['S2'])).to.equal(true);
    expect(i.stateChangedSince(last, ['M', 'S1'])).to.equal(false);
  });
});

describe('the intake’s masters (engine/copy/intake.ts knowMasters)', () => {
  it('hands on a positions event of a known master, marks one of another account handled at once, and still counts its state', async () => {
    const finished: unknown[] = [];
    const i = new Intake({
      inputs: { knownMasterOf: () => undefined, copier: async () => null } as unknown as CopyInputs,
      outcomes: { waitForReadModels: async () => undefined } as unknown as Outcomes,
      tracking: { track: (r: RecordedEvent) => ({ recorded: r }), finish: (t: unknown) => void finished.push(t) } as unknown as Tracking,
      handling: { succeeded: () => undefined, failed: async () => undefined } as unknown as Recovery,
      stopped: () => false,
      early: { routed: () => undefined, take: () => null, copierCreated: () => undefined } as unknown as EarlyCopies,
    });
    i.knowMasters(['M']);
    expect((await i.route(opened('M')))?.kind).to.equal('master');
    const mark = i.stateCount;
    expect(await i.route(opened('S1'))).to.equal(null);
    expect(await i.route(closed('S1'))).to.equal(null);
    expect(finished).to.have.length(2);
    expect(i.stateChangedSince(mark, ['S1'])).to.equal(true);
    // A copier created of S1 makes it a master from that event on.
    await i.route(copierEvent('c1', 'CopierCreated', { fromAccountId: 'S1', toAccountId: 'S2', projectId: 'p', settings: {} }));
    expect((await i.route(opened('S1')))?.kind).to.equal('master');
    // Unknown (the read failed): every positions event is handed on, as before.
    i.knowMasters(null);
    expect((await i.route(opened('S3')))?.kind).to.equal('master');
  });
});
