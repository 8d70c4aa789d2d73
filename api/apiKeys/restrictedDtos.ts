// The response DTOs whose fields an access policy can hide (spec "Access policy of an API key"), by the
// $id of their schema. Wherever one of them appears in a response (alone, in a list, nested in another
// DTO), its hidden members are null.
export const RESTRICTED_DTOS = ['AccountDTO', 'AccountInformationDTO', 'CopierDTO'] as const;

export const isRestrictedDto = (id: unknown): id is (typeof RESTRICTED_DTOS)[number] =>
  typeof id === 'string' && (RESTRICTED_DTOS as readonly string[]).includes(id);

/** Members that are never hidden. */
export const ALWAYS_VISIBLE = new Set(['id']);
