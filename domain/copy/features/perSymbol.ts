// Per-symbol settings. Features that read per slave symbol (series, overrides, symbolsConfiguration)
// compare symbols without case, as the cooldown does, and refuse a symbol configured twice.
//
// The reference's `symbolsConfiguration` (FeatureMaxLotSizeDTO, FeatureMultiplierDTO, ...): a map from a
// symbol to a partial setting of the same DTO whose members replace the general ones for trades on that
// symbol. One mechanism for every feature that has it:
//   - withSymbolsConfiguration(members): the members plus `symbolsConfiguration`, an object whose values
//     hold any of the feature's members (all optional, with the same bounds; a nested
//     symbolsConfiguration is not taken);
//   - checkSymbolsConfiguration: a symbol key empty, longer than 64 characters or configured twice in
//     another case is refused, and the feature's own rules between members hold for the general setting
//     and for each symbol's effective one;
//   - settingsFor(settings, symbol): the effective setting of a symbol: the general members, with those
//     the symbol sets (a member left out or null keeps the general value);
//   - perSymbolRules(rules): every hook of the feature runs with the effective setting of the symbol it
//     decides on, so every rule honours the override without knowing of it.
// The symbol is the SLAVE's symbol, after symbol mapping: the symbol the copy is placed on and shown
// with, as every per-symbol member of ours reads it (trade guardrails, margin cap, martingale perSymbol,
// the cooldown). A configuration for the master's symbol name applies only where both brokers name it
// alike. Decisions without a symbol (adjustSettings) use the general setting.
import { type Static, type TObject, type TProperties, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';
import type { ChangeContext, CopierRules, ManagedAction, ManagedCopy } from './rules.js';

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

/** The symbols of a feature with their own members: any of the feature's members, by symbol. */
export type SymbolsConfiguration<S> = Readonly<Record<string, Partial<S>>>;
/** A feature's setting with its per-symbol members. */
export type WithSymbols<S> = S & { readonly symbolsConfiguration: SymbolsConfiguration<S> };

/** The most symbols one setting may configure. */
export const MAX_CONFIGURED_SYMBOLS = 500;
const MAX_SYMBOL_LENGTH = 64;

/**
 * The feature's members plus `symbolsConfiguration` (the reference's object map). `description` says
 * what a symbol's members do for that feature; the common rules are appended.
 */
export const withSymbolsConfiguration = <P extends TProperties>(
  members: TObject<P>,
  description: string,
): TObject<P & { symbolsConfiguration: TUnsafe<SymbolsConfiguration<Static<TObject<P>>>> }> => {
  const values = Type.Partial(Type.Object(members.properties, { additionalProperties: false }), {
    description: "this symbol's members; one left out or null keeps the general value",
  });
  const map = Type.Unsafe<SymbolsConfiguration<Static<TObject<P>>>>({
    type: 'object',
    additionalProperties: values,
    maxProperties: MAX_CONFIGURED_SYMBOLS,
    description:
      `${description} Keys are the slave's symbols after symbol mapping (the symbol the copy is placed on), compared without case; ` +
      `a symbol configured twice (in another case) is refused, as is an empty key or one over ${MAX_SYMBOL_LENGTH} characters. ` +
      `A symbol's members replace the general ones for its trades (a member left out or null keeps the general value); default {} (no symbol has its own). At most ${MAX_CONFIGURED_SYMBOLS} symbols.`,
  });
  return Type.Object({ ...members.properties, symbolsConfiguration: map } as P & { symbolsConfiguration: typeof map }, {
    additionalProperties: members.additionalProperties as boolean | TSchema | undefined,
  });
};

/** The key of `symbolsConfiguration` that configures `symbol`, or null. */
export const configuredSymbol = <S>(settings: WithSymbols<S>, symbol: string | null | undefined): string | null => {
  if (!symbol) return null;
  return Object.keys(settings.symbolsConfiguration ?? {}).find((key) => sameSymbol(key, symbol)) ?? null;
};

/** The general members, without the per-symbol ones. */
export const generalSettings = <S>(settings: WithSymbols<S>): S => {
  const { symbolsConfiguration: _symbols, ...general } = settings;
  return general as unknown as S;
};

/** The effective setting for trades on `symbol` (the slave's): the general members, with those the symbol sets. */
export const settingsFor = <S>(settings: WithSymbols<S>, symbol: string | null | undefined): S => {
  const general = generalSettings(settings);
  const key = configuredSymbol(settings, symbol);
  if (key === null) return general;
  const own = Object.fromEntries(
    Object.entries(settings.symbolsConfiguration[key] ?? {}).filter(
      ([name, value]) => value !== undefined && value !== null && name !== 'symbolsConfiguration',
    ),
  );
  return { ...general, ...own } as S;
};

/**
 * The problems of `symbolsConfiguration` in words, or null: a bad key, a symbol configured twice, or the
 * feature's own rules between members failing for the general setting or a symbol's effective one.
 */
export const checkSymbolsConfiguration = <S>(settings: WithSymbols<S>, check?: (s: S) => string | null): string | null => {
  const keys = Object.keys(settings.symbolsConfiguration ?? {});
  const seen = new Map<string, string>();
  for (const key of keys) {
    if (key.trim().length === 0) return 'symbolsConfiguration: a symbol key is empty';
    if (key.length > MAX_SYMBOL_LENGTH) return `symbolsConfiguration: the symbol ${key.slice(0, 20)}... is longer than ${MAX_SYMBOL_LENGTH} characters`;
    const twin = seen.get(key.toLowerCase());
    if (twin !== undefined) return `symbolsConfiguration: symbol ${key} is configured twice (as ${twin} and ${key})`;
    seen.set(key.toLowerCase(), key);
  }
  if (!check) return null;
  const general = check(generalSettings(settings));
  if (general) return general;
  for (const key of keys) {
    const problem = check(settingsFor(settings, key));
    if (problem) return `symbolsConfiguration.${key}: ${problem}`;
  }
  return null;
};

/** The slave symbol a change decides on: the live copy's, else the copy's record. */
const changeSymbol = (ctx: ChangeContext): string | null => ctx.copy?.symbol ?? ctx.record?.symbol ?? null;

/**
 * A feature's rules, each run with the effective setting of the symbol it decides on: an open with the
 * slave's symbol after mapping, a change with its copy's symbol; management runs once for the copies on
 * symbols without their own members (with the general setting, also when there are none) and once per
 * configured symbol that has copies (with only its copies). adjustSettings has no symbol: general.
 */
export const perSymbolRules = <S>(rules: CopierRules<S>): CopierRules<WithSymbols<S>> => {
  const { needs, adjustSettings, filterOpen, sizing, fallback, adjustVolume, adjustOpen, deferOpen, onModify, adjustModify, onClose, manage } = rules;
  return {
    ...(needs ? { needs } : {}),
    ...(adjustSettings ? { adjustSettings: (s, copier) => adjustSettings(generalSettings(s), copier) } : {}),
    ...(filterOpen ? { filterOpen: (s, ctx) => filterOpen(settingsFor(s, ctx.slaveSymbol), ctx) } : {}),
    ...(sizing ? { sizing: (s, copier, ctx) => sizing(settingsFor(s, ctx.slaveSymbol), copier, ctx) } : {}),
    ...(fallback ? { fallback: (s, refusal, ctx) => fallback(settingsFor(s, ctx.slaveSymbol), refusal, ctx) } : {}),
    ...(adjustVolume ? { adjustVolume: (s, volume, ctx) => adjustVolume(settingsFor(s, ctx.slaveSymbol), volume, ctx) } : {}),
    ...(adjustOpen ? { adjustOpen: (s, open, ctx) => adjustOpen(settingsFor(s, ctx.slaveSymbol), open, ctx) } : {}),
    ...(deferOpen ? { deferOpen: (s, ctx) => deferOpen(settingsFor(s, ctx.slaveSymbol), ctx) } : {}),
    ...(onModify ? { onModify: (s, ctx) => onModify(settingsFor(s, changeSymbol(ctx)), ctx) } : {}),
    ...(adjustModify ? { adjustModify: (s, modify, ctx) => adjustModify(settingsFor(s, ctx.copy.symbol), modify, ctx) } : {}),
    ...(onClose ? { onClose: (s, ctx) => onClose(settingsFor(s, changeSymbol(ctx)), ctx) } : {}),
    ...(manage
      ? {
          manage: (s, ctx, featureId) => {
            const general: ManagedCopy[] = [];
            const bySymbol = new Map<string, ManagedCopy[]>();
            for (const copy of ctx.copies) {
              const key = configuredSymbol(s, copy.symbol);
              if (key === null) general.push(copy);
              else bySymbol.set(key, [...(bySymbol.get(key) ?? []), copy]);
            }
            const actions: ManagedAction[] = [...manage(generalSettings(s), { ...ctx, copies: general }, featureId)];
            for (const [key, copies] of bySymbol) actions.push(...manage(settingsFor(s, key), { ...ctx, copies }, featureId));
            return actions;
          },
        }
      : {}),
  };
};
