// The statements of the PostgreSQL event store's appends and their parameters (postgresEventStore.ts):
// es_append for one stream, es_append_many for several in one transaction, es_append_group for the
// group commit of concurrent appends. Arrays go as the text of their literal (arrayLiteral.ts), and the
// events' data and metadata as one JSON array each, taken apart in order by PostgreSQL (jsonbArrayOf).
import { validate as isUuid } from 'uuid';
import { arrayLiteral } from './arrayLiteral.js';
import type { AppendExpectedRevision, AppendResult, EventData, StreamAppend } from '../port.js';

const expectation = (expected: AppendExpectedRevision): [string, string | null] =>
  typeof expected === 'bigint' ? ['exact', expected.toString()] : [expected, null];

export interface AppendRow {
  result: string;
  current_revision: string;
  out_commit: string | null;
  out_prepare: string | null;
}

export const toAppendResult = (row: AppendRow): AppendResult => ({
  success: true,
  nextExpectedRevision: BigInt(row.current_revision),
  position: { commit: BigInt(row.out_commit!), prepare: BigInt(row.out_prepare!) },
});

export const checkEvents = (streamName: string, list: readonly EventData[]): void => {
  if (list.length === 0) throw new Error(`append to ${streamName} needs at least one event`);
  for (const e of list) if (!isUuid(e.id)) throw new Error(`event id ${e.id} is not a UUID`);
};

/**
 * The events' data, or their metadata, as the text of one JSON array (issue 16): PostgreSQL takes it
 * apart into the jsonb[] the append functions take (jsonbArrayOf), the same values element by element.
 * A JavaScript array of JSON texts went through pg's array escaping instead, two regular expressions
 * per element over text full of quotes: about a tenth of the bytes a copy fan-out allocated. The
 * events of one append share their metadata object (FactBatches, recordFacts): it is written once per
 * run of the same object.
 */
const jsonArray = (values: readonly unknown[]): string => {
  let text = '[';
  let last: unknown;
  let lastJson = '';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i === 0 || value !== last) {
      last = value;
      lastJson = JSON.stringify(value);
    }
    text += i === 0 ? lastJson : `,${lastJson}`;
  }
  return `${text}]`;
};

/** The metadata of an event without any: one object, so jsonArray writes a run of them once. */
const EMPTY_METADATA = {};

/** SQL of the jsonb[] of parameter `$n`, a JSON array (jsonArray): its elements in order. */
const jsonbArrayOf = (n: number): string => `ARRAY(SELECT j.value FROM jsonb_array_elements($${n}::jsonb) WITH ORDINALITY AS j(value, k) ORDER BY j.k)`;

/** The parameters of es_append_many after p_atomic: entries flattened into one array per column (array literals, jsonArray). */
export const appendManyParams = (appends: readonly StreamAppend[]): unknown[] => {
  const events = appends.flatMap((a) => a.events);
  const expectations = appends.map((a) => expectation(a.expectedRevision ?? 'any'));
  return [
    arrayLiteral(appends.map((a) => a.streamName)),
    arrayLiteral(expectations.map(([kind]) => kind)),
    arrayLiteral(expectations.map(([, revision]) => revision)),
    arrayLiteral(appends.map((a) => a.events.length)),
    arrayLiteral(events.map((e) => e.id)),
    arrayLiteral(events.map((e) => e.type)),
    jsonArray(events.map((e) => e.data)),
    jsonArray(events.map((e) => e.metadata ?? EMPTY_METADATA)),
  ];
};

export const appendOneParams = (a: StreamAppend): unknown[] => {
  const [kind, revision] = expectation(a.expectedRevision ?? 'any');
  return [
    a.streamName,
    kind,
    revision,
    arrayLiteral(a.events.map((e) => e.id)),
    arrayLiteral(a.events.map((e) => e.type)),
    jsonArray(a.events.map((e) => e.data)),
    jsonArray(a.events.map((e) => e.metadata ?? EMPTY_METADATA)),
  ];
};

export const APPEND_ONE_SQL = `SELECT result, current_revision, out_commit::text, out_prepare FROM es_append($1, $2, $3, $4::uuid[], $5::text[], ${jsonbArrayOf(6)}, ${jsonbArrayOf(7)})`;

/** es_append_group's parameters: as es_append_many's, but each event names its entry (1-based) instead of counts. */
export const appendGroupParams = (appends: readonly StreamAppend[]): unknown[] => {
  const [streams, kinds, revisions, , ...events] = appendManyParams(appends);
  return [streams, kinds, revisions, arrayLiteral(appends.flatMap((a, i) => a.events.map(() => i + 1))), ...events];
};

export const APPEND_GROUP_SQL = `SELECT entry, result, current_revision, out_commit::text, out_prepare FROM es_append_group($1::text[], $2::text[], $3::bigint[], $4::int[], $5::uuid[], $6::text[], ${jsonbArrayOf(7)}, ${jsonbArrayOf(8)}) ORDER BY entry`;

export const APPEND_MANY_SQL = `SELECT entry, result, current_revision, out_commit::text, out_prepare FROM es_append_many($1, $2::text[], $3::text[], $4::bigint[], $5::int[], $6::uuid[], $7::text[], ${jsonbArrayOf(8)}, ${jsonbArrayOf(9)}) ORDER BY entry`;
