// The settings of a new account from its request body (AccountCreateDTO): what POST /accounts hands to the
// account creation use case (app/commands/createAccount.ts).
import type { Static } from '@sinclair/typebox';
import type { AccountSettings } from '../../domain/account/events.js';
import type { Services } from '../../app/services.js';
import type { AccountCreateDTO } from './schemas.js';

export type CreateBody = Static<typeof AccountCreateDTO>;

/** The settings of a new account from the request body; the password only as ciphertext from here on. */
export const settingsOf = (services: Services, body: CreateBody): AccountSettings => ({
  loginServer: body.loginServer,
  loginAccountNumber: body.loginAccountNumber,
  passwordCiphertext: services.cipher.encrypt(body.loginAccountPassword),
  alias: body.alias ?? null,
  accountTypeId: body.accountTypeId,
  regionId: body.regionId,
  propFirm: body.propFirm ?? false,
  tradingDisabled: body.tradingDisabled ?? false,
  nativeMode: body.nativeMode ?? false,
  closeUnmanagedPositions: body.closeUnmanagedPositions ?? false,
  dedicatedIp: body.dedicatedIp ?? null,
  myHomeIp: body.myHomeIp ?? null,
  proxy: body.proxy ? { username: null, ...body.proxy } : null,
});
