// The feature aggregate: one configured feature. Its settings are checked against the catalogue
// (catalogue.ts: members, bounds, the scopes it may be attached to) before the command; whether a
// second instance may exist on the same copier or account is checked against the read model, as it
// spans several features. The decider keeps the feature's own rules: it exists, it belongs to the
// scope in the path, its type never changes.
import type { Decider } from '../shared/command.js';
import { illegalState, invalid, notFound } from '../shared/errors.js';
import { sameJson } from '../shared/json.js';
import type { FeatureCommand } from './commands.js';
import { type FeatureEvent, type FeatureScope, type FeatureSetting, sameScope } from './events.js';

export interface Feature {
  readonly exists: boolean;
  readonly removed: boolean;
  readonly projectId: string;
  readonly scope: FeatureScope | null;
  readonly setting: FeatureSetting | null;
}

export const initialState: Feature = { exists: false, removed: false, projectId: '', scope: null, setting: null };

const existing = (
  state: Feature,
  data: { featureId: string; projectId: string; scope: FeatureScope },
): Feature & { setting: FeatureSetting; scope: FeatureScope } => {
  if (!state.exists || state.removed || state.projectId !== data.projectId || !state.scope || !sameScope(state.scope, data.scope) || !state.setting) {
    throw notFound('[FEATURE_NOT_FOUND]', `feature ${data.featureId} not found`);
  }
  return state as Feature & { setting: FeatureSetting; scope: FeatureScope };
};

export const decide = (command: FeatureCommand, state: Feature): FeatureEvent[] => {
  const at = command.metadata.now;
  const { featureId, scope } = command.data;
  switch (command.type) {
    case 'AddFeature':
      if (state.exists) throw illegalState('[FEATURE_ALREADY_EXISTS]', `feature ${featureId} already exists`);
      return [{ type: 'FeatureAdded', data: { featureId, scope, projectId: command.data.projectId, setting: command.data.setting, at } }];
    case 'UpdateFeature': {
      const feature = existing(state, command.data);
      if (feature.setting.type !== command.data.setting.type) {
        throw invalid('[FEATURE_TYPE_IMMUTABLE]', `feature ${featureId} is a ${feature.setting.type}; its type cannot change (delete it and add another)`);
      }
      if (sameJson(feature.setting, command.data.setting)) return [];
      return [{ type: 'FeatureUpdated', data: { featureId, scope, setting: command.data.setting, at } }];
    }
    case 'RemoveFeature':
      existing(state, command.data);
      return [{ type: 'FeatureRemoved', data: { featureId, scope, at } }];
    case 'ResetFeatureState': {
      const feature = existing(state, command.data);
      if (feature.setting.type !== command.data.expectedType) {
        throw notFound('[FEATURE_NOT_FOUND]', `feature ${featureId} is not a ${command.data.expectedType}`);
      }
      return [{ type: 'FeatureStateReset', data: { featureId, scope, key: command.data.key, at } }];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const evolve = (state: Feature, event: FeatureEvent): Feature => {
  switch (event.type) {
    case 'FeatureAdded':
      return { exists: true, removed: false, projectId: event.data.projectId, scope: event.data.scope, setting: event.data.setting };
    case 'FeatureUpdated':
      return { ...state, setting: event.data.setting };
    case 'FeatureRemoved':
      return { ...state, removed: true };
    default:
      return state;
  }
};

export const featureDecider: Decider<FeatureCommand, FeatureEvent, Feature> = { decide, evolve, initialState };
