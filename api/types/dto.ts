// AccountTypeDTO, RegionDTO and AccountStatusDTO from the domain's catalogues, member by member, so a
// member the domain adds does not reach the wire unannounced.
import type { AccountStatusId, AccountType, Region } from '../../domain/account/enums.js';

export const toAccountTypeDTO = (t: AccountType) => ({
  id: t.id,
  name: t.name,
  supportsPendingExpiry: t.supportsPendingExpiry,
  supportsRelativeTpSl: t.supportsRelativeTpSl,
});

export const toRegionDTO = (r: Region) => ({ id: r.id, name: r.name });

export const toAccountStatusDTO = (s: { readonly id: AccountStatusId; readonly name: string }) => ({ id: s.id, name: s.name });

/** Any other enumeration value (CurrencyTypeDTO, ProxyRegionDTO, NotificationCategoryTypeDTO). */
export const toEnumDTO = (e: { readonly id: number; readonly name: string }) => ({ id: e.id, name: e.name });
