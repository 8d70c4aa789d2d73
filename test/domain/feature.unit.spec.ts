import { expect } from 'chai';
import type { FeatureCommand } from '../../domain/feature/commands.js';
import { featureDecider } from '../../domain/feature/decider.js';
import type { FeatureEvent, FeatureScope } from '../../domain/feature/events.js';
import { systemContext } from '../../domain/shared/command.js';
import { sameJson } from '../../domain/shared/json.js';

const scope: FeatureScope = { kind: 'copier', accountId: 'a-1', copierId: 'c-1' };
const metadata = { now: '2026-01-07T10:00:00.000Z', context: systemContext('spec') };
const fold = (events: readonly FeatureEvent[]) => events.reduce(featureDecider.evolve, featureDecider.initialState);
const added: FeatureEvent = {
  type: 'FeatureAdded',
  data: { featureId: 'f-1', projectId: 'p-1', scope, setting: { type: 'FeatureCopierFilterDTO', minLotSize: 0.1, maxLotSize: 1 }, at: metadata.now },
};
const command = (type: FeatureCommand['type'], extra: Record<string, unknown> = {}): FeatureCommand =>
  ({ type, data: { featureId: 'f-1', projectId: 'p-1', scope, ...extra }, metadata }) as FeatureCommand;

describe('feature decider', () => {
  it('adds a feature once', () => {
    expect(featureDecider.decide(command('AddFeature', { setting: added.data.setting }), featureDecider.initialState)[0]?.type).to.equal('FeatureAdded');
    expect(() => featureDecider.decide(command('AddFeature', { setting: {} }), fold([added]))).to.throw(/already exists/);
  });

  it('finds a feature whose scope was read back with its members in another order (regression: jsonb order)', () => {
    const stored = fold([{ ...added, data: { ...added.data, scope: { copierId: 'c-1', kind: 'copier', accountId: 'a-1' } as FeatureScope } }]);
    const events = featureDecider.decide(command('UpdateFeature', { setting: { type: 'FeatureCopierFilterDTO', minLotSize: 0.2, maxLotSize: 1 } }), stored);
    expect(events.map((e) => e.type)).to.deep.equal(['FeatureUpdated']);
  });

  it('records no update for the same setting in another member order', () =>
    expect(
      featureDecider.decide(command('UpdateFeature', { setting: { maxLotSize: 1, type: 'FeatureCopierFilterDTO', minLotSize: 0.1 } }), fold([added])),
    ).to.deep.equal([]));

  it('refuses a type change, and anything on another scope or project as not found', () => {
    expect(() => featureDecider.decide(command('UpdateFeature', { setting: { type: 'FeatureTrailingStopDTO' } }), fold([added]))).to.throw(
      /type cannot change/,
    );
    expect(() =>
      featureDecider.decide(
        { type: 'RemoveFeature', data: { featureId: 'f-1', projectId: 'p-1', scope: { ...scope, copierId: 'c-2' } }, metadata },
        fold([added]),
      ),
    ).to.throw(/not found/);
    expect(() => featureDecider.decide({ type: 'RemoveFeature', data: { featureId: 'f-1', projectId: 'p-2', scope }, metadata }, fold([added]))).to.throw(
      /not found/,
    );
  });

  it('resets the state of a feature of the expected type only', () => {
    expect(featureDecider.decide(command('ResetFeatureState', { key: 'EURUSD', expectedType: 'FeatureCopierFilterDTO' }), fold([added]))[0]).to.deep.include({
      type: 'FeatureStateReset',
    });
    expect(() => featureDecider.decide(command('ResetFeatureState', { key: null, expectedType: 'FeatureMasanielloDTO' }), fold([added]))).to.throw(
      /not a FeatureMasanielloDTO/,
    );
  });

  it('compares JSON values whatever the order of their members', () => {
    expect(sameJson({ a: 1, b: [{ x: 1, y: 2 }] }, { b: [{ y: 2, x: 1 }], a: 1 })).to.equal(true);
    expect(sameJson({ a: 1 }, { a: 2 })).to.equal(false);
    expect(sameJson([1, 2], [2, 1])).to.equal(false);
  });
});
