// Enumerations on the wire as the reference document (OpenAPI 1.2.5) writes them: an object
// `{ id, name }` where a client sends only the id (`"scaleType": {"id": 1}`) and the service answers
// both. One schema per enumeration, named as the reference names it (ScaleTypeDTO, RiskTypeDTO, ...),
// so our document and a client generated from the reference agree on it.
import { type TObject, type TInteger, type TOptional, type TString, Type } from '@sinclair/typebox';

export type TEnumObject = TObject<{ id: TInteger; name: TOptional<TString> }>;

/**
 * The schema of one enumeration object. `ids` lists the valid ids in the description (the reference
 * does the same); validation of the id against the catalogue belongs to the route (a clear
 * [VALIDATION_FAILED] naming the member), since an unknown id is a domain error, not a shape error.
 */
export const EnumObject = (schemaId: string, description: string): TEnumObject =>
  Type.Object(
    {
      id: Type.Integer({ minimum: -2147483648, maximum: 2147483647 }),
      name: Type.Optional(Type.String({ readOnly: true, description: 'answered by the service; ignored when sent' })),
    },
    { $id: schemaId, description },
  );

/** The answer for an enumeration value: `{ id, name }`, the name from its catalogue. */
export const enumObject = (id: number, name: string): { id: number; name: string } => ({ id, name });
