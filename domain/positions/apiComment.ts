// The reference's comment convention for trades opened through the API (PositionRequestDTO.comment):
// "An 'API|YOUR_REQUEST_ID|' is prepended to your comment for tracking purpose (this prefix is only
// used for the endpoint /rest/api/v1/accounts/{accountId}/positions)". The broker keeps the comment
// with its prefix, so the request id a position was opened with can be read back from the broker's
// book and history (PositionDTO.requestId) without anything kept on our side.

const PREFIX = /^API\|(\d{1,3})\|/;

/** The comment sent to the broker for POST .../positions: `API|<requestId>|` and the client's comment (none = ""). */
export const apiComment = (requestId: number, comment: string | null): string => `API|${requestId}|${comment ?? ''}`;

/** The client's requestId in a comment carrying the prefix, as a string; null when it carries none. */
export const apiRequestIdOf = (comment: string | null): string | null => {
  const match = comment === null ? null : PREFIX.exec(comment);
  return match ? String(Number(match[1])) : null;
};
