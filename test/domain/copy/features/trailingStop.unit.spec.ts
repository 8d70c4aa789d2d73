import { expect } from 'chai';
import { trailingStop } from '../../../../domain/copy/features/trailingStop.js';
import { managed, manageWith, symbolSpec } from '../given.js';

describe('feature: FeatureTrailingStopDTO', () => {
  // Buy at 1.1000 with take profit 1.1100: D = 100 pips = 0.0100.
  const trail = (activationThresholdPercentage: number, trailingStepPercentage: number) => ({
    feature: trailingStop,
    settings: { activationThresholdPercentage, trailingStepPercentage },
  });
  const buyAt = (currentPrice: number, stopLoss: number | null = null) => managed({ currentPrice, stopLoss });

  it('does nothing before the price has moved the activation share of the distance to take profit', () =>
    expect(manageWith(trail(50, 20), { copies: [buyAt(1.1049)] })).to.deep.equal([]));

  it('starts trailing at the threshold: the stop goes a step (20 % of D) behind the price', () => {
    const [action] = manageWith(trail(50, 20), { copies: [buyAt(1.105)] });
    expect(action).to.deep.include({ kind: 'modify', stopLoss: 1.103, takeProfit: 1.11, slavePositionId: 's-2002' });
  });

  it('moves only forward and by whole steps', () => {
    expect(manageWith(trail(50, 20), { copies: [buyAt(1.1069, 1.103)] })).to.deep.equal([]);
    expect(manageWith(trail(50, 20), { copies: [buyAt(1.107, 1.103)] })[0]).to.deep.include({ stopLoss: 1.105 });
    expect(manageWith(trail(50, 20), { copies: [buyAt(1.106, 1.105)] })).to.deep.equal([]);
  });

  it('trails a sell from above', () => {
    const sell = managed({ side: 'Sell', openPrice: 1.1, takeProfit: 1.09, currentPrice: 1.094, stopLoss: null });
    expect(manageWith(trail(50, 20), { copies: [sell] })[0]).to.deep.include({ stopLoss: 1.096 });
  });

  it("keeps the broker's stops level between the stop and the market", () => {
    const wide = managed({ currentPrice: 1.105, spec: symbolSpec({ stopsLevel: 300 }) });
    expect(manageWith(trail(50, 20), { copies: [wide] })[0]).to.deep.include({ stopLoss: 1.102 });
  });

  it('leaves a copy without take profit alone, and 0 % steps deactivate it', () => {
    expect(manageWith(trail(0, 20), { copies: [managed({ takeProfit: null, currentPrice: 1.2 })] })).to.deep.equal([]);
    expect(manageWith(trail(0, 0), { copies: [buyAt(1.109)] })).to.deep.equal([]);
  });
});
