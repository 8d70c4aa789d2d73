// Field access of an access policy (spec "Access policy of an API key"): ALLOW_LIST shows only the
// fields listed, DENY_LIST hides them; hidden fields are returned as null. An entry is a field name
// (every restricted DTO that has it) or `<DTO name>: <field name>`. The mode is global: with
// ALLOW_LIST, a restricted DTO none of whose fields is listed is hidden whole (fail closed).
import type { PolicyMode } from './endpointRules.js';

export interface FieldAccess {
  readonly mode: PolicyMode;
  readonly fields: readonly string[];
}

export interface FieldRef {
  readonly dto: string | null;
  readonly field: string;
}

const ENTRY = /^\s*(?:([A-Za-z][A-Za-z0-9]*)\s*:\s*)?([A-Za-z][A-Za-z0-9]*)\s*$/;

export const parseFieldEntry = (entry: string): FieldRef | null => {
  const m = ENTRY.exec(entry);
  return m ? { dto: m[1] ?? null, field: m[2]! } : null;
};

export const formatFieldEntry = (ref: FieldRef): string => (ref.dto ? `${ref.dto}: ${ref.field}` : ref.field);

export const fieldVisible = (access: FieldAccess, dto: string, field: string): boolean => {
  const listed = access.fields.some((entry) => {
    const ref = parseFieldEntry(entry);
    return ref !== null && ref.field === field && (ref.dto === null || ref.dto === dto);
  });
  return access.mode === 'ALLOW_LIST' ? listed : !listed;
};
