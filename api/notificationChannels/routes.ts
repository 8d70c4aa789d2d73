// GET /projects/{projectId}/notificationChannels (spec "Economic calendar, news and alerts"): the channels
// a NotificationTargetDTO may name, with their recipients (NotificationChannelDTO, NotificationRecipientDTO:
// members ours). app/notifications.ts is the NotificationPort behind them.
import { type Static, Type } from '@sinclair/typebox';
import { notificationChannels } from '../../app/notifications.js';
import type { Services } from '../../app/services.js';
import type { Routes } from '../route.js';
import { ChannelsQuery, NotificationChannelDTO, ProjectParams } from '../alerts/schemas.js';
import { loadAccount } from '../shared/accounts.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses } from '../shared/schemas.js';

export const notificationChannelRoutes = (routes: Routes, services: Services): void => {
  routes.add<{ projectId: string }, Static<typeof ChannelsQuery>, unknown>({
    method: 'get',
    path: '/projects/{projectId}/notificationChannels',
    tag: 'Calendar alerts',
    operationId: 'listNotificationChannels',
    summary: 'The channels notifications can go to',
    description:
      "NotificationChannelDTO (ours): each channel a NotificationTargetDTO may name in notificationTargets (calendar alerts and rules): its featureId, kind, name, the recipients a target may narrow it to (recipientRequired: a target must name one) and its deliveries by status (finished ones kept 7 days; a webhook's one by one at GET .../features/{featureId}/deliveries). WEBHOOK: every FeatureWebhookDTO of the project and of its accounts (with accountId: the project's and that account's only; an account of another project: 404 [ACCOUNT_NOT_FOUND]); recipient null. EMAIL: the service's SMTP server (only when the operator set SMTP_URL), one channel per project; recipient an e-mail address (recipients lists the addresses its alerts and rules use). TELEGRAM, DISCORD, OFFLINE: every FeatureMessagingNotificationDTO (kind by its bot's platform) and FeatureTelegramNotificationDTO (TELEGRAM) of the project and of its accounts; recipients: its chats (key chatId, or chatId/forumTopicId for a topic) or usernames; recipient null sends to all of them. Chat deliveries: 6 attempts (NOTIFICATION_CHAT_RETRY_MS), at most one message a second per chat. Needs a project-level key of this project.",
    params: ProjectParams,
    query: ChannelsQuery,
    responses: { 200: { description: 'the channels', schema: Type.Array(NotificationChannelDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, query, caller }) {
      checkProjectScope(caller, params.projectId, 'notification channels');
      const accountId = query.accountId ? (await loadAccount(services, caller, query.accountId)).id : undefined;
      return { body: await notificationChannels(services, params.projectId, accountId) };
    },
  });
};
