// CopierDTO from the copiers read model, and a copier's settings from a request.
import type { Selectable } from 'kysely';
import { type CopierSettings, defaultCopierSettings, scaleTypeById, scaleTypeOf } from '../../domain/copier/settings.js';
import type { CopiersTable } from '../../projections/schema.js';
import { ApiError } from '../errors.js';
import { enumObject } from '../shared/enumObjects.js';

export type CopierRow = Selectable<CopiersTable> & { from_account_alias: string | null };

const settingKeys = Object.keys(defaultCopierSettings) as (keyof CopierSettings)[];

/** ScaleTypeDTO of a scale type: `{ id, name }` as the reference numbers them. */
export const toScaleTypeDTO = (key: CopierSettings['scaleType']) => {
  const t = scaleTypeOf(key);
  return enumObject(t.id, t.name);
};

/**
 * CopierDTO: the copier's settings over the defaults, so a member added later reads its default.
 * Members without a value are left out (the reference types them without null): fromAccountAlias,
 * customComment, customMagicNumber, and the strategy members until strategies exist.
 */
export const toCopierDTO = (row: CopierRow) => {
  const { scaleType, customComment, customMagicNumber, ...settings } = { ...defaultCopierSettings, ...(row.settings as CopierSettings) };
  return {
    id: row.id,
    fromAccountId: row.from_account_id,
    ...(row.from_account_alias === null ? {} : { fromAccountAlias: row.from_account_alias }),
    toAccountId: row.to_account_id,
    created: new Date(row.created).toISOString(),
    ...settings,
    scaleType: toScaleTypeDTO(scaleType),
    ...(customComment === null ? {} : { customComment }),
    ...(customMagicNumber === null ? {} : { customMagicNumber }),
  };
};

const refused = (field: string, message: string) => new ApiError(400, '[VALIDATION_FAILED]', `${field}: ${message}`, [{ field, message }]);

/**
 * The settings a CopierCreateDTO or CopierUpdateDTO sends; members left out (or undefined) are not
 * there. `scaleType` is `{ id }` (an unknown id is refused); a strategy id is refused until strategies
 * exist (400 [STRATEGIES_NOT_SUPPORTED]).
 */
export const fromCopierDTO = (body: Record<string, unknown>): Partial<CopierSettings> => {
  for (const member of ['fromStrategyId', 'toStrategyId']) {
    if (body[member] !== undefined && body[member] !== null) {
      throw new ApiError(
        400,
        '[STRATEGIES_NOT_SUPPORTED]',
        `${member}: strategies are not available yet; copy from an account (fromAccountId) and send no strategy id`,
        [{ field: `body.${member}`, message: 'strategies are not available yet' }],
      );
    }
  }
  const settings: Record<string, unknown> = Object.fromEntries(settingKeys.filter((k) => body[k] !== undefined).map((k) => [k, body[k]]));
  const scaleType = body['scaleType'] as { id: number } | undefined;
  if (scaleType !== undefined) {
    const known = scaleTypeById(scaleType.id);
    if (!known) throw refused('body.scaleType.id', `unknown scale type ${scaleType.id}; 1 Balance, 2 Equity, 3 Fixed lot size, 4 No scaling`);
    settings['scaleType'] = known.key;
  }
  return settings as Partial<CopierSettings>;
};
