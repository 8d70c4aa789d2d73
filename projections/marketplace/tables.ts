// The tables of the marketplace read model (projector.ts), joined into ReadModels (schema.ts).
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** Every account's closed volumes, as the history read model keeps them, with what the score reads. */
export interface MarketplaceTradesTable {
  account_id: string;
  trade_id: string;
  symbol: string;
  volume: number;
  open_time: Timestamp;
  close_time: Timestamp;
  profit: number;
  swap: number;
  commission: number;
}

/** Every account's balance operations, as the history read model keeps them. */
export interface MarketplaceBalanceTable {
  account_id: string;
  operation_id: string;
  time: Timestamp;
  amount: number;
}

/** Every account's data-collector samples' equity, as the data-collector read model keeps them. */
export interface MarketplaceSamplesTable {
  account_id: string;
  time: Timestamp;
  equity: number;
}

/** One row per signal provider and per approved trader (by its feature's id): the score facts of its account's whole history (KeptScoreFacts). */
export interface MarketplaceScoresTable {
  feature_id: string;
  account_id: string;
  facts: ColumnType<unknown, string, string>;
}

export interface MarketplaceTables {
  marketplace_trades: MarketplaceTradesTable;
  marketplace_balance: MarketplaceBalanceTable;
  marketplace_samples: MarketplaceSamplesTable;
  marketplace_scores: MarketplaceScoresTable;
}
