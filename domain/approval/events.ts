// Events of an approval (stream `approval-<approvalId>`, spec POST /accounts/{accountId}/approvals): a
// person's decision on a master open that FeatureApprovalDTO held back. The approval's id is the id of
// the CopyDeferred event that holds the open back; the engine reads the decision when it decides the
// open again.

export type ApprovalEvent = {
  type: 'ApprovalDecided';
  data: {
    readonly approvalId: string;
    /** The slave account the open waits on. */
    readonly accountId: string;
    readonly copierId: string;
    readonly masterPositionId: string;
    readonly approved: boolean;
    /**
     * The lots the person chose for the copy (ApprovalDTO.volume), in place of the copier's sizing;
     * null or absent (events before it existed): the copier's sizing.
     */
    readonly volume?: number | null;
    readonly at: string;
  };
};

export type ApprovalEventType = ApprovalEvent['type'];
export const approvalEventTypes: readonly ApprovalEventType[] = ['ApprovalDecided'];

export const APPROVAL_STREAM_PREFIX = 'approval-';
export const approvalStream = (approvalId: string): string => `${APPROVAL_STREAM_PREFIX}${approvalId}`;
