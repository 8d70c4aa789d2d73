// A project symbol mapping (reference SymbolMappingDTO): a master symbol `from` goes to the slave
// symbol `to` when the trade comes from a broker matching `brokerFrom` and is copied to one matching
// `brokerTo`; of several that apply, the lowest `priority` is tried first. `from` and `to` are symbol
// names, not patterns; the two broker members are regular expressions ("ICMarkets.*", ".*" for all).
//
// Our reading where the reference is silent (documented in the route declarations):
//   - a broker pattern must match the whole broker name (an account's loginServer), without case;
//     an empty pattern means every broker, as ".*" does;
//   - patterns that can backtrack exponentially (a repeated group that itself repeats or alternates,
//     back-references, look-arounds) are refused, since the copy engine evaluates them on every trade.

export interface SymbolMappingRule {
  readonly from: string;
  readonly to: string;
  readonly brokerFrom: string;
  readonly brokerTo: string;
  readonly priority: number;
}

/** A project's mapping with its id (ids are per project: 1, 2, 3 ... in creation order). */
export interface ProjectSymbolMapping extends SymbolMappingRule {
  readonly id: number;
}

export const MAX_SYMBOL_LENGTH = 255;
export const MAX_PATTERN_LENGTH = 255;
export const MAX_PRIORITY = 2_147_483_647;
/** Mappings one project may hold: the engine filters them on every copied trade. */
export const MAX_SYMBOL_MAPPINGS_PER_PROJECT = 1000;

export interface RuleProblem {
  readonly field: keyof SymbolMappingRule;
  readonly message: string;
}

/** Why a broker pattern is refused, or null when it is accepted. */
export const brokerPatternProblem = (pattern: string): string | null => {
  if (pattern.length > MAX_PATTERN_LENGTH) return `at most ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(pattern, 'i');
  } catch (error) {
    return `not a regular expression (${(error as Error).message})`;
  }
  if (/\\[1-9]|\\k<|\(\?<?[=!]/.test(pattern)) return 'back-references and look-arounds are not supported';
  if (nestedRepetition(pattern)) return 'a repeated group may not itself contain a repetition or an alternation (catastrophic backtracking)';
  return null;
};

/**
 * Whether a group that is repeated without bound (`*`, `+`, `{n,}`) contains a quantifier or an
 * alternation: the shapes that backtrack exponentially, as in `(a+)+` or `(a|a)*`.
 */
const nestedRepetition = (pattern: string): boolean => {
  // Per open group: whether it holds a quantifier or an alternation.
  const groups: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') groups.push(false);
    else if (c === '|' || c === '*' || c === '+' || c === '?' || c === '{') {
      if (groups.length > 0) groups[groups.length - 1] = true;
    } else if (c === ')') {
      const risky = groups.pop() ?? false;
      const next = pattern.slice(i + 1);
      const unbounded = /^(?:[*+]|\{\d+,\})/.test(next);
      if (risky && unbounded) return true;
      // A quantifier after the group counts for the group around it.
      if ((risky || /^(?:[*+?]|\{)/.test(next)) && groups.length > 0) groups[groups.length - 1] = true;
    }
  }
  return false;
};

export const checkSymbolMappingRule = (rule: SymbolMappingRule): RuleProblem | null => {
  for (const field of ['from', 'to'] as const) {
    const value = rule[field];
    if (value.trim() === '') return { field, message: 'a symbol name is required' };
    if (value.length > MAX_SYMBOL_LENGTH) return { field, message: `at most ${MAX_SYMBOL_LENGTH} characters` };
  }
  for (const field of ['brokerFrom', 'brokerTo'] as const) {
    const problem = brokerPatternProblem(rule[field]);
    if (problem) return { field, message: problem };
  }
  if (!Number.isInteger(rule.priority) || rule.priority < 0 || rule.priority > MAX_PRIORITY) {
    return { field: 'priority', message: `an integer from 0 (first) to ${MAX_PRIORITY}` };
  }
  return null;
};

const compiled = new Map<string, RegExp>();

/** Whether a broker pattern accepts a broker name: the whole name, without case; '' accepts any. */
export const brokerMatches = (pattern: string, broker: string): boolean => {
  if (pattern === '') return true;
  let re = compiled.get(pattern);
  if (!re) {
    re = new RegExp(`^(?:${pattern})$`, 'i');
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re.test(broker.slice(0, MAX_PATTERN_LENGTH));
};

/**
 * The mappings that apply to trades from the broker `brokerFrom` copied to `brokerTo`, in the order
 * they are tried: priority ascending (0 first), then the older mapping first.
 */
export const applicableMappings = <M extends ProjectSymbolMapping>(mappings: readonly M[], brokerFrom: string, brokerTo: string): M[] =>
  mappings.filter((m) => brokerMatches(m.brokerFrom, brokerFrom) && brokerMatches(m.brokerTo, brokerTo)).sort((a, b) => a.priority - b.priority || a.id - b.id);
