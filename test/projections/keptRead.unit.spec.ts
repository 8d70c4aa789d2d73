// KeptRead (projections/keptRead.ts): the per-second loops' reads kept while their read models' marks stay.
import { expect } from 'chai';
import { KeptRead } from '../../projections/keptRead.js';

describe('KeptRead: a read kept while its read models are unchanged', () => {
  const counting = (answer: () => Promise<number> = async () => 1) => {
    let reads = 0;
    return {
      read: () => {
        reads += 1;
        return answer();
      },
      get reads() {
        return reads;
      },
    };
  };

  it('reads once while every mark stays, and again once one moves', async () => {
    const marks = new Map([
      ['features', '1:0'],
      ['risk_limits', '1:0'],
    ]);
    const source = counting();
    const kept = new KeptRead(['features', 'risk_limits'], source.read, (name) => marks.get(name) ?? null);
    await kept.get();
    await kept.get();
    await kept.get();
    expect(source.reads).to.equal(1);
    marks.set('risk_limits', '1:1');
    await kept.get();
    await kept.get();
    expect(source.reads).to.equal(2);
  });

  it('reads every time while a mark is unknown (another instance applies the read models, or no marks given)', async () => {
    const source = counting();
    const unknown = new KeptRead(['features'], source.read, () => null);
    const unmarked = new KeptRead(['features'], source.read);
    await unknown.get();
    await unknown.get();
    await unmarked.get();
    expect(source.reads).to.equal(3);
  });

  it('does not keep a failed read', async () => {
    let fail = true;
    const source = counting(async () => {
      if (fail) throw new Error('database unavailable');
      return 2;
    });
    const kept = new KeptRead(['features'], source.read, () => '1:0');
    await kept.get().then(
      () => expect.fail('the first read fails'),
      (error: Error) => expect(error.message).to.equal('database unavailable'),
    );
    fail = false;
    expect(await kept.get()).to.equal(2);
    expect(await kept.get()).to.equal(2);
    expect(source.reads).to.equal(2);
  });
});
