// The template DTOs from the templates read model: the payload in the shapes the copier, feature and
// risk limit endpoints answer (without ids), the compatibility marker with its attention flags, and
// the links of accounts.
import { membersOf } from '../../domain/feature/definition.js';
import type { FeatureSetting } from '../../domain/feature/events.js';
import { riskTypeById } from '../../domain/riskLimit/riskTypes.js';
import type { Compatibility } from '../../domain/template/compatibility.js';
import type { TemplatePayload } from '../../domain/template/payload.js';
import type { TemplateLinkRow, TemplateRevisionRow, TemplateRow } from '../../projections/templates/queries.js';
import { toCopierDTO } from '../copiers/dto.js';
import { toFeatureTypeDTO } from '../features/dto.js';
import { presentSetting } from '../features/settingHooks.js';
import { enumObject } from '../shared/enumObjects.js';

const iso = (value: Date | string): string => new Date(value).toISOString();

const toTemplateFeatureDTO = (setting: FeatureSetting) => ({
  type: toFeatureTypeDTO(setting.type),
  setting: membersOf<Record<string, unknown>>(presentSetting(setting)),
});

export const toTemplatePayloadDTO = (payload: TemplatePayload) => ({
  copiers: payload.copiers.map((copier) => {
    const {
      id: _id,
      fromAccountId: _from,
      toAccountId: _to,
      created: _created,
      ...settings
    } = toCopierDTO({
      id: '',
      project_id: '',
      from_account_id: copier.fromAccountId,
      from_account_alias: null,
      to_account_id: '',
      active: copier.settings.active,
      monitor_only: copier.settings.monitorOnly,
      settings: copier.settings,
      symbol_mappings: copier.symbolMappings,
      created: new Date(0),
      updated: new Date(0),
    });
    return {
      fromAccountId: copier.fromAccountId,
      ...(copier.fromStrategyId ? { fromStrategyId: copier.fromStrategyId } : {}),
      ...(copier.toStrategyId ? { toStrategyId: copier.toStrategyId } : {}),
      settings,
      symbolMappings: copier.symbolMappings,
      features: copier.features.map(toTemplateFeatureDTO),
    };
  }),
  features: payload.features.map(toTemplateFeatureDTO),
  riskLimits: payload.riskLimits.map(({ copierFromAccountId, copierFromStrategyId, copierToStrategyId, settings: { riskTypeId, ...rest } }) => ({
    copierFromAccountId,
    ...(copierFromStrategyId ? { copierFromStrategyId } : {}),
    ...(copierToStrategyId ? { copierToStrategyId } : {}),
    riskType: enumObject(riskTypeId, riskTypeById(riskTypeId)?.name ?? String(riskTypeId)),
    ...rest,
  })),
  settings: payload.settings,
});

export interface TemplateView {
  readonly row: TemplateRow;
  readonly compatibility: Compatibility;
  readonly links: readonly TemplateLinkRow[];
}

export const toTemplateSummaryDTO = ({ row, compatibility, links }: TemplateView) => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  description: row.description,
  revision: row.revision,
  sourceAccountId: row.source_account_id,
  linkedAccountCount: links.length,
  behindAccountCount: links.filter((l) => l.applied_revision < row.revision).length,
  compatibility: compatibility.marker,
  attentionFlags: compatibility.attentionFlags,
  created: iso(row.created),
  updated: iso(row.updated),
});

export const toTemplateDTO = (view: TemplateView) => ({ ...toTemplateSummaryDTO(view), payload: toTemplatePayloadDTO(view.row.payload) });

export const toRevisionSummaryDTO = (row: TemplateRevisionRow) => ({
  templateId: row.template_id,
  revision: row.revision,
  name: row.name,
  description: row.description,
  sourceAccountId: row.source_account_id,
  created: iso(row.created),
});

export const toRevisionDTO = (row: TemplateRevisionRow) => ({ ...toRevisionSummaryDTO(row), payload: toTemplatePayloadDTO(row.payload) });

export const toLinkedAccountDTO = (row: TemplateLinkRow, revision: number) => ({
  accountId: row.account_id,
  alias: row.alias,
  appliedRevision: row.applied_revision,
  appliedAt: iso(row.applied_at),
  behind: row.applied_revision < revision,
});
