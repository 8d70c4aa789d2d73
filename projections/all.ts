// Every read model of the service, in the order they are built.
import { accountsProjection } from './accounts/projector.js';
import { apiKeysProjection } from './apiKeys/projector.js';
import { auditLogsProjection } from './auditLogs/projector.js';
import { copiersProjection } from './copiers/projector.js';
import type { Projection } from './projection.js';
import { projectsProjection } from './projects/projector.js';

export const allProjections: readonly Projection[] = [
  projectsProjection,
  apiKeysProjection,
  accountsProjection,
  copiersProjection,
  auditLogsProjection,
];

export const projectionByName = (name: string): Projection | undefined => allProjections.find((p) => p.name === name);
