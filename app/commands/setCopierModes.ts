// Activating, deactivating or monitoring many copiers at once (spec "Copiers": the mode of every copier
// of the project, or of one master's): one UpdateCopier per copier, each through its own decider, and
// one wait at the end for the copiers read model to include the last of them.
import type { CopierSettings } from '../../domain/copier/settings.js';
import { copierDecider } from '../../domain/copier/decider.js';
import { copierStream } from '../../domain/copier/events.js';
import type { RequestContext } from '../../domain/shared/command.js';
import { copierIdsFor } from '../../projections/copiers/queries.js';
import { handleCommand } from '../../store/commandHandler.js';
import { comparePositions, type Position } from '../../store/port.js';
import { commandMetadata, readYourWrites, type Services } from '../services.js';
import { COPIER_READ_MODELS } from './createCopier.js';

/** What each mode sets on a copier. */
export const COPIER_MODES = {
  activate: { active: true, monitorOnly: false },
  deactivate: { active: false },
  monitorOnly: { active: true, monitorOnly: true },
} as const satisfies Record<string, Partial<CopierSettings>>;

export type CopierMode = keyof typeof COPIER_MODES;

/** Sets `mode` on every copier of the project (of the master `fromAccountId` when given). */
export const setCopierModes = async (
  services: Services,
  request: { readonly projectId: string; readonly mode: CopierMode; readonly fromAccountId?: string; readonly context: RequestContext },
): Promise<void> => {
  const { projectId, mode, fromAccountId, context } = request;
  const copiers = await copierIdsFor(services.db, projectId, fromAccountId);
  let last: Position | null = null;
  for (const c of copiers) {
    const result = await handleCommand(services.store, copierStream(c.id), copierDecider, {
      type: 'UpdateCopier',
      data: { copierId: c.id, projectId, toAccountId: c.to_account_id, changes: COPIER_MODES[mode] },
      metadata: commandMetadata(services, context),
    });
    if (result.position && (!last || comparePositions(result.position, last) > 0)) last = result.position;
  }
  if (last) await readYourWrites(services, last, `${copiers.length} copier changes`, COPIER_READ_MODELS);
};
