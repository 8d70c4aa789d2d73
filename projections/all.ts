// Every read model of the service, in the order they are built.
import { accountLogsProjection } from './accountLogs/projector.js';
import { accountsProjection } from './accounts/projector.js';
import { calendarProjection } from './calendar/projector.js';
import { alertsProjection } from './alerts/projector.js';
import { marketNewsProjection } from './marketNews/projector.js';
import { approvalsProjection } from './approvals/projector.js';
import { apiKeysProjection } from './apiKeys/projector.js';
import { auditLogsProjection } from './auditLogs/projector.js';
import { dashboardsProjection } from './dashboards/projector.js';
import { chartingDataProjection } from './chartingData/projector.js';
import { customersProjection } from './customers/projector.js';
import { copiesProjection } from './copies/projector.js';
import { copiersProjection } from './copiers/projector.js';
import { dataCollectorProjection } from './dataCollector/projector.js';
import { earningsProjection } from './earnings/projector.js';
import { billingProjection } from './billing/projector.js';
import { invoicesProjection } from './invoices/projector.js';
import { payoutsProjection } from './payouts/projector.js';
import { featuresProjection } from './features/projector.js';
import { historyProjection } from './history/projector.js';
import { marketplaceProjection } from './marketplace/projector.js';
import { messagingProjection } from './messaging/projector.js';
import { maintenanceWindowsProjection } from './maintenanceWindows/projector.js';
import type { Projection } from './projection.js';
import { positionsProjection } from './positions/projector.js';
import { projectsProjection } from './projects/projector.js';
import { protectionsProjection } from './protections/projector.js';
import { riskLimitsProjection } from './riskLimits/projector.js';
import { signalsProjection } from './signals/projector.js';
import { strategiesProjection } from './strategies/projector.js';
import { symbolMappingsProjection } from './symbolMappings/projector.js';
import { templatesProjection } from './templates/projector.js';

export const allProjections: readonly Projection[] = [
  projectsProjection,
  apiKeysProjection,
  accountsProjection,
  copiersProjection,
  symbolMappingsProjection,
  featuresProjection,
  positionsProjection,
  historyProjection,
  dataCollectorProjection,
  copiesProjection,
  riskLimitsProjection,
  protectionsProjection,
  accountLogsProjection,
  auditLogsProjection,
  approvalsProjection,
  maintenanceWindowsProjection,
  dashboardsProjection,
  chartingDataProjection,
  messagingProjection,
  templatesProjection,
  strategiesProjection,
  signalsProjection,
  marketplaceProjection,
  calendarProjection,
  earningsProjection,
  alertsProjection,
  customersProjection,
  marketNewsProjection,
  billingProjection,
  invoicesProjection,
  payoutsProjection,
];

export const projectionByName = (name: string): Projection | undefined => allProjections.find((p) => p.name === name);
