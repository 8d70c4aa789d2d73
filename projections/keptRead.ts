// One read of read-model tables kept while those read models are unchanged, for the loops that look
// every second (the protection monitor, the maintenance windows, the data collector): an idle service
// read the same empty answers about a dozen times a second. The mark of a read model
// (ProjectionRunner.version) moves when a transaction that applied events to it commits, before anyone
// waiting for the read models hears of it, so a mark found the same as before a read means the read
// would answer the same now. Where the marks are unknown (another instance applies the read models, or
// none are given) every call reads, as before.

/** The mark of a read model that moves whenever it may have changed; null: unknown here. */
export type ReadModelMarks = (name: string) => string | null;

/** The marks of `names` as one token, equal only while none of them moved; null where any is unknown. */
export const marksOf = (names: readonly string[], marks: ReadModelMarks): string | null => {
  const each = names.map((name) => marks(name));
  return each.some((mark) => mark === null) ? null : each.join(',');
};

export class KeptRead<T> {
  private entry: { readonly version: string; readonly value: Promise<T> } | null = null;

  constructor(
    /** The read models `read` reads. */
    private readonly names: readonly string[],
    private readonly read: () => Promise<T>,
    private readonly marks: ReadModelMarks = () => null,
  ) {}

  /** What `read` answers now: the kept answer while every read model's mark is what it was when it was read. Callers must not change it. */
  get(): Promise<T> {
    const version = marksOf(this.names, this.marks);
    if (version === null) return this.read();
    if (this.entry?.version === version) return this.entry.value;
    const value = this.read();
    const entry = { version, value };
    this.entry = entry;
    value.catch(() => {
      if (this.entry === entry) this.entry = null;
    });
    return value;
  }

  /** The next `get` reads again: for a write to the read models that moves no mark (one made outside the projection runner). */
  forget(): void {
    this.entry = null;
  }
}
