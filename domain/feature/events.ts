// Events of a feature (stream `feature-<featureId>`): a setting attached to a copier, an account or a
// project (spec "Feature DTOs"), and resets of the state some features keep.

/** Where a feature is attached. A copier feature is reached through its slave account. */
export type FeatureScope =
  | { readonly kind: 'copier'; readonly accountId: string; readonly copierId: string }
  | { readonly kind: 'account'; readonly accountId: string }
  | { readonly kind: 'project'; readonly projectId: string };

export type FeatureScopeKind = FeatureScope['kind'];

/** A FeatureSettingDTO: the feature DTO's name in `type`, its members beside it. */
export interface FeatureSetting {
  readonly type: string;
  readonly [member: string]: unknown;
}

interface Base {
  readonly featureId: string;
  readonly scope: FeatureScope;
  readonly at: string;
}

export type FeatureEvent =
  | { type: 'FeatureAdded'; data: Base & { projectId: string; setting: FeatureSetting } }
  | { type: 'FeatureUpdated'; data: Base & { setting: FeatureSetting } }
  | { type: 'FeatureRemoved'; data: Base }
  /** A feature's running state starts over (Masaniello series, profit target lock); `key` narrows it (a symbol). */
  | { type: 'FeatureStateReset'; data: Base & { key: string | null } };

export type FeatureEventType = FeatureEvent['type'];

export const featureEventTypes: readonly FeatureEventType[] = ['FeatureAdded', 'FeatureUpdated', 'FeatureRemoved', 'FeatureStateReset'];

export const FEATURE_STREAM_PREFIX = 'feature-';
export const featureStream = (featureId: string): string => `${FEATURE_STREAM_PREFIX}${featureId}`;

/** Member by member: a scope read back from the store may list its members in another order. */
export const sameScope = (a: FeatureScope, b: FeatureScope): boolean => {
  switch (a.kind) {
    case 'copier':
      return b.kind === 'copier' && a.accountId === b.accountId && a.copierId === b.copierId;
    case 'account':
      return b.kind === 'account' && a.accountId === b.accountId;
    case 'project':
      return b.kind === 'project' && a.projectId === b.projectId;
  }
};
