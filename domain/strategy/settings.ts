// What a strategy is (reference StrategyDTO): a name, a key and whether it is active.
//   - key: a positive int32, unique among the project's strategies. The copy engine writes it into the
//     magic number of every slave trade of a copier with toStrategyId, and a copier with fromStrategyId
//     copies only the master trades whose magic number is the key (domain/copy/strategyRouting.ts).
//   - active: false stops the strategy's copiers from opening new copies (closes and changes of the
//     copies they hold still follow the master).
export interface StrategySettings {
  readonly name: string;
  readonly key: number;
  readonly active: boolean;
}

export const MAX_STRATEGY_NAME_LENGTH = 255;
export const MAX_STRATEGY_KEY = 2147483647;
