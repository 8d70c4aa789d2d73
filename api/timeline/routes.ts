// GET /accounts/{accountId}/timeline and GET /accounts/{accountId}/stateAt (issue 20, ours): the
// auditor's view of an account's history, replayed from the event store by app/timeline.ts. Same key
// rules as every /accounts/{accountId} route: an account-level key sees only its account, another
// project's account is 404; a key whose access policy hides fields is refused (raw event data would
// show them).
import type { Static } from '@sinclair/typebox';
import { positionFromString } from '../../store/port.js';
import { accountStateAt, accountTimeline } from '../../app/timeline.js';
import type { Services } from '../../app/services.js';
import { AccountIdParams } from '../accounts/schemas.js';
import { hidesFields } from '../apiKeys/enforcement.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import { accountNotFound, checkAccountScope } from '../shared/accounts.js';
import { errorResponses } from '../shared/schemas.js';
import { AccountStateAtDTO, StateAtQuery, TimelineDTO, TimelineQuery } from './schemas.js';

const TAG = 'Timeline';
const DEFAULT_LIMIT = 1000;
const WHOSE =
  "An account's events are those of its streams account-<id> (settings, status), positions-<id> (what its venue reported and the trading requests), protection-<id> (risk limits and profit targets at work), and copier-<id> and copies-<id> of every copier copying into it, deleted ones too (what the engine did or skipped, and why). Instants are the times the event store recorded the events. A deleted account keeps its timeline. An account-level key reaches only its own account; a key whose access policy hides fields gets 403 [FORBIDDEN_FIELD_ACCESS] (event data shows every member).";

const refuseHiddenFields = (caller: Caller): void => {
  if (hidesFields(caller.accessPolicy))
    throw new ApiError(403, '[FORBIDDEN_FIELD_ACCESS]', "this key's access policy hides fields; the timeline shows events whole");
};

export const timelineRoutes = (routes: Routes, services: Services): void => {
  routes.add<{ accountId: string }, Static<typeof TimelineQuery>, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/timeline',
    tag: TAG,
    operationId: 'getAccountTimeline',
    summary: "The account's events in order, who caused each, and the account after it (ours)",
    description: `For auditors: every event of the account, oldest first, in the event store's order, each with its cause (API_KEY with the key id, client address, method and path of the request; ENGINE; VENUE; PROTECTION; SCHEDULE; SYSTEM), its data (secrets masked) and a summary of the account after it. until, offset and limit page through it. Computed by replaying the events, not from a read model. ${WHOSE}`,
    params: AccountIdParams,
    query: TimelineQuery,
    responses: { 200: { description: 'the timeline', schema: TimelineDTO }, ...errorResponses(400, 401, 404) },
    async handler({ params, query, caller }) {
      checkAccountScope(caller, params.accountId);
      refuseHiddenFields(caller);
      const page = await accountTimeline(services, caller.projectId, params.accountId, {
        until: query.until ? new Date(query.until) : null,
        offset: query.offset ?? 0,
        limit: query.limit ?? DEFAULT_LIMIT,
      });
      if (!page) throw accountNotFound(params.accountId);
      return { body: { accountId: params.accountId, total: page.total, entries: page.entries } };
    },
  });

  routes.add<{ accountId: string }, Static<typeof StateAtQuery>, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/stateAt',
    tag: TAG,
    operationId: 'getAccountStateAt',
    summary: 'The account as it was at an instant: settings, status, positions, pending orders, balance, copiers (ours)',
    description: `Replays the account's events recorded at or before instant, to the millisecond, or up to and including the event at position (a timeline entry's position: exact where several events share a millisecond, as a trading request and its fill can) (no snapshot table): its settings and status (account.exists false before it was created), its open positions and pending orders and its balance as its venue reported them, whether its session was connected, and the copiers copying into it with their settings. ${WHOSE}`,
    params: AccountIdParams,
    query: StateAtQuery,
    responses: { 200: { description: 'the account at the instant', schema: AccountStateAtDTO }, ...errorResponses(400, 401, 404) },
    async handler({ params, query, caller }) {
      checkAccountScope(caller, params.accountId);
      refuseHiddenFields(caller);
      if ((query.instant === undefined) === (query.position === undefined))
        throw new ApiError(400, '[VALIDATION_FAILED]', 'give either instant or position', [{ field: 'instant', message: 'give either instant or position' }]);
      const end = query.position !== undefined ? { position: positionFromString(query.position) } : { instant: new Date(query.instant!) };
      const state = await accountStateAt(services, caller.projectId, params.accountId, end);
      if (!state) throw accountNotFound(params.accountId);
      return { body: { accountId: params.accountId, ...state } };
    },
  });
};
