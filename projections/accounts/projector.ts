// The accounts read model: one row per account, the AccountDTO members the REST queries need.
import { sql } from 'kysely';
import { AccountStatus } from '../../domain/account/enums.js';
import { accountEventTypes, type AccountEvent, type AccountSettings } from '../../domain/account/events.js';
import type { PositionsEvent } from '../../domain/positions/events.js';
import type { Projection } from '../projection.js';
import type { AccountsTable } from '../schema.js';

const columnsOf = (s: Partial<AccountSettings>): Partial<Record<keyof AccountsTable, unknown>> => {
  const c: Partial<Record<keyof AccountsTable, unknown>> = {};
  if (s.alias !== undefined) c.alias = s.alias;
  if (s.loginServer !== undefined) c.login_server = s.loginServer;
  if (s.loginAccountNumber !== undefined) c.login_account_number = s.loginAccountNumber;
  if (s.accountTypeId !== undefined) c.account_type_id = s.accountTypeId;
  if (s.regionId !== undefined) c.region_id = s.regionId;
  if (s.propFirm !== undefined) c.prop_firm = s.propFirm;
  if (s.tradingDisabled !== undefined) c.trading_disabled = s.tradingDisabled;
  if (s.nativeMode !== undefined) c.native_mode = s.nativeMode;
  if (s.closeUnmanagedPositions !== undefined) c.close_unmanaged_positions = s.closeUnmanagedPositions;
  if (s.dedicatedIp !== undefined) c.dedicated_ip = s.dedicatedIp === null ? null : JSON.stringify(s.dedicatedIp);
  if (s.myHomeIp !== undefined) c.my_home_ip = s.myHomeIp === null ? null : JSON.stringify(s.myHomeIp);
  if (s.proxy !== undefined) c.proxy = s.proxy === null ? null : JSON.stringify(s.proxy);
  if (s.labels !== undefined) c.labels = JSON.stringify(s.labels);
  if (s.skipCredentialCheck !== undefined) c.skip_credential_check = s.skipCredentialCheck;
  if (s.ctraderClientId !== undefined) c.ctrader_client_id = s.ctraderClientId;
  if (s.ctraderClientSecretCiphertext !== undefined) c.ctrader_client_secret_set = s.ctraderClientSecretCiphertext !== null;
  return c;
};

export const accountsProjection: Projection = {
  name: 'accounts',
  // v3: the currency column, from the positions stream's VenueConnected.
  version: 3,
  handles: [...accountEventTypes, 'VenueConnected'],
  tables: ['accounts'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'accounts')} (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      alias text,
      login_server text NOT NULL,
      login_account_number text NOT NULL,
      account_type_id int NOT NULL,
      region_id int NOT NULL,
      account_status_id int NOT NULL,
      prop_firm boolean NOT NULL,
      trading_disabled boolean NOT NULL,
      native_mode boolean NOT NULL,
      close_unmanaged_positions boolean NOT NULL,
      dedicated_ip jsonb,
      my_home_ip jsonb,
      proxy jsonb,
      labels jsonb NOT NULL DEFAULT '[]',
      skip_credential_check boolean NOT NULL DEFAULT false,
      ctrader_client_id text,
      ctrader_client_secret_set boolean NOT NULL DEFAULT false,
      currency text,
      created timestamptz NOT NULL,
      deleted timestamptz,
      updated timestamptz NOT NULL,
      last_reconnect_at timestamptz,
      revision bigint NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'accounts')} (project_id, created, id)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as AccountEvent | Extract<PositionsEvent, { type: 'VenueConnected' }>;
    if (event.type === 'VenueConnected') {
      // A fact of the account's positions stream: neither its revision nor its update time.
      const { currency } = event.data;
      if (currency) await db.updateTable('accounts').set({ currency }).where('id', '=', event.data.accountId).execute();
      return;
    }
    const revision = recorded.revision.toString();
    const { accountId, at } = event.data;
    const update = (values: Partial<Record<keyof AccountsTable, unknown>>) =>
      db
        .updateTable('accounts')
        .set({ ...values, updated: at, revision } as never)
        .where('id', '=', accountId)
        .execute();
    switch (event.type) {
      case 'AccountCreated':
        await db
          .insertInto('accounts')
          .values({
            ...(columnsOf(event.data.settings) as object),
            id: accountId,
            project_id: event.data.projectId,
            account_status_id: AccountStatus.New,
            created: at,
            updated: at,
            revision,
          } as never)
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      case 'AccountUpdated':
        await update(columnsOf(event.data.changes));
        return;
      case 'AccountStarted':
        await update({ account_status_id: AccountStatus.Active });
        return;
      case 'AccountStopped':
        await update({ account_status_id: AccountStatus.Stopped });
        return;
      case 'AccountReconnectRequested':
        await update({ last_reconnect_at: at });
        return;
      case 'AccountDeleted':
        await update({ account_status_id: AccountStatus.Deleted, deleted: at });
        return;
    }
  },
};
