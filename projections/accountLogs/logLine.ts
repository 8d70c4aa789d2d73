// One line of an account's log (LogDTO) before it is stored: what every event that logs becomes.
// Its own module, so the projectors that make lines (positions and copies, account features,
// protections) and the account logs projector that stores them import it without a circle.
export const LogType = { Error: 1, Warning: 2, Info: 3 } as const;
export type LogTypeId = (typeof LogType)[keyof typeof LogType];
/** The log types as the reference's LogTypeDTO lists them (GET /types/logTypes); LogDTO.logType is the name. */
export const logTypes: readonly { readonly id: LogTypeId; readonly name: string }[] = [
  { id: LogType.Error, name: 'Error' },
  { id: LogType.Warning, name: 'Warning' },
  { id: LogType.Info, name: 'Info' },
];
export type LogCategory = 'CONNECTION' | 'TRADING' | 'COPY' | 'BALANCE' | 'PROTECTION';

export interface LogLine {
  readonly accountId: string;
  readonly logTypeId: LogTypeId;
  readonly category: LogCategory;
  readonly message: string;
  /** A code: the skip reason, the venue's error code. */
  readonly code: string | null;
  readonly copierId: string | null;
  readonly positionId: string | null;
}
