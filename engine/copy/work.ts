// The work items of the copy pipeline: a store event routed to its master (intake.ts), or work the
// engine schedules itself (scheduling.ts). Each runs in its master's group, in order (handlers.ts).
import type { Position, RecordedEvent } from '../../store/port.js';
import type { EarlyOutcomes } from './early.js';
import type { CopierTriggerKind, MasterTrigger } from './triggers.js';

export type Work =
  | {
      readonly kind: 'master';
      readonly group: string;
      readonly recorded: RecordedEvent;
      readonly trigger: MasterTrigger;
      readonly masterAccountId: string;
      /** The newest event before this one that changes what the engine reads (see intake.ts). */
      readonly stateBefore: Position | null;
      /** What was placed early from the venue's change (early.ts), or null: the handler decides every copier. */
      readonly early: Promise<EarlyOutcomes | null> | null;
    }
  | { readonly kind: 'copier'; readonly group: string; readonly recorded: RecordedEvent; readonly copierId: string; readonly trigger: CopierTriggerKind }
  | { readonly kind: 'retry'; readonly group: string; readonly clientOrderId: string }
  | { readonly kind: 'deferral'; readonly group: string; readonly deferralId: string }
  | { readonly kind: 'manage'; readonly group: string; readonly copierId: string };

export type ScheduledWork = Extract<Work, { kind: 'retry' | 'deferral' | 'manage' }>;
