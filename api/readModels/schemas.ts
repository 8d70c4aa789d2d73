// The analyst's view of the read models (ours; the reference has none): wire shapes of app/readModels.ts.
import { Type } from '@sinclair/typebox';
import { Nullable, Uuid } from '../shared/schemas.js';

const Time = Type.String({ format: 'date-time' });

export const ReadModelParams = Type.Object({
  readModel: Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$', description: 'a read model name (GET /readModels)' }),
});
export const RebuildParams = Type.Object({ readModel: ReadModelParams.properties.readModel, rebuildId: Uuid });

export const ReadModelRebuildDTO = Type.Object(
  {
    id: Uuid,
    readModel: Type.String(),
    state: Type.Union([Type.Literal('RUNNING'), Type.Literal('SWITCHED'), Type.Literal('FAILED')], {
      description: 'RUNNING: generation N+1 is being built while N serves; SWITCHED: caught up and serving; FAILED: N still serves, error says why',
    }),
    phase: Nullable(
      Type.Union([Type.Literal('HISTORY'), Type.Literal('FINISHING'), Type.Literal('SWITCHING')], {
        description:
          "HISTORY: the bulk of $all; FINISHING: the new tables made durable and indexed; SWITCHING: the tail applied and the views switched, under the live runner's locks",
      }),
    ),
    processed: Type.Integer({ description: 'events of $all read so far' }),
    total: Type.Integer({ description: 'events in the store when it started (the tail appended since comes on top, so processed may pass it)' }),
    percent: Type.Number({ description: 'processed / total in percent, at most 100 (100 once SWITCHED)' }),
    generation: Nullable(Type.Integer({ description: 'the generation it switched to' })),
    startedAt: Time,
    updatedAt: Time,
    finishedAt: Nullable(Time),
    error: Nullable(Type.String()),
    startedByThisProject: Type.Boolean({ description: 'whether a key of your project started it (read models are shared: who, only then)' }),
    startedByApiKeyId: Nullable(Type.String({ description: 'the key that started it, when it was one of your project; else null' })),
  },
  { $id: 'ReadModelRebuildDTO' },
);

export const ReadModelDTO = Type.Object(
  {
    name: Type.String(),
    version: Type.Integer({ description: "the read model's version in this build of the service" }),
    generation: Nullable(Type.Integer({ description: 'the generation serving (its tables in schema rm_<name>_g<generation>)' })),
    buildingGeneration: Nullable(Type.Integer({ description: 'a generation being built beside it (a rebuild under way, or one a crash left)' })),
    checkpoint: Nullable(Type.String({ description: 'the last event of $all it has applied, `commit:prepare` (null: none yet)' })),
    checkpointUpdatedAt: Nullable(Time),
    lagSeconds: Nullable(Type.Number({ description: 'age of the oldest event it has not applied, 0 when caught up (null on EventStoreDB)' })),
    lagEvents: Nullable(Type.Integer({ description: 'events it has not applied (counted up to 100,000; null on EventStoreDB)' })),
    lastRebuild: Nullable(ReadModelRebuildDTO),
  },
  { $id: 'ReadModelDTO' },
);
