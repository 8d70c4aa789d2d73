// What the webhook dispatcher keeps of an account (stream `account-<id>`): its project, which decides
// the project webhooks that see its events, and the metadata includeAccountMetadata delivers. Never
// the password.
import type { AccountEvent } from '../../domain/account/events.js';
import type { AccountMetadata } from '../../domain/webhook/payload.js';
import type { RecordedEvent } from '../../store/port.js';

export const ACCOUNT_STREAM_PREFIX_FOR_WEBHOOKS = 'account-';

export type AccountFacts =
  | { readonly kind: 'created'; readonly metadata: AccountMetadata }
  | { readonly kind: 'updated'; readonly accountId: string; readonly changes: Partial<AccountMetadata> };

export const accountFactsOf = (recorded: RecordedEvent): AccountFacts | null => {
  if (!recorded.streamId.startsWith(ACCOUNT_STREAM_PREFIX_FOR_WEBHOOKS)) return null;
  const event = recorded as unknown as AccountEvent;
  switch (event.type) {
    case 'AccountCreated': {
      const { accountId, projectId, settings } = event.data;
      return {
        kind: 'created',
        metadata: {
          accountId,
          projectId,
          alias: settings.alias,
          loginServer: settings.loginServer,
          loginAccountNumber: settings.loginAccountNumber,
          accountTypeId: settings.accountTypeId,
          regionId: settings.regionId,
        },
      };
    }
    case 'AccountUpdated': {
      const { changes } = event.data;
      const picked: Partial<AccountMetadata> = {
        ...(changes.alias !== undefined ? { alias: changes.alias } : {}),
        ...(changes.loginServer !== undefined ? { loginServer: changes.loginServer } : {}),
        ...(changes.loginAccountNumber !== undefined ? { loginAccountNumber: changes.loginAccountNumber } : {}),
        ...(changes.accountTypeId !== undefined ? { accountTypeId: changes.accountTypeId } : {}),
        ...(changes.regionId !== undefined ? { regionId: changes.regionId } : {}),
      };
      return Object.keys(picked).length > 0 ? { kind: 'updated', accountId: event.data.accountId, changes: picked } : null;
    }
    default:
      return null;
  }
};
