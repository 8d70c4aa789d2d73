// Every read model of the service, in the order they are built.
import { accountLogsProjection } from './accountLogs/projector.js';
import { accountsProjection } from './accounts/projector.js';
import { apiKeysProjection } from './apiKeys/projector.js';
import { auditLogsProjection } from './auditLogs/projector.js';
import { copiesProjection } from './copies/projector.js';
import { copiersProjection } from './copiers/projector.js';
import type { Projection } from './projection.js';
import { positionsProjection } from './positions/projector.js';
import { projectsProjection } from './projects/projector.js';

export const allProjections: readonly Projection[] = [
  projectsProjection,
  apiKeysProjection,
  accountsProjection,
  copiersProjection,
  positionsProjection,
  copiesProjection,
  accountLogsProjection,
  auditLogsProjection,
];

export const projectionByName = (name: string): Projection | undefined => allProjections.find((p) => p.name === name);
