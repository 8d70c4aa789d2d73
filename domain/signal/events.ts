// The events of signal providers and followers. A provider and a follower are features
// (domain/feature: stream `feature-<id>`, FeatureAdded / FeatureUpdated / FeatureRemoved whose
// setting.type is FeatureSignalProviderDTO or FeatureSignalFollowerDTO); a follower's copying is a copier
// (domain/copier: stream `copier-<signalFollowerId>`, CopierCreated carrying signalProviderId). So:
//   - a provider is created, changed (fees lowered, description, ...) and removed by its feature events;
//   - a follower subscribes at its FeatureAdded, changes (active, monitorOnly, suspended by the provider)
//     at its FeatureUpdated, and leaves at its FeatureRemoved (the provider's removal: the copier's
//     CopierDeleted comes first, in the same request).
// signalEventOf reads them as the signals read model (projections/signals) and the earnings do.
import type { FeatureEvent, FeatureSetting } from '../feature/events.js';
import { SIGNAL_FOLLOWER, type SignalFollowerSettings } from './follower.js';
import { SIGNAL_PROVIDER, type SignalProviderSettings } from './provider.js';

export type SignalEvent =
  | {
      kind: 'ProviderCreated' | 'ProviderUpdated';
      providerId: string;
      projectId: string | null;
      accountId: string;
      settings: SignalProviderSettings;
      at: string;
    }
  | {
      kind: 'FollowerSubscribed' | 'FollowerUpdated';
      followerId: string;
      projectId: string | null;
      accountId: string;
      settings: SignalFollowerSettings;
      at: string;
    }
  /** A FeatureRemoved: whether it was a provider or a follower is known from the stream's earlier events. */
  | { kind: 'Removed'; featureId: string; accountId: string; at: string };

export const isSignalSetting = (setting: FeatureSetting): boolean => setting.type === SIGNAL_PROVIDER || setting.type === SIGNAL_FOLLOWER;

const membersOf = <S>(setting: FeatureSetting): S => {
  const { type: _type, ...members } = setting;
  return members as S;
};

/** A feature event as a signal event; null when it is about another feature. */
export const signalEventOf = (event: FeatureEvent): SignalEvent | null => {
  const { featureId, scope, at } = event.data;
  if (scope.kind !== 'account') return null;
  const accountId = scope.accountId;
  switch (event.type) {
    case 'FeatureAdded':
    case 'FeatureUpdated': {
      const setting = event.data.setting;
      const projectId = event.type === 'FeatureAdded' ? event.data.projectId : null;
      if (setting.type === SIGNAL_PROVIDER) {
        const kind = event.type === 'FeatureAdded' ? 'ProviderCreated' : 'ProviderUpdated';
        return { kind, providerId: featureId, projectId, accountId, settings: membersOf<SignalProviderSettings>(setting), at };
      }
      if (setting.type === SIGNAL_FOLLOWER) {
        const kind = event.type === 'FeatureAdded' ? 'FollowerSubscribed' : 'FollowerUpdated';
        return { kind, followerId: featureId, projectId, accountId, settings: membersOf<SignalFollowerSettings>(setting), at };
      }
      return null;
    }
    case 'FeatureRemoved':
      return { kind: 'Removed', featureId, accountId, at };
    default:
      return null;
  }
};
