import type { CommandMetadata } from '../shared/command.js';

export type ApprovalCommand = {
  type: 'DecideApproval';
  data: {
    readonly approvalId: string;
    readonly accountId: string;
    readonly copierId: string;
    readonly masterPositionId: string;
    readonly approved: boolean;
    /** The lots the copy is placed with instead of the copier's sizing (ApprovalDTO.volume); null: the copier's sizing. */
    readonly volume: number | null;
    /** When the wait ends: a decision at or after it comes too late. */
    readonly expiresAt: string;
  };
  metadata: CommandMetadata;
};
