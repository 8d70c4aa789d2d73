// Features that read per slave symbol (series, overrides, symbolsConfiguration) compare symbols
// without case, as the cooldown does, and refuse a symbol configured twice.

export const sameSymbol = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** The first symbol configured twice, in words, or null. */
export const symbolConfiguredTwice = (entries: readonly { readonly symbol: string }[]): string | null => {
  const seen = new Set<string>();
  for (const { symbol } of entries) {
    if (seen.has(symbol.toLowerCase())) return `symbol ${symbol} is configured twice`;
    seen.add(symbol.toLowerCase());
  }
  return null;
};
