// CopierDTO from the copiers read model, and a copier's settings from a request.
import type { Selectable } from 'kysely';
import { type CopierSettings, defaultCopierSettings, scaleTypeById, scaleTypeOf } from '../../domain/copier/settings.js';
import type { CopiersTable } from '../../projections/schema.js';
import { ApiError } from '../errors.js';
import { enumObject } from '../shared/enumObjects.js';

type StrategyColumns = 'from_strategy_id' | 'to_strategy_id' | 'strategy_key' | 'strategy_name' | 'strategy_active' | 'signal_provider_id';
/** A copier as the copiers read model has it; the strategy and signal columns are absent in a copier of an account template. */
export type CopierRow = Omit<Selectable<CopiersTable>, StrategyColumns> &
  Partial<Pick<Selectable<CopiersTable>, StrategyColumns>> & { from_account_alias: string | null };

const settingKeys = Object.keys(defaultCopierSettings) as (keyof CopierSettings)[];

/** ScaleTypeDTO of a scale type: `{ id, name }` as the reference numbers them. */
export const toScaleTypeDTO = (key: CopierSettings['scaleType']) => {
  const t = scaleTypeOf(key);
  return enumObject(t.id, t.name);
};

/**
 * CopierDTO: the copier's settings over the defaults, so a member added later reads its default.
 * Members without a value are left out (the reference types them without null): fromAccountAlias,
 * customComment, customMagicNumber, and the strategy members of a copier without a strategy
 * (fromStrategyName with fromStrategyId only).
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
    ...(row.from_strategy_id ? { fromStrategyId: row.from_strategy_id, ...(row.strategy_name == null ? {} : { fromStrategyName: row.strategy_name }) } : {}),
    ...(row.to_strategy_id ? { toStrategyId: row.to_strategy_id } : {}),
  };
};

const refused = (field: string, message: string) => new ApiError(400, '[VALIDATION_FAILED]', `${field}: ${message}`, [{ field, message }]);

/**
 * The settings a CopierCreateDTO or CopierUpdateDTO sends; members left out (or undefined) are not
 * there. `scaleType` is `{ id }` (an unknown id is refused). The strategy ids are not settings:
 * strategiesOf reads them.
 */
export const fromCopierDTO = (body: Record<string, unknown>): Partial<CopierSettings> => {
  const settings: Record<string, unknown> = Object.fromEntries(settingKeys.filter((k) => body[k] !== undefined).map((k) => [k, body[k]]));
  const scaleType = body['scaleType'] as { id: number } | undefined;
  if (scaleType !== undefined) {
    const known = scaleTypeById(scaleType.id);
    if (!known) throw refused('body.scaleType.id', `unknown scale type ${scaleType.id}; 1 Balance, 2 Equity, 3 Fixed lot size, 4 No scaling`);
    settings['scaleType'] = known.key;
  }
  return settings as Partial<CopierSettings>;
};

/** The strategy ids a CopierDTO sends (null or absent: none). */
export const strategiesOf = (body: Record<string, unknown>): { fromStrategyId?: string; toStrategyId?: string } => {
  const id = (member: string) => (typeof body[member] === 'string' ? { [member]: body[member] as string } : {});
  return { ...id('fromStrategyId'), ...id('toStrategyId') };
};

/** A PUT may send the copier's strategy ids back unchanged (or null, or not at all); another value is refused. */
export const checkStrategiesUnchanged = (body: Record<string, unknown>, row: CopierRow): void => {
  const sent = strategiesOf(body);
  for (const [member, current] of [
    ['fromStrategyId', row.from_strategy_id ?? null],
    ['toStrategyId', row.to_strategy_id ?? null],
  ] as const) {
    const value = sent[member];
    if (value !== undefined && value !== current) {
      throw new ApiError(400, '[COPIER_STRATEGY_IMMUTABLE]', `${member}: the strategy of a copier is set at its creation and cannot change`, [
        { field: `body.${member}`, message: 'set at creation only' },
      ]);
    }
  }
};
