// What a feature is, as the catalogue knows it: the spec's DTO name, where it may be attached,
// whether one copier or account may hold several, its members (TypeBox, checked at the API and
// documented in the OpenAPI text), their defaults, and rules between members.
import type { TObject } from '@sinclair/typebox';
import type { FeatureScopeKind } from './events.js';

export interface FeatureDefinition<S extends object = Record<string, unknown>> {
  /** The spec's DTO name, also the `type` of its FeatureSettingDTO: 'FeatureCopierFilterDTO'. */
  readonly type: string;
  readonly scopes: readonly FeatureScopeKind[];
  /** false: at most one per copier (or account, or project). */
  readonly multiple: boolean;
  /** The members without `type`. */
  readonly members: TObject;
  /** Filled in for members left out when the feature is added or replaced. */
  readonly defaults: Partial<S>;
  /** What the feature does, for the OpenAPI document. */
  readonly description: string;
  /** Rules between members the schema cannot say: the first problem in words, or null. */
  readonly check?: (settings: S) => string | null;
  /**
   * Members that show the feature's own state (a maintenance window's recorded copier states): read-only,
   * so values sent are replaced by their defaults, and answers show the state kept by the service.
   */
  readonly stateMembers?: readonly string[];
}

/** The members of a stored setting, without `type`. */
export const membersOf = <S>(setting: { readonly type: string }): S => {
  const { type: _type, ...members } = setting as Record<string, unknown>;
  return members as S;
};
