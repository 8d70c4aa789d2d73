// What readers of the copies read model need to make of its rows.

/** One partial close of a copy at the slave's venue: the volume closed and its net result (profit + swap + commission). */
export interface PartialClose {
  readonly volume: number;
  readonly result: number;
}

/** The partial closes a row holds, oldest first (jsonb: JSON text as a batch writes it, parsed as a query reads it). */
export const partialsOf = (row: { readonly partials?: unknown }): PartialClose[] =>
  row.partials === undefined || row.partials === null ? [] : ((typeof row.partials === 'string' ? JSON.parse(row.partials) : row.partials) as PartialClose[]);
