// FeatureApprovalDTO (spec: account feature, named only; POST /accounts/{accountId}/approvals with
// ApprovalDTO; AccountInformationDTO.pendingApprovals). Our reading: every master open (market or
// pending) that the account's copiers would copy waits for a person's decision instead of being copied
// at once.
//   - The wait is a deferral (CopyDeferred by this feature, until the expiry): it is an event, so a
//     restart keeps it; the wait's event id is the approval's id.
//   - Approved in time: the open is decided again at once, with the rules of that moment (filters,
//     sizing, prices), and copied; ApprovalDTO.volume replaces the copier's scaling (sizing.ts). Rejected: skipped with APPROVAL_REJECTED. No decision before
//     expirySeconds: skipped with APPROVAL_EXPIRED.
//   - It asks after the other filters: an open they refuse is refused at once and never waits. A
//     monitor-only or inactive copier asks nothing.
//   - Closes, partial closes and stop changes are never held: they follow the master as usual.
//   - Scope: an account (the spec: every copier of which it is the slave asks) or a copier (the
//     reference: "approval feature (copier)": only that copier's copies wait, the account's other
//     copiers copy at once). Set on both, the copier's own applies to that copier (activateApproval
//     false on it lets that copier copy at once under an account that asks).
// The decision reaches the rule as `approval` in the context; only the first decision counts. Removing
// the feature releases the waiting opens: the engine decides them again at once, without this rule.
import { type Static, Type } from '@sinclair/typebox';
import { type CopierFeature, skip } from './rules.js';

export const APPROVAL = 'FeatureApprovalDTO';
export const DEFAULT_APPROVAL_EXPIRY_SECONDS = 300;

const members = Type.Object({
  activateApproval: Type.Boolean({
    description:
      'true (default): opens wait for a decision; false: the feature stays attached but holds nothing back, as if removed (waiting opens are released)',
  }),
  expirySeconds: Type.Integer({
    minimum: 10,
    maximum: 604_800,
    description: `seconds an open waits for a decision before it is skipped (APPROVAL_EXPIRED); default ${DEFAULT_APPROVAL_EXPIRY_SECONDS}, at most 7 days`,
  }),
});
export type ApprovalSettings = Static<typeof members>;

export const approval: CopierFeature<ApprovalSettings> = {
  type: APPROVAL,
  scopes: ['account', 'copier'],
  multiple: false,
  members,
  defaults: { activateApproval: true, expirySeconds: DEFAULT_APPROVAL_EXPIRY_SECONDS },
  description: `Manual approval of copied trades: every master open (market or pending) that a copier of this account would copy waits for a person's decision instead of being copied at once. A waiting open is listed by GET /accounts/{accountId}/approvals (its approvalId) and counted in AccountInformationDTO.pendingApprovals; POST /accounts/{accountId}/approvals decides it. Approved before it expires: the open is decided again at that moment (the account's other rules, its sizing and prices then) and copied; an approval with ApprovalDTO.volume places that lot instead of the copier's scaling, within the copier's maxLotSize and maximumLot and the symbol's lot step, minimum and maximum. Rejected: skipped with APPROVAL_REJECTED. No decision within expirySeconds (default ${DEFAULT_APPROVAL_EXPIRY_SECONDS}): skipped with APPROVAL_EXPIRED. Opens that other rules refuse are refused at once and never wait; monitor-only and inactive copiers ask nothing. Closes, partial closes and stop changes are copied as usual. A waiting open survives a restart of the service. activateApproval false (the reference's switch; default true) holds nothing back, as does removing the feature, which releases the waiting opens: they are decided again at once without it (copied unless another rule refuses them). Scope: an account (the spec: the opens of every copier of which it is the slave wait) or a copier (the reference: only that copier's opens wait; the account's other copiers copy at once); set on both, the copier's own applies to that copier. The approvals of either are listed and decided on the slave account.`,
  rules: {
    filterOpen: (s, ctx) => {
      if (!s.activateApproval || !ctx.deferredBy.includes(APPROVAL)) return null;
      if (ctx.approval?.decision === 'approved') return null;
      return ctx.approval?.decision === 'rejected'
        ? skip('APPROVAL_REJECTED', 'the copy was rejected (POST .../approvals)')
        : skip('APPROVAL_EXPIRED', 'no decision on the copy before the approval expired');
    },
    deferOpen: (s, ctx) =>
      !s.activateApproval || ctx.deferredBy.includes(APPROVAL) ? null : new Date(Date.parse(ctx.now) + s.expirySeconds * 1000).toISOString(),
  },
};
