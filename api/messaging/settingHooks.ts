// What the messaging features need between the request and the store (api/features/settingHooks.ts
// registers them): a messaging account's bot token sealed (AES-256-GCM) and answered masked; a
// connector's messaging account checked (this project's), its aiTier kept on a PUT (settable on
// creation only), its connectorIndex assigned (the lowest free 1 to 9 among the account's connectors)
// and kept.
import { MESSAGING_ACCOUNT, MESSAGING_CONNECTOR, BOT_TOKEN_MASK, CONNECTOR_INDEX, maskBotToken } from '../../domain/messaging/feature.js';
import type { FeatureScope, FeatureSetting } from '../../domain/feature/events.js';
import type { Services } from '../../app/services.js';
import { ApiError } from '../errors.js';

const invalid = (field: string, problem: string) =>
  new ApiError(400, '[VALIDATION_FAILED]', `body.setting: ${problem}`, [{ field: `body.setting.${field}`, message: problem }]);

export const prepareMessagingAccount = (services: Services, setting: FeatureSetting, previous: FeatureSetting | null): Promise<FeatureSetting> => {
  const given = setting.botToken;
  const stored = typeof previous?.botToken === 'string' && previous.platform === setting.platform ? previous.botToken : null;
  if (setting.platform === 'OFFLINE') return Promise.resolve({ ...setting, botToken: null });
  if (given === null || given === undefined || given === '' || given === BOT_TOKEN_MASK) {
    if (stored === null) return Promise.reject(invalid('botToken', `botToken is required for ${String(setting.platform)}`));
    return Promise.resolve({ ...setting, botToken: stored });
  }
  if (typeof given !== 'string' || /\s/.test(given)) return Promise.reject(invalid('botToken', 'botToken must be a token without spaces'));
  return Promise.resolve({ ...setting, botToken: services.cipher.encrypt(given) });
};

export const prepareMessagingConnector = async (
  services: Services,
  setting: FeatureSetting,
  previous: FeatureSetting | null,
  where: { readonly projectId: string; readonly scope: FeatureScope } | null,
): Promise<FeatureSetting> => {
  const account = await services.db
    .selectFrom('features')
    .select(['id', 'scope_kind', 'account_id'])
    .where('id', '=', String(setting.messagingAccountId))
    .where('type', '=', MESSAGING_ACCOUNT)
    .where('project_id', '=', where?.projectId ?? '')
    .executeTakeFirst();
  const accountId = where?.scope.kind === 'account' ? where.scope.accountId : null;
  if (!account || (account.scope_kind === 'account' && account.account_id !== accountId)) {
    throw new ApiError(
      400,
      '[MESSAGING_ACCOUNT_NOT_FOUND]',
      `setting.messagingAccountId: no FeatureMessagingAccountDTO ${String(setting.messagingAccountId)} on this account or its project`,
    );
  }
  if ((setting.volumeMode === 'RISK_PERCENT' || setting.volumeMode === 'RISK_AMOUNT') && accountId !== null) {
    // The spec: both need the account-level FeatureRiskPerTradeDTO (a signal is refused, and logged, if it is removed later).
    const risk = await services.db
      .selectFrom('features')
      .select('id')
      .where('type', '=', 'FeatureRiskPerTradeDTO')
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!risk) throw invalid('volumeMode', `volumeMode ${String(setting.volumeMode)} needs the account's FeatureRiskPerTradeDTO: add it first`);
  }
  if (previous) return { ...setting, aiTier: previous.aiTier, connectorIndex: previous.connectorIndex };
  const rows = await services.db
    .selectFrom('features')
    .select(['setting'])
    .where('type', '=', MESSAGING_CONNECTOR)
    .where('account_id', '=', accountId)
    .execute();
  const taken = new Set(rows.map((r) => (r.setting as FeatureSetting).connectorIndex));
  let index: number | null = null;
  for (let i = CONNECTOR_INDEX.min; i <= CONNECTOR_INDEX.max && index === null; i++) if (!taken.has(i)) index = i;
  if (index === null)
    throw new ApiError(409, '[CONNECTOR_LIMIT_REACHED]', `this account has ${CONNECTOR_INDEX.max} messaging connectors, the most (connectorIndex 1 to 9)`);
  return { ...setting, connectorIndex: index };
};

export const presentMessagingAccount = maskBotToken;
