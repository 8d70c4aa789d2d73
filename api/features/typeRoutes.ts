// GET /types/featureTypes: the feature types (FeatureTypeDTO) with their ids, as a client sends them in
// a FeatureDTO's `type: {id}` (domain/feature/types.ts).
import { Type } from '@sinclair/typebox';
import { featureDefinition } from '../../domain/feature/catalogue.js';
import { featureTypes } from '../../domain/feature/types.js';
import type { Routes } from '../route.js';
import { errorResponses } from '../shared/schemas.js';
import { FeatureTypeListItem } from './schemas.js';

const listed = featureTypes.map((t) => ({
  id: t.id,
  name: t.dto,
  ...(t.planName ? { planName: t.planName } : {}),
  supported: t.comesWithIssue === undefined && featureDefinition(t.dto) !== undefined,
}));

export const featureTypeRoutes = (routes: Routes): void => {
  routes.add({
    method: 'get',
    path: '/types/featureTypes',
    tag: 'Types',
    operationId: 'getFeatureTypes',
    summary: 'Feature types',
    description:
      "Every feature type with its id, as a FeatureDTO's `type: {id}` names it. `name` is the feature DTO's name (the FeatureSettingDTO branch of its `setting`). Ids 1 to 37 follow the reference document's list of feature DTOs (1 = Telegram notifications, as it says); the features the spec 1.2.6 adds, and ours, follow from 38. `supported` (ours) is false for the types this service does not run yet: attaching one gives 400 [FEATURE_TYPE_NOT_SUPPORTED].",
    responses: { 200: { description: 'the feature types, by id', schema: Type.Array(FeatureTypeListItem) }, ...errorResponses(401) },
    handler: async () => ({ body: listed }),
  });
};
