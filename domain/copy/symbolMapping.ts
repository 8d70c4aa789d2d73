// Master symbol -> the slave broker's name for it. Brokers decorate the same instrument differently
// (EURUSD, EURUSD.m, EURUSDpro, m.EURUSD, EURUSD-ECN, eurusd#). The stages run from strict to
// loose, and a stage answers only with a unique match: two candidates in one stage mean the mapping
// is ambiguous and nothing is copied (null), since trading the wrong instrument is worse than
// skipping. Later stages are never asked once an earlier one has matched.
//   1. the copier's explicit override (key compared exactly, then case-insensitively); its target
//      must exist at the slave, or the answer is null rather than a guess,
//   2. the project's symbol mappings (reference SymbolMappingDTO) that apply to the two accounts'
//      brokers, already in priority order (domain/symbolMapping/rule.ts applicableMappings): those
//      whose `from` is the symbol (exactly, else without case) are tried in turn, and the first whose
//      `to` the slave offers wins; when none does, the answer is null, as for an override,
//   3. exact name,
//   4. case-insensitive name,
//   5. same core: the name split at separators (. - _ # ! + / space ...), known affix words such
//      as m, pro, ecn dropped, the rest joined in lower case (m.EURUSD, EURUSD-ECN, eurusd# -> eurusd),
//   6. same stem: a core with a known affix glued to its end (EURUSDpro, EURUSDm, XAUUSDecn),
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

/** The candidates satisfying the test (none, one, or several: ambiguous). */
const matching = (candidates: readonly string[], test: (candidate: string) => boolean): string[] => candidates.filter(test);

const byName = (name: string, candidates: readonly string[]): string[] => {
  if (candidates.includes(name)) return [name];
  const lower = name.toLowerCase();
  return matching(candidates, (candidate) => candidate.toLowerCase() === lower);
};

const overrideFor = (masterSymbol: string, overrides: Readonly<Record<string, string>>): string | undefined => {
  if (Object.hasOwn(overrides, masterSymbol)) return overrides[masterSymbol];
  const lower = masterSymbol.toLowerCase();
  const keys = Object.keys(overrides).filter((key) => key.toLowerCase() === lower);
  return keys.length === 1 && keys[0] !== undefined ? overrides[keys[0]] : undefined;
};

/** The automatic stages' first non-empty set of candidates (one: the match; several: ambiguous). */
const automaticCandidates = (masterSymbol: string, candidates: readonly string[]): string[] => {
  const named = byName(masterSymbol, candidates);
  if (named.length > 0) return named;
  const masterCore = core(masterSymbol);
  if (masterCore === '') return [];
  const sameCore = matching(candidates, (candidate) => core(candidate) === masterCore);
  if (sameCore.length > 0) return sameCore;
  const masterStems = stems(masterCore);
  const oneSideGlued = matching(candidates, (candidate) => masterStems.includes(core(candidate)) || stems(core(candidate)).includes(masterCore));
  if (oneSideGlued.length > 0) return oneSideGlued;
  return matching(candidates, (candidate) => stems(core(candidate)).some((stem) => masterStems.includes(stem)));
};

/** A project symbol mapping as the resolution sees it: already filtered by brokers and ordered. */
export interface ProjectMapping {
  readonly id: number;
  readonly from: string;
  readonly to: string;
  readonly priority: number;
}

export interface SymbolResolution {
  /** The slave symbol; null: not copied. */
  readonly symbol: string | null;
  /** Which stage decided: the copier's override, a project mapping, by name, or none. */
  readonly source: 'EXPLICIT' | 'PROJECT' | 'AUTOMATIC' | 'UNMAPPED';
  /** The project mapping that decided (source PROJECT). */
  readonly mapping: ProjectMapping | null;
  /** When the name stages found several slave symbols: all of them (nothing is copied then). */
  readonly suggestions: readonly string[];
}

const unmapped = (suggestions: readonly string[] = []): SymbolResolution => ({ symbol: null, source: 'UNMAPPED', mapping: null, suggestions });

/** Where a master symbol goes at the slave, and which stage said so (see the stages above). */
export const resolveSymbol = (
  masterSymbol: string,
  slaveSymbols: readonly string[],
  overrides: Readonly<Record<string, string>> = {},
  projectMappings: readonly ProjectMapping[] = [],
): SymbolResolution => {
  const candidates = [...new Set(slaveSymbols)];
  const override = overrideFor(masterSymbol, overrides);
  if (override !== undefined) {
    const target = byName(override, candidates);
    return target.length === 1 ? { symbol: target[0]!, source: 'EXPLICIT', mapping: null, suggestions: [] } : unmapped();
  }

  const exact = projectMappings.filter((m) => m.from === masterSymbol);
  const lower = masterSymbol.toLowerCase();
  const forSymbol = exact.length > 0 ? exact : projectMappings.filter((m) => m.from.toLowerCase() === lower);
  if (forSymbol.length > 0) {
    for (const mapping of forSymbol) {
      const target = byName(mapping.to, candidates);
      if (target.length === 1) return { symbol: target[0]!, source: 'PROJECT', mapping, suggestions: [] };
    }
    return unmapped();
  }

  const found = automaticCandidates(masterSymbol, candidates);
  if (found.length === 1) return { symbol: found[0]!, source: 'AUTOMATIC', mapping: null, suggestions: [] };
  return unmapped(found);
};

export const mapSymbol = (
  masterSymbol: string,
  slaveSymbols: readonly string[],
  overrides: Readonly<Record<string, string>> = {},
  projectMappings: readonly ProjectMapping[] = [],
): string | null => resolveSymbol(masterSymbol, slaveSymbols, overrides, projectMappings).symbol;

/** Whether the copier has any symbol override. */
const hasOverrides = (overrides: Readonly<Record<string, string>>): boolean => {
  for (const key in overrides) if (Object.hasOwn(overrides, key)) return true;
  return false;
};

/** The automatic answers (no override, no project mapping) kept per list of slave symbols, by master symbol. */
const automaticAnswers = new WeakMap<readonly { readonly symbol: string }[], Map<string, string | null>>();

/**
 * mapSymbol over the slave's symbol specifications. Without overrides and project mappings the answer
 * depends on the master symbol and the list alone, so it is kept per list, which must not change once
 * given (a venue's list is read once per login and shared: engine/copy/inputs.ts symbolsOf): the
 * copiers of a fan-out onto one login, and every later fan-out, map the master's symbol once, not once
 * per copier over the broker's whole list.
 */
export const mapSymbolOf = (
  masterSymbol: string,
  slaveSymbols: readonly { readonly symbol: string }[],
  overrides: Readonly<Record<string, string>> = {},
  projectMappings: readonly ProjectMapping[] = [],
): string | null => {
  if (projectMappings.length > 0 || hasOverrides(overrides)) {
    return mapSymbol(
      masterSymbol,
      slaveSymbols.map((spec) => spec.symbol),
      overrides,
      projectMappings,
    );
  }
  let answers = automaticAnswers.get(slaveSymbols);
  if (!answers) automaticAnswers.set(slaveSymbols, (answers = new Map()));
  let answer = answers.get(masterSymbol);
  if (answer === undefined) {
    answer = mapSymbol(
      masterSymbol,
      slaveSymbols.map((spec) => spec.symbol),
    );
    answers.set(masterSymbol, answer);
  }
  return answer;
};
