// The dashboards of one project: create, change (PUT and PATCH both arrive as the whole new layout),
// delete, duplicate, reorder, replace all. Every layout is checked (layout.ts); a project holds at most
// MAX_DASHBOARDS_PER_PROJECT. The order is the aggregate's: new dashboards go last, a deleted one leaves
// it, a reorder must name every dashboard exactly once, a replacement may name only the project's own.
import type { Decider } from '../shared/command.js';
import { illegalState, invalid, notFound } from '../shared/errors.js';
import { sameJson } from '../shared/json.js';
import type { DashboardCommand } from './commands.js';
import type { DashboardEvent } from './events.js';
import { checkDashboardLayout, type DashboardLayout, MAX_DASHBOARDS_PER_PROJECT, MAX_NAME_LENGTH } from './layout.js';

export interface Dashboards {
  readonly layouts: Readonly<Record<string, DashboardLayout>>;
  readonly order: readonly string[];
}

export const initialState: Dashboards = { layouts: {}, order: [] };

const checked = (layout: DashboardLayout, prefix = ''): DashboardLayout => {
  const problem = checkDashboardLayout(layout);
  if (problem) throw invalid('[VALIDATION_FAILED]', `${prefix}${problem.field}: ${problem.message}`, { field: `${prefix}${problem.field}` });
  return layout;
};

const dashboardNotFound = (id: string) => notFound('[DASHBOARD_NOT_FOUND]', `dashboard ${id} not found`);

const roomForOneMore = (state: Dashboards): void => {
  if (state.order.length >= MAX_DASHBOARDS_PER_PROJECT) {
    throw illegalState('[DASHBOARD_LIMIT_REACHED]', `a project holds at most ${MAX_DASHBOARDS_PER_PROJECT} dashboards`);
  }
};

export const decide = (command: DashboardCommand, state: Dashboards): DashboardEvent[] => {
  const at = command.metadata.now;
  const { projectId } = command.data;
  switch (command.type) {
    case 'CreateDashboard': {
      const { dashboardId } = command.data;
      if (state.layouts[dashboardId]) throw illegalState('[DASHBOARD_ALREADY_EXISTS]', `dashboard ${dashboardId} exists already`);
      roomForOneMore(state);
      return [{ type: 'DashboardCreated', data: { projectId, dashboardId, layout: checked(command.data.layout), duplicateOf: null, at } }];
    }
    case 'ChangeDashboard': {
      const { dashboardId } = command.data;
      const current = state.layouts[dashboardId];
      if (!current) throw dashboardNotFound(dashboardId);
      const layout = checked(command.data.layout);
      if (sameJson(current, layout)) return [];
      return [{ type: 'DashboardChanged', data: { projectId, dashboardId, layout, at } }];
    }
    case 'DeleteDashboard': {
      const { dashboardId } = command.data;
      if (!state.layouts[dashboardId]) throw dashboardNotFound(dashboardId);
      return [{ type: 'DashboardDeleted', data: { projectId, dashboardId, at } }];
    }
    case 'DuplicateDashboard': {
      const { dashboardId, newDashboardId } = command.data;
      const source = state.layouts[dashboardId];
      if (!source) throw dashboardNotFound(dashboardId);
      roomForOneMore(state);
      const name = command.data.name ?? `${source.name} (copy)`.slice(0, MAX_NAME_LENGTH);
      const layout = checked({ ...source, name });
      return [{ type: 'DashboardCreated', data: { projectId, dashboardId: newDashboardId, layout, duplicateOf: dashboardId, at } }];
    }
    case 'ReorderDashboards': {
      const { order } = command.data;
      const named = new Set(order);
      if (named.size !== order.length || order.length !== state.order.length || order.some((id) => !state.layouts[id])) {
        throw invalid('[VALIDATION_FAILED]', `dashboardIds: every dashboard of the project exactly once (${state.order.length})`, { field: 'dashboardIds' });
      }
      if (sameJson(order, state.order)) return [];
      return [{ type: 'DashboardsReordered', data: { projectId, order, at } }];
    }
    case 'ReplaceDashboards': {
      const { dashboards } = command.data;
      if (dashboards.length > MAX_DASHBOARDS_PER_PROJECT) {
        throw invalid('[VALIDATION_FAILED]', `dashboards: at most ${MAX_DASHBOARDS_PER_PROJECT}`, { field: 'dashboards' });
      }
      if (new Set(dashboards.map((d) => d.dashboardId)).size !== dashboards.length) {
        throw invalid('[VALIDATION_FAILED]', 'dashboards: each id once', { field: 'dashboards' });
      }
      // An id the client names must be a dashboard of this project: dashboard ids are unique across
      // projects, and another project's id must neither be taken over nor tell that it exists.
      const foreign = dashboards.findIndex((d) => d.named && !state.layouts[d.dashboardId]);
      if (foreign >= 0) {
        throw invalid('[VALIDATION_FAILED]', `dashboards[${foreign}].id: not a dashboard of this project (leave id out for a new one)`, {
          field: `dashboards[${foreign}].id`,
        });
      }
      dashboards.forEach((d, i) => checked(d.layout, `dashboards[${i}].`));
      const placed = dashboards.map(({ dashboardId, layout }) => ({ dashboardId, layout }));
      return [{ type: 'DashboardsReplaced', data: { projectId, dashboards: placed, at } }];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const evolve = (state: Dashboards, event: DashboardEvent): Dashboards => {
  switch (event.type) {
    case 'DashboardCreated':
      return { layouts: { ...state.layouts, [event.data.dashboardId]: event.data.layout }, order: [...state.order, event.data.dashboardId] };
    case 'DashboardChanged':
      return { ...state, layouts: { ...state.layouts, [event.data.dashboardId]: event.data.layout } };
    case 'DashboardDeleted': {
      const { [event.data.dashboardId]: _gone, ...layouts } = state.layouts;
      return { layouts, order: state.order.filter((id) => id !== event.data.dashboardId) };
    }
    case 'DashboardsReordered':
      return { ...state, order: event.data.order };
    case 'DashboardsReplaced':
      return {
        layouts: Object.fromEntries(event.data.dashboards.map((d) => [d.dashboardId, d.layout])),
        order: event.data.dashboards.map((d) => d.dashboardId),
      };
    default:
      return state;
  }
};

export const dashboardDecider: Decider<DashboardCommand, DashboardEvent, Dashboards> = { decide, evolve, initialState };
