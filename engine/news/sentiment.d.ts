// The `sentiment` package (AFINN-165 lexicon) ships no type declarations: what we use of it.
declare module 'sentiment' {
  interface SentimentResult {
    readonly score: number;
    readonly comparative: number;
    readonly positive: readonly string[];
    readonly negative: readonly string[];
  }
  class Sentiment {
    analyze(phrase: string, options?: { extras?: Record<string, number> }): SentimentResult;
  }
  export default Sentiment;
}
