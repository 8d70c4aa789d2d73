// Rows written as one array literal per column (projections/projection.ts unnestRows, arrayLiteral)
// must reach PostgreSQL exactly as the values they were built from: text with quotes, backslashes,
// braces, commas, line breaks and the word NULL; null and undefined; numbers, bigints, booleans,
// dates (as the same instant) and JSON (an object, or a string of its JSON text, as pg takes them).
import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import { createReadModelDb } from '../../projections/database.js';
import { arrayLiteral, unnestColumns, unnestRows } from '../../projections/projection.js';
import type { ReadModels } from '../../projections/schema.js';
import { freshDatabase } from '../support/postgres.js';

interface Row {
  label: string | null | undefined;
  count: number | bigint | null;
  ratio: number | null;
  flag: boolean | null;
  at: Date | string | null;
  doc: unknown;
}

const TYPES: { readonly [K in keyof Row]: string } = { label: 'text', count: 'bigint', ratio: 'float8', flag: 'boolean', at: 'timestamptz', doc: 'jsonb' };

describe('rows as one array literal per column', function () {
  this.timeout(60000);
  let db: Kysely<ReadModels>;

  before(async () => {
    ({ db } = createReadModelDb(await freshDatabase(), 1));
    await sql`CREATE TABLE unnest_rows (label text, count bigint, ratio float8, flag boolean, at timestamptz, doc jsonb)`.execute(db);
  });
  after(() => db.destroy());

  it('arrive as the values they were built from', async () => {
    const at = new Date('2026-11-27T11:22:33.456Z');
    const rows: Row[] = [
      { label: 'plain', count: 1, ratio: 0.1, flag: true, at, doc: { a: 'b "c" \\ d' } },
      { label: 'say "hi", {x}\\ \n\ttab', count: 9007199254740993n, ratio: -1.5e-7, flag: false, at: '2026-11-27T12:00:00+02:00', doc: [1, 'two'] },
      { label: 'NULL', count: -3, ratio: 1e21, flag: null, at: null, doc: JSON.stringify('a "string"') },
      { label: '', count: null, ratio: null, flag: null, at: null, doc: null },
      { label: null, count: 0, ratio: Number.NaN, flag: true, at, doc: { nested: { 'k"ey': '\u00e9\u4e2d\u{1f600}' } } },
      { label: undefined, count: 0, ratio: 0, flag: true, at, doc: {} },
    ];
    await db
      .insertInto('unnest_rows' as never)
      .columns(unnestColumns(TYPES) as never)
      .expression(unnestRows(rows, TYPES))
      .execute();
    const { rows: read } = await sql<{
      label: string | null;
      count: string | null;
      ratio: number | null;
      flag: boolean | null;
      at: Date | null;
      doc: unknown;
    }>`SELECT label, count::text AS count, ratio, flag, at, doc FROM unnest_rows`.execute(db);
    expect(read.map((r) => r.label)).to.deep.equal(['plain', 'say "hi", {x}\\ \n\ttab', 'NULL', '', null, null]);
    expect(read.map((r) => r.count)).to.deep.equal(['1', '9007199254740993', '-3', null, '0', '0']);
    expect(read.map((r) => r.ratio)).to.deep.equal([0.1, -1.5e-7, 1e21, null, Number.NaN, 0]);
    expect(read.map((r) => r.flag)).to.deep.equal([true, false, null, null, true, true]);
    expect(read.map((r) => r.at?.toISOString() ?? null)).to.deep.equal([
      at.toISOString(),
      '2026-11-27T10:00:00.000Z',
      null,
      null,
      at.toISOString(),
      at.toISOString(),
    ]);
    expect(read.map((r) => r.doc)).to.deep.equal([{ a: 'b "c" \\ d' }, [1, 'two'], 'a "string"', null, { nested: { 'k"ey': '\u00e9\u4e2d\u{1f600}' } }, {}]);
  });

  it('is the literal pg would send, element by element', () => {
    expect(arrayLiteral(['a', null, undefined, 'b"c\\', 2, true, 5n])).to.equal('{"a",NULL,NULL,"b\\"c\\\\",2,true,5}');
    expect(arrayLiteral([])).to.equal('{}');
  });
});
