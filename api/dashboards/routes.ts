// Dashboards of a project (spec "Dashboards"; the reference has none of these operations):
//   GET, POST                 /projects/{projectId}/dashboards
//   PUT                       /projects/{projectId}/dashboards/bulk        replaces the whole storage
//   PUT                       /projects/{projectId}/dashboards/reorder
//   GET, PUT, PATCH, DELETE   /projects/{projectId}/dashboards/{dashboardId}
//   POST                      /projects/{projectId}/dashboards/{dashboardId}/duplicate
// Each write is a command on the project's dashboards (domain/dashboard), read back from the dashboards
// read model. PATCH is a JSON merge patch (RFC 7396) applied to the dashboard as GET answers it.
import { type Static, Type } from '@sinclair/typebox';
import type { DashboardCommand } from '../../domain/dashboard/commands.js';
import { dashboardDecider } from '../../domain/dashboard/decider.js';
import { dashboardStream } from '../../domain/dashboard/events.js';
import { mergePatch } from '../../domain/dashboard/layout.js';
import { findDashboard, projectDashboards } from '../../projections/dashboards/queries.js';
import { commandMetadata, execute, type Services } from '../../app/services.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses } from '../shared/schemas.js';
import { validate } from '../validation.js';
import { fromDashboardDTO, toDashboardDTO, writableOf } from './dto.js';
import {
  DashboardMergePatchDTO,
  DashboardParams,
  DashboardsParams,
  DashboardStorageDTO,
  DashboardStorageWriteDTO,
  DuplicateDashboardRequestDTO,
  ReorderDashboardsRequestDTO,
  UserDashboardConfigDTO,
  UserDashboardConfigWriteDTO,
} from './schemas.js';

const TAG = 'Dashboards';
const READ_MODELS = ['dashboards'];

type Params = { projectId: string; dashboardId: string };
type WriteBody = Static<typeof UserDashboardConfigWriteDTO>;

const rules =
  "A dashboard is a name and its widgets; a widget is a type (free text), a title, its place on the grid (gridItem: x, y, cols, rows as angular-gridster2 has them) and config, free-form JSON that the service stores and answers exactly as sent and never interprets or runs. Limits: name 1 to 100 characters; at most 100 widgets, widget ids unique within the dashboard (given as UUIDs when absent); a widget's config at most 16384 bytes as JSON and 16 levels deep; a dashboard at most 262144 bytes; a project at most 100 dashboards (409 [DASHBOARD_LIMIT_REACHED]). id, projectId, position, duplicateOf, created and updated are read-only and ignored when sent. Invalid members give 400 [VALIDATION_FAILED] and change nothing. Needs a project-level key of this project.";

export const dashboardRoutes = (routes: Routes, services: Services): void => {
  const run = (command: DashboardCommand) => execute(services, dashboardStream(command.data.projectId), dashboardDecider, command, READ_MODELS);
  const scope = (caller: Caller, projectId: string) => checkProjectScope(caller, projectId, 'dashboards');
  const load = async (projectId: string, dashboardId: string) => {
    const row = await findDashboard(services.db, projectId, dashboardId);
    if (!row) throw new ApiError(404, '[DASHBOARD_NOT_FOUND]', `dashboard ${dashboardId} not found`);
    return row;
  };
  const listBody = async (projectId: string) => (await projectDashboards(services.db, projectId)).map(toDashboardDTO);

  const one = { 200: { description: 'the dashboard', schema: UserDashboardConfigDTO }, ...errorResponses(400, 401, 403, 404, 409) };
  const all = {
    200: { description: "the project's dashboards, in order", schema: Type.Array(UserDashboardConfigDTO) },
    ...errorResponses(400, 401, 403, 404, 409),
  };

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/dashboards',
    tag: TAG,
    operationId: 'getDashboards',
    summary: "The project's dashboards",
    description: `In the project's order (position 0 first). ${rules}`,
    params: DashboardsParams,
    responses: all,
    async handler({ params, caller }) {
      return { body: await listBody(scope(caller, params.projectId)) };
    },
  });

  routes.add<{ projectId: string }, unknown, WriteBody>({
    method: 'post',
    path: '/projects/{projectId}/dashboards',
    tag: TAG,
    operationId: 'createDashboard',
    summary: 'Create a dashboard',
    description: `It goes last in the order. ${rules}`,
    params: DashboardsParams,
    body: UserDashboardConfigWriteDTO,
    bodyRequired: true,
    responses: one,
    async handler({ params, caller, context, body }) {
      const projectId = scope(caller, params.projectId);
      const dashboardId = crypto.randomUUID();
      await run({ type: 'CreateDashboard', data: { projectId, dashboardId, layout: fromDashboardDTO(body) }, metadata: commandMetadata(services, context) });
      return { body: toDashboardDTO(await load(projectId, dashboardId)) };
    },
  });

  routes.add<{ projectId: string }, unknown, Static<typeof DashboardStorageWriteDTO>>({
    method: 'put',
    path: '/projects/{projectId}/dashboards/bulk',
    tag: TAG,
    operationId: 'replaceDashboards',
    summary: "Replace the project's whole dashboard storage",
    description: `The dashboards sent, in the order sent, become the project's only dashboards: one sent with the id of one of the project's dashboards keeps that id (and its created time), one without an id gets a new one, and every dashboard not sent is deleted; any other id gives 400 [VALIDATION_FAILED] (dashboards[i].id) and changes nothing. An empty list deletes them all. One event, so it happens whole or not at all. ${rules}`,
    params: DashboardsParams,
    body: DashboardStorageWriteDTO,
    bodyRequired: true,
    responses: { 200: { description: 'the storage now', schema: DashboardStorageDTO }, ...errorResponses(400, 401, 403, 404, 409) },
    async handler({ params, caller, context, body }) {
      const projectId = scope(caller, params.projectId);
      const dashboards = body.dashboards.map((d) => ({ dashboardId: d.id ?? crypto.randomUUID(), named: d.id !== undefined, layout: fromDashboardDTO(d) }));
      await run({ type: 'ReplaceDashboards', data: { projectId, dashboards }, metadata: commandMetadata(services, context) });
      return { body: { dashboards: await listBody(projectId) } };
    },
  });

  routes.add<{ projectId: string }, unknown, Static<typeof ReorderDashboardsRequestDTO>>({
    method: 'put',
    path: '/projects/{projectId}/dashboards/reorder',
    tag: TAG,
    operationId: 'reorderDashboards',
    summary: 'Put the dashboards in a new order',
    description:
      'dashboardIds names every dashboard of the project exactly once, in the new order (400 [VALIDATION_FAILED] otherwise, changing nothing). Needs a project-level key of this project.',
    params: DashboardsParams,
    body: ReorderDashboardsRequestDTO,
    bodyRequired: true,
    responses: all,
    async handler({ params, caller, context, body }) {
      const projectId = scope(caller, params.projectId);
      await run({ type: 'ReorderDashboards', data: { projectId, order: body.dashboardIds }, metadata: commandMetadata(services, context) });
      return { body: await listBody(projectId) };
    },
  });

  routes.add<Params, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/dashboards/{dashboardId}',
    tag: TAG,
    operationId: 'getDashboard',
    summary: 'One dashboard',
    params: DashboardParams,
    responses: one,
    async handler({ params, caller }) {
      return { body: toDashboardDTO(await load(scope(caller, params.projectId), params.dashboardId)) };
    },
  });

  routes.add<Params, unknown, WriteBody>({
    method: 'put',
    path: '/projects/{projectId}/dashboards/{dashboardId}',
    tag: TAG,
    operationId: 'updateDashboard',
    summary: 'Replace a dashboard',
    description: `name and widgets are replaced (widgets absent: none). ${rules}`,
    params: DashboardParams,
    body: UserDashboardConfigWriteDTO,
    bodyRequired: true,
    responses: one,
    async handler({ params, caller, context, body }) {
      const projectId = scope(caller, params.projectId);
      await load(projectId, params.dashboardId);
      await run({
        type: 'ChangeDashboard',
        data: { projectId, dashboardId: params.dashboardId, layout: fromDashboardDTO(body) },
        metadata: commandMetadata(services, context),
      });
      return { body: toDashboardDTO(await load(projectId, params.dashboardId)) };
    },
  });

  routes.add<Params, unknown, Record<string, unknown>>({
    method: 'patch',
    path: '/projects/{projectId}/dashboards/{dashboardId}',
    tag: TAG,
    operationId: 'patchDashboard',
    summary: 'Change a dashboard with a JSON merge patch (RFC 7396)',
    description: `Send application/merge-patch+json (application/json is taken too). The patch applies to the dashboard's name and widgets as GET answers them: a member sent replaces the dashboard's, widgets is replaced whole (merge patches replace arrays), null removes a member (name cannot be removed: 400). The result must be a valid dashboard; the change is then stored as PUT would store it. An endpoint rule of an access policy names PATCH by method PATCH or ALL. ${rules}`,
    params: DashboardParams,
    body: DashboardMergePatchDTO,
    // the patch's nulls are checked after merging, against the write schema
    bodyValidation: Type.Object({}, { additionalProperties: true }),
    bodyRequired: true,
    responses: one,
    async handler({ params, caller, context, body }) {
      const projectId = scope(caller, params.projectId);
      const current = await load(projectId, params.dashboardId);
      const merged = validate<WriteBody>(UserDashboardConfigWriteDTO, mergePatch(writableOf(current), body), 'body');
      await run({
        type: 'ChangeDashboard',
        data: { projectId, dashboardId: params.dashboardId, layout: fromDashboardDTO(merged) },
        metadata: commandMetadata(services, context),
      });
      return { body: toDashboardDTO(await load(projectId, params.dashboardId)) };
    },
  });

  routes.add<Params, unknown, unknown>({
    method: 'delete',
    path: '/projects/{projectId}/dashboards/{dashboardId}',
    tag: TAG,
    operationId: 'deleteDashboard',
    summary: 'Delete a dashboard',
    description: 'The dashboards after it move up one place. Needs a project-level key of this project.',
    params: DashboardParams,
    responses: { 200: { description: 'deleted' }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, context }) {
      const projectId = scope(caller, params.projectId);
      await load(projectId, params.dashboardId);
      await run({ type: 'DeleteDashboard', data: { projectId, dashboardId: params.dashboardId }, metadata: commandMetadata(services, context) });
      return { status: 200 };
    },
  });

  routes.add<Params, unknown, Static<typeof DuplicateDashboardRequestDTO>>({
    method: 'post',
    path: '/projects/{projectId}/dashboards/{dashboardId}/duplicate',
    tag: TAG,
    operationId: 'duplicateDashboard',
    summary: 'Duplicate a dashboard',
    description:
      "A new dashboard with the same widgets (ids and configuration included), named as sent or '<name> (copy)', last in the order; duplicateOf names the original. The body may be left out. Counts against the project's 100 dashboards (409 [DASHBOARD_LIMIT_REACHED]). Needs a project-level key of this project.",
    params: DashboardParams,
    body: DuplicateDashboardRequestDTO,
    responses: one,
    async handler({ params, caller, context, body }) {
      const projectId = scope(caller, params.projectId);
      await load(projectId, params.dashboardId);
      const newDashboardId = crypto.randomUUID();
      await run({
        type: 'DuplicateDashboard',
        data: { projectId, dashboardId: params.dashboardId, newDashboardId, name: body.name ?? null },
        metadata: commandMetadata(services, context),
      });
      return { body: toDashboardDTO(await load(projectId, newDashboardId)) };
    },
  });
};
