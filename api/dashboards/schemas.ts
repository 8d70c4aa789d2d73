// The dashboard DTOs (spec "Dashboards" names UserDashboardConfigDTO, WidgetConfigDTO, GridsterItemDTO,
// DashboardStorageDTO, DuplicateDashboardRequestDTO, ReorderDashboardsRequestDTO and JsonNode without
// showing their members, and the reference has none of them: the members below are ours).
import { Type } from '@sinclair/typebox';
import {
  MAX_CONFIG_DEPTH,
  MAX_DASHBOARD_BYTES,
  MAX_DASHBOARDS_PER_PROJECT,
  MAX_GRID,
  MAX_NAME_LENGTH,
  MAX_WIDGET_CONFIG_BYTES,
  MAX_WIDGETS,
} from '../../domain/dashboard/layout.js';
import { Nullable, Uuid } from '../shared/schemas.js';

const cells = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_GRID, description });

export const GridsterItemDTO = Type.Object(
  {
    x: Type.Integer({ minimum: 0, maximum: MAX_GRID, description: 'column of the top left cell, from 0' }),
    y: Type.Integer({ minimum: 0, maximum: MAX_GRID, description: 'row of the top left cell, from 0' }),
    cols: cells('width in cells'),
    rows: cells('height in cells'),
    minItemCols: Type.Optional(cells('narrowest width a resize may give')),
    maxItemCols: Type.Optional(cells('widest width a resize may give')),
    minItemRows: Type.Optional(cells('lowest height a resize may give')),
    maxItemRows: Type.Optional(cells('highest height a resize may give')),
    dragEnabled: Type.Optional(Type.Boolean()),
    resizeEnabled: Type.Optional(Type.Boolean()),
  },
  {
    $id: 'GridsterItemDTO',
    additionalProperties: false,
    description: "Ours: where a widget sits on the dashboard's grid, as angular-gridster2 places an item. The service keeps it; it does not lay anything out.",
  },
);

export const JsonNode = Type.Unknown({
  description: `Free-form JSON (any value): stored and answered exactly as sent, never interpreted or run by the service. At most ${MAX_WIDGET_CONFIG_BYTES} bytes as JSON and ${MAX_CONFIG_DEPTH} levels deep.`,
});

const widgetMembers = {
  type: Type.String({ minLength: 1, maxLength: 100, description: "what the frontend draws ('equityChart', 'positions'): free text" }),
  title: Type.Optional(Nullable(Type.String({ maxLength: MAX_NAME_LENGTH }))),
  gridItem: GridsterItemDTO,
  config: Type.Optional(JsonNode),
};

export const WidgetConfigDTO = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, description: 'unique within its dashboard' }),
    type: widgetMembers.type,
    title: Nullable(Type.String({ maxLength: MAX_NAME_LENGTH })),
    gridItem: GridsterItemDTO,
    config: JsonNode,
  },
  { $id: 'WidgetConfigDTO', additionalProperties: false, description: 'Ours: one widget of a dashboard.' },
);

export const WidgetConfigWriteDTO = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'unique within its dashboard; the service gives one (a UUID) when absent' })),
    ...widgetMembers,
  },
  { $id: 'WidgetConfigWriteDTO', additionalProperties: false, description: 'A widget as a client sends it: title null and config null when absent.' },
);

export const UserDashboardConfigDTO = Type.Object(
  {
    id: Uuid,
    projectId: Uuid,
    name: Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH }),
    position: Type.Integer({ minimum: 0, description: "place in the project's order, from 0 (PUT .../dashboards/reorder changes it)" }),
    widgets: Type.Array(WidgetConfigDTO, { maxItems: MAX_WIDGETS }),
    duplicateOf: Nullable(Type.String({ format: 'uuid', description: 'the dashboard this one was duplicated from, if it was' })),
    created: Type.String({ format: 'date-time' }),
    updated: Type.String({ format: 'date-time' }),
  },
  {
    $id: 'UserDashboardConfigDTO',
    additionalProperties: false,
    description: `Ours: a dashboard of the project. At most ${MAX_DASHBOARDS_PER_PROJECT} per project, ${MAX_WIDGETS} widgets each, ${MAX_DASHBOARD_BYTES} bytes as JSON.`,
  },
);

const readOnlyEcho = {
  id: Type.Optional(Type.String({ description: 'read-only: ignored (the path or the service names the dashboard)' })),
  projectId: Type.Optional(Type.String({ description: 'read-only: ignored' })),
  position: Type.Optional(Type.Integer({ description: 'read-only: ignored (PUT .../dashboards/reorder changes the order)' })),
  duplicateOf: Type.Optional(Type.Unknown({ description: 'read-only: ignored' })),
  created: Type.Optional(Type.String({ description: 'read-only: ignored' })),
  updated: Type.Optional(Type.String({ description: 'read-only: ignored' })),
};

export const UserDashboardConfigWriteDTO = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH }),
    widgets: Type.Optional(Type.Array(WidgetConfigWriteDTO, { maxItems: MAX_WIDGETS, description: 'none when absent' })),
    ...readOnlyEcho,
  },
  { $id: 'UserDashboardConfigWriteDTO', additionalProperties: false },
);

export const DashboardMergePatchDTO = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH })),
    widgets: Type.Optional(Type.Array(WidgetConfigWriteDTO, { maxItems: MAX_WIDGETS, description: 'replaces every widget (RFC 7396 replaces arrays whole)' })),
    ...readOnlyEcho,
  },
  {
    $id: 'DashboardMergePatchDTO',
    additionalProperties: false,
    description: 'A JSON merge patch (RFC 7396) of a UserDashboardConfigDTO: the members sent replace those of the dashboard; widgets is replaced whole.',
  },
);

export const DashboardStorageWriteDTO = Type.Object(
  {
    dashboards: Type.Array(
      Type.Object(
        {
          ...UserDashboardConfigWriteDTO.properties,
          id: Type.Optional(
            Type.String({
              format: 'uuid',
              description: "the id of one of the project's dashboards, to keep it (another id: 400 [VALIDATION_FAILED]); a new one is given when absent",
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_DASHBOARDS_PER_PROJECT },
    ),
  },
  { $id: 'DashboardStorageWriteDTO', additionalProperties: false, description: "Ours: the project's whole dashboard storage, in order." },
);

export const DashboardStorageDTO = Type.Object(
  { dashboards: Type.Array(UserDashboardConfigDTO) },
  { $id: 'DashboardStorageDTO', additionalProperties: false, description: "Ours: the project's dashboards, in order." },
);

export const ReorderDashboardsRequestDTO = Type.Object(
  { dashboardIds: Type.Array(Uuid, { maxItems: MAX_DASHBOARDS_PER_PROJECT, description: 'every dashboard of the project once, in the new order' }) },
  { $id: 'ReorderDashboardsRequestDTO', additionalProperties: false },
);

export const DuplicateDashboardRequestDTO = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH, description: "the copy's name; default '<name> (copy)'" })) },
  { $id: 'DuplicateDashboardRequestDTO', additionalProperties: false },
);

export const DashboardsParams = Type.Object({ projectId: Uuid }, { additionalProperties: false });
export const DashboardParams = Type.Object({ projectId: Uuid, dashboardId: Uuid }, { additionalProperties: false });
