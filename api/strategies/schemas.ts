// Strategies on the wire: the reference's StrategyDTO (answer and request), and the strategy copier's
// request (the reference's CopierDTO, with the slave account named in the body).
import { Type } from '@sinclair/typebox';
import { MAX_STRATEGY_KEY, MAX_STRATEGY_NAME_LENGTH } from '../../domain/strategy/settings.js';
import { CopierCreateDTO } from '../copiers/schemas.js';
import { Uuid } from '../shared/schemas.js';

const name = Type.String({ minLength: 0, maxLength: MAX_STRATEGY_NAME_LENGTH });
const key = Type.Integer({
  format: 'int32',
  minimum: 1,
  maximum: MAX_STRATEGY_KEY,
  description:
    'You can define a positive number as key. This key will be saved in the "magic number" field for each trade (reference). Ours: 1 to 2147483647 (0 and below: 400 [VALIDATION_FAILED]), one strategy per key in a project (409 [STRATEGY_KEY_IN_USE]). A copier with toStrategyId writes it into its slave orders\' magic number; a copier with fromStrategyId copies only the master trades whose magic number is the key. A changed key routes from the next trade on.',
});
const active = Type.Boolean({
  description:
    "Ours (the reference is silent): false: the strategy's copiers open no new copies (skip reason STRATEGY_INACTIVE); the copies they hold still follow the master's closes and changes.",
});

export const StrategyDTO = Type.Object(
  {
    id: { ...Uuid, readOnly: true },
    name,
    key,
    active,
    projectId: Uuid,
  },
  { $id: 'StrategyDTO', additionalProperties: false },
);

export const StrategyWriteDTO = Type.Object(
  {
    id: Type.Optional(Type.Unknown({ readOnly: true, description: 'ignored' })),
    name,
    key,
    active: Type.Optional({ ...active, default: true, description: `${active.description} Absent: true (ours; the reference requires it).` }),
    projectId: Type.Optional({ ...Uuid, description: 'the path decides: absent, or the path project (another value: 400 [VALIDATION_FAILED])' }),
  },
  { additionalProperties: false, title: 'StrategyDTO (request)', description: 'POST creates, PUT replaces name, key and active.' },
);

export const StrategyParams = Type.Object({ projectId: Uuid, strategyId: Uuid }, { additionalProperties: false });
export const StrategyCopierParams = Type.Object({ projectId: Uuid, strategyId: Uuid, copierId: Uuid }, { additionalProperties: false });
export const StrategyCopierFeatureParams = Type.Object({ projectId: Uuid, strategyId: Uuid, copierId: Uuid, featureId: Uuid }, { additionalProperties: false });

export const StrategyCopierCreateDTO = Type.Object(
  {
    ...CopierCreateDTO.properties,
    toAccountId: {
      ...Uuid,
      description: 'the slave account, of the same project: the copier belongs to it (it is listed under /accounts/{toAccountId}/copiers too)',
    },
  },
  {
    additionalProperties: false,
    title: 'CopierDTO (strategy copier create)',
    description:
      "A copier from fromAccountId to toAccountId with this strategy: toStrategyId (the default when neither is sent) writes the strategy's key into the slave orders' magic number; fromStrategyId copies only the master trades carrying the key. Either must be the path strategy (another id: 400 [VALIDATION_FAILED]); both: 400 [VALIDATION_FAILED]. Members left out take their defaults.",
  },
);
