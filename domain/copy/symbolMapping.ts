// Master symbol -> the slave broker's name for it. Brokers decorate the same instrument differently
// (EURUSD, EURUSD.m, EURUSDpro, m.EURUSD, EURUSD-ECN, eurusd#). The stages run from strict to
// loose, and a stage answers only with a unique match: two candidates in one stage mean the mapping
// is ambiguous and nothing is copied (null), since trading the wrong instrument is worse than
// skipping. Later stages are never asked once an earlier one has matched.
//   1. explicit override (key compared exactly, then case-insensitively); its target must exist
//      at the slave, or the answer is null rather than a guess,
//   2. exact name,
//   3. case-insensitive name,
//   4. same core: the name split at separators (. - _ # ! + / space ...), known affix words such
//      as m, pro, ecn dropped, the rest joined in lower case (m.EURUSD, EURUSD-ECN, eurusd# -> eurusd),
//   5. same stem: a core with a known affix glued to its end (EURUSDpro, EURUSDm, XAUUSDecn),
//      first with the affix on one side only (EURUSDm -> EURUSD before EURUSDc), then on both.
// Aliases of different names (GOLD for XAUUSD, US30 for DJ30) are left to overrides.

/** Words brokers put before or after a symbol: account types, execution models, size classes. */
const AFFIXES = [
  'm',
  'i',
  'c',
  'e',
  'b',
  'r',
  'x',
  'z',
  'k',
  'n',
  'v',
  'pro',
  'ecn',
  'raw',
  'stp',
  'std',
  'cent',
  'mini',
  'micro',
  'zero',
  'plus',
  'prime',
  'cash',
  'vip',
  'sb',
] as const;
const AFFIX_SET: ReadonlySet<string> = new Set(AFFIXES);
/** Longest first, so "pro" is stripped whole rather than as "o". */
const GLUED_SUFFIXES = [...AFFIXES].sort((a, b) => b.length - a.length);
/** A stem shorter than this is too likely to be a different instrument. */
const MIN_STEM_LENGTH = 3;

const core = (symbol: string): string => {
  const tokens = symbol
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((token) => token !== '');
  const meaningful = tokens.filter((token) => !AFFIX_SET.has(token));
  return (meaningful.length > 0 ? meaningful : tokens).join('');
};

const stems = (symbolCore: string): readonly string[] => [
  symbolCore,
  ...GLUED_SUFFIXES.filter((suffix) => symbolCore.endsWith(suffix) && symbolCore.length - suffix.length >= MIN_STEM_LENGTH).map((suffix) =>
    symbolCore.slice(0, -suffix.length),
  ),
];

/** The one candidate satisfying the test, undefined when none, null when several. */
const unique = (candidates: readonly string[], test: (candidate: string) => boolean): string | null | undefined => {
  const found = candidates.filter(test);
  if (found.length === 0) return undefined;
  return found.length === 1 ? (found[0] ?? null) : null;
};

const byName = (name: string, candidates: readonly string[]): string | null | undefined => {
  if (candidates.includes(name)) return name;
  const lower = name.toLowerCase();
  return unique(candidates, (candidate) => candidate.toLowerCase() === lower);
};

const overrideFor = (masterSymbol: string, overrides: Readonly<Record<string, string>>): string | undefined => {
  if (Object.hasOwn(overrides, masterSymbol)) return overrides[masterSymbol];
  const lower = masterSymbol.toLowerCase();
  const keys = Object.keys(overrides).filter((key) => key.toLowerCase() === lower);
  return keys.length === 1 && keys[0] !== undefined ? overrides[keys[0]] : undefined;
};

export const mapSymbol = (masterSymbol: string, slaveSymbols: readonly string[], overrides: Readonly<Record<string, string>> = {}): string | null => {
  const candidates = [...new Set(slaveSymbols)];
  const override = overrideFor(masterSymbol, overrides);
  if (override !== undefined) return byName(override, candidates) ?? null;

  const named = byName(masterSymbol, candidates);
  if (named !== undefined) return named;

  const masterCore = core(masterSymbol);
  if (masterCore === '') return null;
  const sameCore = unique(candidates, (candidate) => core(candidate) === masterCore);
  if (sameCore !== undefined) return sameCore;

  const masterStems = stems(masterCore);
  const oneSideGlued = unique(candidates, (candidate) => masterStems.includes(core(candidate)) || stems(core(candidate)).includes(masterCore));
  if (oneSideGlued !== undefined) return oneSideGlued;
  return unique(candidates, (candidate) => stems(core(candidate)).some((stem) => masterStems.includes(stem))) ?? null;
};
