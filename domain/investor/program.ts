// Who sees what of the investor program (spec: /investorProgram/traders..., "approved traders, one
// trader, history, performance analytics"; the spec leaves the rules open, these are ours):
// - the reader must hold the investor role: a project-level key of a project with an investor account
//   (FeatureInvestorDTO on an account not deleted), or the account-level key of an investor account;
//   anyone else gets 403 [INVESTOR_ROLE_REQUIRED];
// - an investor sees every approved trader of every project (the one deliberate crossing of projects
//   here), public data only: the trader id (its feature's id, never the account id), the name and
//   description it chose, its account type, currency, score and performance metrics; closed positions
//   only while the trader keeps makeHistoryPublic, and without their comment, magic number and client
//   order id; never the account, its login, alias or project, its open positions or its keys.
import { DomainError, notFound } from '../shared/errors.js';
import type { TraderSettings } from './features.js';

export const checkInvestorRole = (investorAccountIds: readonly string[]): void => {
  if (investorAccountIds.length === 0) {
    throw new DomainError(
      'forbidden',
      '[INVESTOR_ROLE_REQUIRED]',
      'the investor program is read by investors: a project with an account carrying FeatureInvestorDTO, or that account itself',
    );
  }
};

export const traderNotFound = (traderId: string): DomainError => notFound('[TRADER_NOT_FOUND]', `trader ${traderId} not found`);

export const checkHistoryPublic = (traderId: string, settings: TraderSettings): void => {
  if (!settings.makeHistoryPublic) throw new DomainError('forbidden', '[TRADER_HISTORY_NOT_PUBLIC]', `trader ${traderId} keeps its history private`);
};

/** The name investors see: the one the trader chose, else "Trader" and the start of its id. */
export const traderPublicName = (traderId: string, settings: TraderSettings): string => settings.name || `Trader ${traderId.slice(0, 8)}`;
