import type { CommandMetadata } from '../shared/command.js';
import type { FeatureScope, FeatureSetting } from './events.js';

interface Target {
  readonly featureId: string;
  readonly projectId: string;
  /** The scope in the request path: a feature is reached only through its own copier or account. */
  readonly scope: FeatureScope;
}

export type FeatureCommand =
  | { type: 'AddFeature'; data: Target & { setting: FeatureSetting }; metadata: CommandMetadata }
  | { type: 'UpdateFeature'; data: Target & { setting: FeatureSetting }; metadata: CommandMetadata }
  | { type: 'RemoveFeature'; data: Target; metadata: CommandMetadata }
  | { type: 'ResetFeatureState'; data: Target & { key: string | null; expectedType: string }; metadata: CommandMetadata };
