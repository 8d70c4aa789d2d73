// A dashboard of a project (spec "Dashboards": UserDashboardConfigDTO, WidgetConfigDTO, GridsterItemDTO;
// their members are not shown in the spec, so these are ours, documented in api/dashboards): a name and
// widgets, each placed on a grid (the angular-gridster2 item a frontend lays out: x, y, cols, rows) with
// a free-form configuration. The configuration is any JSON value, stored and answered as it came: the
// service never interprets or runs it, and bounds its size and depth.

export interface GridItem {
  readonly x: number;
  readonly y: number;
  readonly cols: number;
  readonly rows: number;
  readonly minItemCols?: number;
  readonly maxItemCols?: number;
  readonly minItemRows?: number;
  readonly maxItemRows?: number;
  readonly dragEnabled?: boolean;
  readonly resizeEnabled?: boolean;
}

export interface Widget {
  /** Unique within its dashboard; chosen by the client, or given by the service. */
  readonly id: string;
  /** What the frontend draws ('equityChart'): free text, never interpreted. */
  readonly type: string;
  readonly title: string | null;
  readonly gridItem: GridItem;
  /** Free-form JSON (JsonNode): kept as sent. */
  readonly config: unknown;
}

export interface DashboardLayout {
  readonly name: string;
  readonly widgets: readonly Widget[];
}

export const MAX_NAME_LENGTH = 100;
export const MAX_WIDGETS = 100;
export const MAX_DASHBOARDS_PER_PROJECT = 100;
/** A widget's configuration, as JSON text. */
export const MAX_WIDGET_CONFIG_BYTES = 16 * 1024;
/** A dashboard, as JSON text. */
export const MAX_DASHBOARD_BYTES = 256 * 1024;
/** Nesting of a widget's configuration. */
export const MAX_CONFIG_DEPTH = 16;
export const MAX_GRID = 1000;

export interface LayoutProblem {
  readonly field: string;
  readonly message: string;
}

const depth = (value: unknown): number => {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value as object);
  return 1 + children.reduce<number>((max, child) => Math.max(max, depth(child)), 0);
};

/** Whether a value is JSON and nothing else: no undefined, functions, non-finite numbers. */
const isJson = (value: unknown): boolean => {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  if (typeof value === 'object') return Object.getPrototypeOf(value) === Object.prototype && Object.values(value as object).every(isJson);
  return false;
};

const gridProblem = (g: GridItem, at: string): LayoutProblem | null => {
  for (const key of ['x', 'y'] as const) {
    if (!Number.isInteger(g[key]) || g[key] < 0 || g[key] > MAX_GRID) return { field: `${at}.${key}`, message: `an integer from 0 to ${MAX_GRID}` };
  }
  for (const key of ['cols', 'rows', 'minItemCols', 'maxItemCols', 'minItemRows', 'maxItemRows'] as const) {
    const v = g[key];
    if (v === undefined && key !== 'cols' && key !== 'rows') continue;
    if (!Number.isInteger(v) || v! < 1 || v! > MAX_GRID) return { field: `${at}.${key}`, message: `an integer from 1 to ${MAX_GRID}` };
  }
  if (g.minItemCols !== undefined && g.maxItemCols !== undefined && g.minItemCols > g.maxItemCols) {
    return { field: `${at}.minItemCols`, message: 'at most maxItemCols' };
  }
  if (g.minItemRows !== undefined && g.maxItemRows !== undefined && g.minItemRows > g.maxItemRows) {
    return { field: `${at}.minItemRows`, message: 'at most maxItemRows' };
  }
  return null;
};

/** Why a dashboard is refused, or null. */
export const checkDashboardLayout = (layout: DashboardLayout): LayoutProblem | null => {
  if (layout.name.trim() === '' || layout.name.length > MAX_NAME_LENGTH) return { field: 'name', message: `1 to ${MAX_NAME_LENGTH} characters, not blank` };
  if (layout.widgets.length > MAX_WIDGETS) return { field: 'widgets', message: `at most ${MAX_WIDGETS} widgets` };
  const ids = new Set<string>();
  for (const [i, w] of layout.widgets.entries()) {
    const at = `widgets[${i}]`;
    if (w.id.trim() === '' || w.id.length > 64) return { field: `${at}.id`, message: '1 to 64 characters' };
    if (ids.has(w.id)) return { field: `${at}.id`, message: `${w.id} is the id of another widget of this dashboard` };
    ids.add(w.id);
    if (w.type.trim() === '' || w.type.length > 100) return { field: `${at}.type`, message: '1 to 100 characters' };
    if (w.title !== null && w.title.length > MAX_NAME_LENGTH) return { field: `${at}.title`, message: `at most ${MAX_NAME_LENGTH} characters` };
    const grid = gridProblem(w.gridItem, `${at}.gridItem`);
    if (grid) return grid;
    if (!isJson(w.config)) return { field: `${at}.config`, message: 'JSON values only' };
    if (depth(w.config) > MAX_CONFIG_DEPTH) return { field: `${at}.config`, message: `nested at most ${MAX_CONFIG_DEPTH} levels` };
    if (Buffer.byteLength(JSON.stringify(w.config) ?? 'null') > MAX_WIDGET_CONFIG_BYTES) {
      return { field: `${at}.config`, message: `at most ${MAX_WIDGET_CONFIG_BYTES} bytes of JSON` };
    }
  }
  if (Buffer.byteLength(JSON.stringify(layout)) > MAX_DASHBOARD_BYTES)
    return { field: 'widgets', message: `a dashboard is at most ${MAX_DASHBOARD_BYTES} bytes of JSON` };
  return null;
};

/**
 * RFC 7396 JSON merge patch: members of an object patch replace the target's, null removes one, a
 * patch that is not an object replaces the target whole (arrays included).
 */
export const mergePatch = (target: unknown, patch: unknown): unknown => {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [key, value] of Object.entries(patch as object)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
};
