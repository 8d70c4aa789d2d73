import { expect } from 'chai';
import { drawdownOf } from '../../domain/analytics/drawdown.js';

describe('drawdown from the balance history', () => {
  it('is zero without losses', () => {
    expect(drawdownOf([{ kind: 'balance', amount: 1000 }, { kind: 'trade', result: 50 }])).to.deep.equal({ maxDrawdown: 0, avgDrawdown: 0 });
  });

  it('measures each episode from its peak: 1000 -> 900 (10%) -> 1100 -> 880 (20%)', () => {
    const steps = [
      { kind: 'balance', amount: 1000 },
      { kind: 'trade', result: -100 },
      { kind: 'trade', result: 200 },
      { kind: 'trade', result: -220 },
    ] as const;
    expect(drawdownOf(steps)).to.deep.equal({ maxDrawdown: 20, avgDrawdown: 15 });
  });

  it('a deposit during a drawdown neither ends it nor deepens it', () => {
    const steps = [
      { kind: 'balance', amount: 1000 },
      { kind: 'trade', result: -100 },
      { kind: 'balance', amount: 500 },
      { kind: 'trade', result: -50 },
    ] as const;
    // peak 1500 after the deposit, balance 1350: 10%.
    expect(drawdownOf(steps).maxDrawdown).to.equal(10);
  });

  it('a withdrawal creates no drawdown', () => {
    expect(drawdownOf([{ kind: 'balance', amount: 1000 }, { kind: 'balance', amount: -400 }, { kind: 'trade', result: 10 }]).maxDrawdown).to.equal(0);
  });
});
