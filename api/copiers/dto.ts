// CopierDTO from the copiers read model, and a copier's settings from a request.
import type { Selectable } from 'kysely';
import { type CopierSettings, defaultCopierSettings } from '../../domain/copier/settings.js';
import type { CopiersTable } from '../../projections/schema.js';

export type CopierRow = Selectable<CopiersTable> & { from_account_alias: string | null };

const settingKeys = Object.keys(defaultCopierSettings) as (keyof CopierSettings)[];

/** CopierDTO: the copier's settings over the defaults, so a member added later reads its default. */
export const toCopierDTO = (row: CopierRow) => ({
  id: row.id,
  fromAccountId: row.from_account_id,
  fromAccountAlias: row.from_account_alias,
  toAccountId: row.to_account_id,
  created: new Date(row.created).toISOString(),
  ...defaultCopierSettings,
  ...(row.settings as CopierSettings),
});

/** The settings a CopierCreateDTO or CopierUpdateDTO sends; members left out (or undefined) are not there. */
export const fromCopierDTO = (body: Record<string, unknown>): Partial<CopierSettings> =>
  Object.fromEntries(settingKeys.filter((k) => body[k] !== undefined).map((k) => [k, body[k]])) as Partial<CopierSettings>;
