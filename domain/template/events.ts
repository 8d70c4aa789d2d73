// Events of an account template (stream `template-<templateId>`, spec "Account templates"). Every
// revision's event holds the whole payload of that revision, so each revision can be shown as stored.
// Which accounts follow the template (and at which revision) is the template's too: deleting a template
// with linked accounts is its own rule.
import type { TemplatePayload } from './payload.js';

interface Revision {
  readonly templateId: string;
  readonly projectId: string;
  /** 1 for the first, one more for each update. */
  readonly revision: number;
  readonly name: string;
  readonly description: string | null;
  /** The account the payload was taken from; null: the payload was written otherwise. */
  readonly sourceAccountId: string | null;
  readonly payload: TemplatePayload;
  readonly at: string;
}

/** Why an account stopped following a template. */
export type UnlinkReason = 'CLEARED' | 'OTHER_TEMPLATE_APPLIED' | 'TEMPLATE_DELETED';

export type TemplateEvent =
  | { type: 'TemplateCreated'; data: Revision }
  | { type: 'TemplateUpdated'; data: Revision }
  /** The account was made to match `revision` and follows the template from now on. */
  | { type: 'TemplateApplied'; data: { templateId: string; projectId: string; accountId: string; revision: number; at: string } }
  | { type: 'TemplateUnlinked'; data: { templateId: string; projectId: string; accountId: string; reason: UnlinkReason; at: string } }
  | { type: 'TemplateDeleted'; data: { templateId: string; projectId: string; at: string } };

export type TemplateEventType = TemplateEvent['type'];

export const templateEventTypes: readonly TemplateEventType[] = [
  'TemplateCreated',
  'TemplateUpdated',
  'TemplateApplied',
  'TemplateUnlinked',
  'TemplateDeleted',
];

export const templateStream = (templateId: string): string => `template-${templateId}`;
