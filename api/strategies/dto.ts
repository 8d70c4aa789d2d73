// StrategyDTO from the strategies read model, and a strategy's settings from a request.
import type { Selectable } from 'kysely';
import type { StrategySettings } from '../../domain/strategy/settings.js';
import type { StrategiesTable } from '../../projections/schema.js';
import { ApiError } from '../errors.js';

export const toStrategyDTO = (row: Selectable<StrategiesTable>) => ({
  id: row.id,
  name: row.name,
  key: row.key,
  active: row.active,
  projectId: row.project_id,
});

export const fromStrategyDTO = (body: { name: string; key: number; active?: boolean; projectId?: string }, projectId: string): StrategySettings => {
  if (body.projectId !== undefined && body.projectId !== projectId) {
    throw new ApiError(400, '[VALIDATION_FAILED]', 'body.projectId: must be the project in the path', [
      { field: 'body.projectId', message: 'must be the project in the path' },
    ]);
  }
  return { name: body.name, key: body.key, active: body.active ?? true };
};
