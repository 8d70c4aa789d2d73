// Comparing JSON values read back from the store: PostgreSQL's jsonb keeps object members in an order
// of its own, so two equal values may print differently.

const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : value && typeof value === 'object'
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
        )
      : value;

/** JSON text with the members of every object in sorted order: equal values give equal text. */
export const canonicalJson = (value: unknown): string => JSON.stringify(canonical(value ?? null));

/** Equal JSON values, whatever the order of their object members. */
export const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
