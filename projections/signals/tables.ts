// The tables of the signals read model (projector.ts), joined into ReadModels (schema.ts).
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** A signal provider (FeatureSignalProviderDTO on an account); kept with `removed` set once its feature is removed. */
export interface SignalProvidersTable {
  id: string;
  project_id: string;
  account_id: string;
  name: string;
  /** The feature's members (SignalProviderSettings), as stored. */
  settings: ColumnType<unknown, string, string>;
  /** isPublic or makeVisibleInMarketplace: other projects may see and follow it. */
  visible: boolean;
  in_marketplace: boolean;
  created: Timestamp;
  updated: Timestamp;
  removed: ColumnType<Date | null, string | null | undefined, string | null>;
}

/** A signal follower (FeatureSignalFollowerDTO): its copier has the same id. Kept with `removed` set once it leaves. */
export interface SignalFollowersTable {
  id: string;
  provider_id: string;
  project_id: string;
  account_id: string;
  /** The feature's members (SignalFollowerSettings), as stored. */
  settings: ColumnType<unknown, string, string>;
  active: boolean;
  suspended: boolean;
  monitor_only: boolean;
  /** When it subscribed (its FeatureAdded). */
  subscribed: Timestamp;
  updated: Timestamp;
  removed: ColumnType<Date | null, string | null | undefined, string | null>;
}

export interface SignalTables {
  signal_providers: SignalProvidersTable;
  signal_followers: SignalFollowersTable;
}
