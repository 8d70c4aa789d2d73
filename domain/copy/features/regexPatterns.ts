// The regular expressions of copier features (the reference: FeaturePermittedSymbolsDTO's whitelist and
// blacklist, FeatureCopierFilterDTO's comment and magicNumber): case-insensitive, several combined with
// OR, each looked for anywhere in the text (anchor with ^ and $ for a whole match). ECMAScript syntax.
//
// A user's pattern runs on every master trade, in the engine, on V8's backtracking regex engine: a
// pattern such as `(a+)+$` takes exponential time, `.*.*.*.*x` polynomial time, and either would stall
// every copier of the service. No linear-time engine (re2) is installed, so patterns are bounded
// instead, when the feature is written (a refused pattern answers 400 [VALIDATION_FAILED] with the
// reason), and the text looked at is bounded when it runs:
//   - at most 100 characters, and a valid ECMAScript regular expression;
//   - no backreferences (\1, \k<name>): they make matching NP-hard;
//   - no repeated group (`*`, `+`, `{n,m}` with m > 1) that holds a quantifier or an alternation
//     (`(a+)+`, `(a|aa)*`): the source of exponential backtracking; `(ab)+` and `(\.m|\.pro)?` are fine;
//   - at most 3 quantifiers, at most 2 of them repeating: the cost of backtracking grows as the text's
//     length to the power of the repeating quantifiers (plus one for the search of the start);
//   - only the first 64 characters of a text are looked at (symbols, comments and magic numbers are
//     shorter), so the worst accepted pattern costs a few milliseconds.

import { Type } from '@sinclair/typebox';

export const MAX_PATTERN_LENGTH = 100;
/** Texts are matched on their first this many characters. */
export const MAX_TEXT_LENGTH = 64;
const MAX_QUANTIFIERS = 3;
const MAX_REPEATING = 2;

/** A case-insensitive regular expression, bounded as above. */
export const RegexPattern = (description: string) =>
  Type.String({ minLength: 1, maxLength: MAX_PATTERN_LENGTH, description: `${description} (a regular expression, case insensitive)` });

interface Group {
  quantified: boolean;
  alternation: boolean;
}

const QUANTIFIER_BRACES = /^\{(\d+)(,(\d*))?\}/;

/** The quantifier at `at`: its length and whether it repeats (may match more than once); null when none. */
const quantifierAt = (pattern: string, at: number): { length: number; repeating: boolean } | null => {
  const c = pattern[at];
  if (c === '*' || c === '+') return { length: 1, repeating: true };
  if (c === '?') return { length: 1, repeating: false };
  if (c !== '{') return null;
  const braces = QUANTIFIER_BRACES.exec(pattern.slice(at));
  if (!braces) return null; // a literal brace (ECMAScript without the u flag)
  const max = braces[2] === undefined ? Number(braces[1]) : braces[3] === '' ? Infinity : Number(braces[3]);
  return { length: braces[0].length, repeating: max > 1 };
};

/** The end of the group opener at `at` ('(' and any '?:', '?=', '?!', '?<=', '?<!', '?<name>'). */
const groupOpenerEnd = (pattern: string, at: number): number => {
  if (pattern[at + 1] !== '?') return at;
  const next = pattern[at + 2];
  if (next === '<' && pattern[at + 3] !== '=' && pattern[at + 3] !== '!') return pattern.indexOf('>', at);
  return next === '<' ? at + 3 : at + 2;
};

/** What in the pattern's structure could make matching slow, or null. The pattern compiles. */
const structureProblem = (pattern: string): string | null => {
  const groups: Group[] = [{ quantified: false, alternation: false }];
  let quantifiers = 0;
  let repeating = 0;
  /** The group that ends right before the current position, if any. */
  let closed: Group | null = null;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const top = groups[groups.length - 1]!;
    const quantifier = quantifierAt(pattern, i);
    if (quantifier) {
      quantifiers += 1;
      if (quantifier.repeating) repeating += 1;
      if (quantifier.repeating && closed && (closed.quantified || closed.alternation))
        return 'repeats a group that holds a quantifier or an alternation (such as (a+)+ or (a|ab)*), which can take exponential time';
      top.quantified = true;
      i += quantifier.length - 1;
      if (pattern[i + 1] === '?') i += 1; // lazy
      closed = null;
      continue;
    }
    closed = null;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9k]/.test(next)) return 'uses a backreference, which can take exponential time';
      i += 1;
    } else if (c === '[') {
      // A character class: nothing in it is a quantifier or a group.
      for (i += 1; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i += 1;
    } else if (c === '(') {
      groups.push({ quantified: false, alternation: false });
      i = groupOpenerEnd(pattern, i);
    } else if (c === ')') {
      const group = groups.pop()!;
      const parent = groups[groups.length - 1]!;
      parent.quantified ||= group.quantified;
      parent.alternation ||= group.alternation;
      closed = group;
    } else if (c === '|') {
      top.alternation = true;
    }
  }
  if (quantifiers > MAX_QUANTIFIERS) return `has ${quantifiers} quantifiers, more than ${MAX_QUANTIFIERS}`;
  if (repeating > MAX_REPEATING) return `has ${repeating} repeating quantifiers (*, +, {n,m}), more than ${MAX_REPEATING}`;
  return null;
};

/** Why a pattern is refused, or null. */
export const regexProblem = (pattern: string): string | null => {
  if (pattern.length === 0) return 'is empty';
  if (pattern.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(pattern, 'i');
  } catch (error) {
    return `is no regular expression (${(error as Error).message})`;
  }
  return structureProblem(pattern);
};

/** The first refused pattern of a member, in words (`whitelist: '(a+)+' repeats ...`), or null. */
export const regexListProblem = (patterns: readonly string[], member: string): string | null => {
  for (const pattern of patterns) {
    const problem = regexProblem(pattern);
    if (problem) return `${member}: '${pattern}' ${problem}`;
  }
  return null;
};

/** Whether a text (its first 64 characters) matches one of the patterns; none match when there are none. */
export const regexMatcher = (patterns: readonly string[]): ((text: string) => boolean) => {
  const compiled = patterns.map((p) => new RegExp(p, 'i'));
  return (text) => {
    const looked = text.slice(0, MAX_TEXT_LENGTH);
    return compiled.some((r) => r.test(looked));
  };
};
