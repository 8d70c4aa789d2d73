// AccountDTO and AsyncAccountCreationResponseDTO from the read models, and an account's settings from
// AccountCreateDTO and AccountUpdateDTO (both AccountDTO on the wire).
import type { Static } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { AccountChanges } from '../../domain/account/commands.js';
import { type Account, accountDecider } from '../../domain/account/decider.js';
import { accountStream } from '../../domain/account/events.js';
import { aggregateStream } from '../../store/commandHandler.js';
import { accountStatuses, accountTypeOf, regions } from '../../domain/account/enums.js';
import type { AccountSettings, DedicatedIp, MyHomeIp } from '../../domain/account/events.js';
import type { AsyncRequestRow } from '../../app/accounts/asyncCreation.js';
import type { Services } from '../../app/services.js';
import type { AccountFilter } from '../../projections/accounts/queries.js';
import { keyWithLastUseById } from '../../projections/apiKeys/queries.js';
import { accountsAmongWithState, type AccountWithState, listAccountsWithState } from '../../projections/accounts/withState.js';
import type { AccountsTable } from '../../projections/schema.js';
import type { KeyCheck, KeyRow } from '../auth.js';
import type { LaneTurn } from '../availability.js';
import { enumObject } from '../shared/enumObjects.js';
import { appliedTemplateMarkers } from '../templates/markers.js';
import { type AccountAnswer, accountAnswersOf } from './answers.js';
import { accountStateOf, accountsWithStateAmong, connectedAmong, noState } from './information.js';
import { type AccountCreateDTO, SECRET_MASK } from './schemas.js';

export type CreateBody = Static<typeof AccountCreateDTO>;
export type UpdateBody = Partial<Record<string, unknown>> & Partial<CreateBody>;

const iso = (value: Date | string): string => new Date(value).toISOString();
const isoOrNull = (value: Date | string | null): string | null => (value ? iso(value) : null);

const statusName = (id: number): string => accountStatuses.find((s) => s.id === id)?.name ?? String(id);

/** AccountDTO from the accounts read model with the account's state. Secrets never leave the service: answers carry the mask. */
const toAccountDTO = (services: Services, row: AccountWithState) => {
  const dedicatedIp = row.dedicated_ip as DedicatedIp | null;
  const myHomeIp = row.my_home_ip as MyHomeIp | null;
  return {
    id: row.id,
    created: iso(row.created),
    loginServer: row.login_server,
    loginAccountNumber: row.login_account_number,
    loginAccountPassword: SECRET_MASK,
    ...(row.alias !== null ? { alias: row.alias } : {}),
    type: enumObject(row.account_type_id, accountTypeOf(row.account_type_id)?.name ?? String(row.account_type_id)),
    region: enumObject(row.region_id, regions.find((r) => r.id === row.region_id)?.name ?? String(row.region_id)),
    status: enumObject(row.account_status_id, statusName(row.account_status_id)),
    // A real venue's link state with its last error (or the terminal it waits for); else the status in words.
    statusMessage: services.connections.statusMessage(row.id) ?? statusName(row.account_status_id),
    ...(row.deleted ? { deleted: iso(row.deleted) } : {}),
    labels: row.labels,
    skipCredentialCheck: row.skip_credential_check,
    propFirm: row.prop_firm,
    tradingDisabled: row.trading_disabled,
    hasActiveCopiers: row.has_active_copiers,
    hasMonitorOnlyCopiers: row.has_monitor_only_copiers,
    hasDisabledCopiers: row.has_disabled_copiers,
    nativeMode: row.native_mode,
    closeUnmanagedPositions: row.close_unmanaged_positions,
    ...(dedicatedIp ? { dedicatedIp: { dedicatedProxyServerId: dedicatedIp.dedicatedProxyServerId } } : {}),
    ...(myHomeIp
      ? {
          myHomeIp: {
            host: myHomeIp.host,
            ...(myHomeIp.httpPort !== null ? { httpPort: myHomeIp.httpPort } : {}),
            ...(myHomeIp.socksPort !== null ? { socksPort: myHomeIp.socksPort } : {}),
            username: myHomeIp.username,
            password: SECRET_MASK,
          },
        }
      : {}),
    proxy: (row.proxy ?? null) as { host: string; port: number; username?: string | null } | null,
    ...(row.ctrader_client_id !== null ? { ctraderClientId: row.ctrader_client_id } : {}),
    ...(row.ctrader_client_secret_set ? { ctraderClientSecret: SECRET_MASK } : {}),
    accountInformation: accountStateOf(services, row),
    ...appliedTemplateMarkers(row.applied_template),
  };
};

/** The caller's key, read in the same statement when the route completes its check (api/auth.ts). */
const alongsideOf = (services: Services, keyCheck: KeyCheck | null | undefined) =>
  keyCheck ? keyWithLastUseById(services.db, keyCheck.assumed.apiKeyId) : undefined;

/**
 * AccountDTOs of the project's accounts among `ids` (deleted ones too; unknown ids are left out), in the
 * order given, with the copier flags of each account (its own copiers, as the slave) and its state
 * (accountInformation): one query for one account as for the list of 1,000.
 */
export const accountDTOsAmong = async (services: Services, projectId: string, ids: readonly string[]) => {
  const read = await accountsWithStateAmong(services, projectId, ids);
  const rows = new Map(read.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = rows.get(id);
    return row ? [toAccountDTO(services, row)] : [];
  });
};

/**
 * The AccountDTO of an account as its own events make it (the aggregate's state), for the answer of its
 * creation while the read models have not reached the write yet (READ_MODEL_WAIT_MS passed under load):
 * the row the accounts read model will hold, and the state of an account nothing else knows of yet.
 */
const accountDTOOfState = (services: Services, account: Account) => {
  const s = account.settings!;
  return toAccountDTO(services, {
    id: account.id,
    project_id: account.projectId,
    alias: s.alias,
    login_server: s.loginServer,
    login_account_number: s.loginAccountNumber,
    account_type_id: s.accountTypeId,
    region_id: s.regionId,
    account_status_id: account.status,
    prop_firm: s.propFirm,
    trading_disabled: s.tradingDisabled,
    native_mode: s.nativeMode,
    close_unmanaged_positions: s.closeUnmanagedPositions,
    dedicated_ip: s.dedicatedIp,
    my_home_ip: s.myHomeIp,
    proxy: s.proxy,
    labels: [...s.labels],
    skip_credential_check: s.skipCredentialCheck,
    ctrader_client_id: s.ctraderClientId,
    ctrader_client_secret_set: s.ctraderClientSecretCiphertext !== null,
    currency: null,
    created: new Date(account.created!),
    deleted: null,
    updated: new Date(account.created!),
    last_reconnect_at: account.lastReconnectAt === null ? null : new Date(account.lastReconnectAt),
    revision: '0',
    ...noState,
  });
};

/**
 * The AccountDTO of an account just created (POST /accounts, its asynchronous outcome): from the read
 * models, or, while they lag behind its write (READ_MODEL_WAIT_MS passed under load), from its events.
 * Never none for an account that exists: told it does not, a client would create it again. Undefined:
 * no such account in the project.
 */
export const createdAccountDTO = async (services: Services, projectId: string, accountId: string) => {
  const [read] = await accountDTOsAmong(services, projectId, [accountId]);
  if (read) return read;
  const { state } = await aggregateStream(services.store, accountStream(accountId), accountDecider.evolve, accountDecider.initialState);
  return state.exists && state.projectId === projectId ? accountDTOOfState(services, state) : undefined;
};

/** AccountDTOs of rows already read (the accounts read model), in their order: their state in one more query. */
export const toAccountDTOs = (services: Services, projectId: string, rows: readonly Selectable<AccountsTable>[]) =>
  accountDTOsAmong(
    services,
    projectId,
    rows.map((r) => r.id),
  );

type Stamped = AccountWithState & { readonly alongside?: unknown; readonly stamp?: string };

/**
 * The answer of a GET of accounts (api/accounts/answers.ts): the one kept under `key` when the read
 * models' stamp, read with the caller's key in one statement, is still the one it was made with;
 * otherwise `read` reads the rows (with the key and the stamp, in one statement) and it is made again.
 * Null: no account (an unknown id); the key is checked all the same.
 */
const answerOf = async (
  services: Services,
  key: string,
  keyCheck: KeyCheck | null,
  read: (alongside: ReturnType<typeof alongsideOf>) => Promise<Stamped[]>,
  shape: (dtos: ReturnType<typeof toAccountDTO>[]) => unknown,
  list: boolean,
  lane: LaneTurn | null,
): Promise<AccountAnswer | null> => {
  const answers = accountAnswersOf(services);
  const kept = answers.candidate(services, key);
  if (kept) {
    // The stamp's statement is shared and holds no connection of this request: its lane slot waits outside.
    lane?.park();
    const now = await answers.stampNow(services, keyCheck?.assumed.apiKeyId ?? null);
    if (now.stamp === kept.stamp) {
      await keyCheck?.complete(now.key as KeyRow | null);
      return kept;
    }
    await lane?.resume();
  }
  const rows = await read(alongsideOf(services, keyCheck));
  await keyCheck?.complete(rows[0]?.alongside as KeyRow | undefined);
  if (!list && rows.length === 0) return null;
  const body = shape(rows.map((r) => toAccountDTO(services, r)));
  const stamp = rows[0]?.stamp;
  // An empty list is not kept: its statement has no row to carry the stamp.
  return stamp === undefined ? { body, json: { bytes: Buffer.from(JSON.stringify(body)) } } : answers.keep(services, key, { stamp, rows, body, list });
};

/** GET /accounts/{accountId}: the AccountDTO of one of the project's accounts (deleted too), or null. */
export const accountAnswer = (services: Services, projectId: string, accountId: string, keyCheck: KeyCheck | null, lane: LaneTurn | null = null) =>
  answerOf(
    services,
    `${projectId}/${accountId}`,
    keyCheck,
    (alongside) => accountsAmongWithState(services.db, projectId, [accountId], services.clock(), connectedAmong(services, [accountId]), alongside, true),
    (dtos) => dtos[0],
    false,
    lane,
  );

/** GET /accounts: the AccountDTOs of the project's accounts the filter selects. */
export const accountListAnswer = async (
  services: Services,
  projectId: string,
  filter: AccountFilter,
  keyCheck: KeyCheck | null,
  lane: LaneTurn | null = null,
) =>
  (await answerOf(
    services,
    `${projectId}?${JSON.stringify(filter)}`,
    keyCheck,
    (alongside) => listAccountsWithState(services.db, projectId, filter, services.clock(), connectedAmong(services), alongside, true),
    (dtos) => dtos,
    true,
    lane,
  ))!;

/** AsyncAccountCreationResponseDTO: the account only once COMPLETED (as it is now), the error only when FAILED. */
export const toAsyncCreationDTO = async (services: Services, row: AsyncRequestRow) => {
  let account: unknown;
  if (row.status === 'COMPLETED') account = await createdAccountDTO(services, row.project_id, row.account_id);
  return {
    requestId: row.request_id,
    status: row.status,
    ...(account ? { account } : {}),
    ...(row.status === 'FAILED' && row.error ? { error: row.error } : {}),
    created: isoOrNull(row.created)!,
    startedAt: isoOrNull(row.started_at),
    completedAt: isoOrNull(row.completed_at),
  };
};

/** A secret as sent: "" or the mask keeps the stored one (undefined), null removes it, anything else is new. */
const secret = (services: Services, value: string | null | undefined): string | null | undefined => {
  if (value === undefined || value === '' || value === SECRET_MASK) return undefined;
  return value === null ? null : services.cipher.encrypt(value);
};

type MyHomeIpBody = NonNullable<CreateBody['myHomeIp']>;
const myHomeIpOf = (services: Services, body: MyHomeIpBody) => ({
  host: body.host,
  httpPort: body.httpPort ?? null,
  socksPort: body.socksPort ?? null,
  username: body.username,
  passwordCiphertext: secret(services, body.password) ?? null,
});

/** The settings of a new account (AccountDTO); secrets only as ciphertext from here on. */
export const fromAccountCreateDTO = (services: Services, body: CreateBody): AccountSettings => ({
  loginServer: body.loginServer,
  loginAccountNumber: body.loginAccountNumber ?? '',
  passwordCiphertext: services.cipher.encrypt(body.loginAccountPassword),
  alias: body.alias ?? null,
  accountTypeId: body.type.id,
  regionId: body.region.id,
  propFirm: body.propFirm ?? false,
  tradingDisabled: body.tradingDisabled ?? false,
  nativeMode: body.nativeMode ?? false,
  closeUnmanagedPositions: body.closeUnmanagedPositions ?? false,
  dedicatedIp: body.dedicatedIp ? { dedicatedProxyServerId: body.dedicatedIp.dedicatedProxyServerId } : null,
  // A new home proxy keeps even an empty password: there is none stored to keep instead.
  myHomeIp: body.myHomeIp ? { ...myHomeIpOf(services, body.myHomeIp), passwordCiphertext: services.cipher.encrypt(body.myHomeIp.password) } : null,
  proxy: body.proxy ? { username: null, ...body.proxy } : null,
  labels: body.labels ?? [],
  skipCredentialCheck: body.skipCredentialCheck ?? false,
  ctraderClientId: body.ctraderClientId ?? null,
  ctraderClientSecretCiphertext: secret(services, body.ctraderClientSecret) ?? null,
});

const UPDATABLE = [
  'loginServer',
  'loginAccountNumber',
  'alias',
  'propFirm',
  'tradingDisabled',
  'nativeMode',
  'closeUnmanagedPositions',
  'skipCredentialCheck',
  'ctraderClientId',
] as const;

/** The changes an AccountDTO update asks for: the members it sends; new secrets only as ciphertext. */
export const fromAccountUpdateDTO = (services: Services, body: UpdateBody): AccountChanges => {
  const changes: Record<string, unknown> = {};
  for (const key of UPDATABLE) if (body[key] !== undefined) changes[key] = body[key];
  if (body.type !== undefined) changes.accountTypeId = body.type.id;
  if (body.region !== undefined) changes.regionId = body.region.id;
  if (body.labels !== undefined && body.labels !== null) changes.labels = body.labels;
  if (body.dedicatedIp !== undefined) changes.dedicatedIp = body.dedicatedIp && { dedicatedProxyServerId: body.dedicatedIp.dedicatedProxyServerId };
  if (body.myHomeIp !== undefined) changes.myHomeIp = body.myHomeIp && myHomeIpOf(services, body.myHomeIp);
  if (body.proxy !== undefined) changes.proxy = body.proxy === null ? null : { username: null, ...body.proxy };
  const password = secret(services, body.loginAccountPassword);
  if (password) changes.passwordCiphertext = password;
  const clientSecret = secret(services, body.ctraderClientSecret);
  if (clientSecret !== undefined) changes.ctraderClientSecretCiphertext = clientSecret;
  return changes as AccountChanges;
};
